#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <random>

#include "checkpoint/TorchFile.h"
#include "configfile/ConfigLoader.h"
#include "models/VideoModels.h"
#include "train/Checkpoint.h"
#include "train/Optimizer.h"

#include "support/TestFiles.h"

using namespace amp;
namespace fs = std::filesystem;

namespace {

std::string fixture(const char* name) {
  return std::string(AMPSTUDIO_TEST_DATA_DIR) + "/checkpoints/" + name;
}

std::string readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// What torch.save writes for `pickle` with no tensors: a zip holding archive/data.pkl.
std::string zipWith(const std::string& pickle) {
  std::string out;
  caffe2::serialize::PyTorchStreamWriter w([&out](const void* p, size_t n) {
    out.append(static_cast<const char*>(p), n);
    return n;
  });
  w.writeRecord("data.pkl", pickle.data(), pickle.size());
  w.writeEndOfFile();
  return out;
}

// The legacy stream around `pickle`: magic, protocol, sys_info, the object, no storages.
std::string legacyWith(const std::string& pickle) {
  std::string s;
  s += std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.",
                   15);                       // 0x1950a86a20f9469cfc6c
  s += std::string("\x80\x02M\xe9\x03.", 6);  // 1001
  s += std::string("\x80\x02}.", 4);          // {}
  s += pickle;
  s += std::string("\x80\x02].", 4);  // no storage keys
  return s;
}

using testsupport::errorOf;

torch::Tensor tensorAt(const c10::impl::GenericDict& d, const char* key) {
  return d.at(key).toTensor();
}

config::Config demoConfig(std::vector<std::string> overrides) {
  overrides.insert(overrides.end(),
                   {"NUM_GPUS", "0", "SOLVER.OPTIMIZING_METHOD", "sgd", "SOLVER.MOMENTUM", "0.9"});
  auto r = config::ConfigLoader().loadFile(
      std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml", overrides);
  if (!r.ok()) qFatal("%s", config::formatDiagnostics(r.diagnostics).c_str());
  return r.config;
}

fs::path scratch(const char* what) {
  const auto d = fs::temp_directory_path() /
                 ("ampstudio-torchfile-" + std::string(what) + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// LibTorch's optimizer state key of a parameter: its TensorImpl's address as text (1.x) or itself
// (2.x).
template <class Key>
Key stateKey(const torch::Tensor& p) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream s;
    s << static_cast<const void*>(p.unsafeGetTensorImpl());
    return s.str();
  } else {
    return p.unsafeGetTensorImpl();
  }
}

bool anyNoteContains(const std::vector<std::string>& notes, const std::string& text) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

class TestTorchFile : public QObject {
  Q_OBJECT

  // The values make_fixtures.py wrote, the same in both torch.save formats.
  static void checkCommon(const c10::IValue& v) {
    QVERIFY(v.isGenericDict());
    const auto ck = v.toGenericDict();
    QCOMPARE(ck.at("epoch").toInt(), std::int64_t(4));
    QCOMPARE(ck.at("big").toInt(), std::int64_t(1) << 40);
    QCOMPARE(ck.at("neg").toInt(), std::int64_t(-5));
    QCOMPARE(QString::fromStdString(ck.at("cfg").toStringRef()),
             QString("TRAIN:\n  BATCH_SIZE: 8\n"));
    const auto misc = ck.at("misc").toTuple()->elements();
    QCOMPARE(misc.size(), size_t(4));
    QVERIFY(misc[0].isNone());
    QCOMPARE(misc[1].toDouble(), 1.25);
    QCOMPARE(QString::fromStdString(misc[2].toStringRef()), QString("text"));
    QCOMPARE(misc[3].toList().get(1).toInt(), std::int64_t(2));

    const auto m = ck.at("model_state").toGenericDict();
    const auto w = tensorAt(m, "conv.weight");
    QCOMPARE(w.scalar_type(), at::kFloat);
    QVERIFY(torch::equal(w, torch::tensor({0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f}).view({2, 3})));
    const auto wt = tensorAt(m, "conv.weight_t");
    QVERIFY(!wt.is_contiguous());
    QVERIFY(torch::equal(wt, w.t()));
    QCOMPARE(wt.data_ptr(), w.data_ptr());  // one storage, as in the file
    QVERIFY(torch::equal(tensorAt(m, "fc.bias"), torch::tensor({10.0f, 20.0f, 30.0f})));
    const auto nbt = tensorAt(m, "bn.num_batches_tracked");
    QCOMPARE(nbt.dim(), std::int64_t(0));
    QCOMPARE(nbt.scalar_type(), at::kLong);
    QCOMPARE(nbt.item<std::int64_t>(), std::int64_t(7));
    const auto half = tensorAt(m, "half");
    QCOMPARE(half.scalar_type(), at::kHalf);
    QVERIFY(torch::equal(half, torch::tensor({1.0, -2.5, 0.1}).to(at::kHalf)));
    const auto bf = tensorAt(m, "bf16");
    QCOMPARE(bf.scalar_type(), at::kBFloat16);
    QVERIFY(torch::equal(bf.to(at::kFloat), torch::tensor({1.0f, -3.0f, 0.5f})));
    QVERIFY(torch::equal(tensorAt(m, "mask"), torch::tensor({true, false, true})));
    const auto p = tensorAt(m, "param");
    QCOMPARE(p.scalar_type(), at::kDouble);
    QVERIFY(torch::equal(p, torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::kDouble).view({2, 2})));
    QCOMPARE(tensorAt(m, "empty").sizes().vec(), (std::vector<std::int64_t>{0, 4}));
    // the OrderedDict's order is the file's
    std::vector<std::string> names;
    for (const auto& e : m) names.push_back(e.key().toStringRef());
    QCOMPARE(QString::fromStdString(names.front()), QString("conv.weight"));
    QCOMPARE(QString::fromStdString(names[3]), QString("bn.num_batches_tracked"));

    const auto opt = ck.at("optimizer_state").toGenericDict();
    const auto state = opt.at("state").toGenericDict();
    QVERIFY(torch::equal(state.at(std::int64_t(0)).toGenericDict().at("momentum_buffer").toTensor(),
                         torch::tensor({0.25f, -0.25f})));
    const auto group = opt.at("param_groups").toList().get(0).toGenericDict();
    QCOMPARE(group.at("lr").toDouble(), 0.1);
    QCOMPARE(group.at("nesterov").toBool(), true);
    QCOMPARE(group.at("params").toList().size(), size_t(2));
  }

 private Q_SLOTS:
  // make_fixtures.py (Python's pickle, no PyTorch) and make_real_fixtures.py (torch.save of
  // PyTorch 1.13.1 itself) write the same checkpoint.
  void readsTheZipFormat_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("pickle") << "torchsave_zip.pyth";
    QTest::newRow("torch.save") << "pytorch_zip.pyth";
  }
  void readsTheZipFormat() {
    QFETCH(QString, file);
    checkCommon(checkpoint::loadTorchFile(fixture(qPrintable(file))));
  }

  void readsWhatTorchSaveWroteInTheLegacyFormat() {
    checkCommon(checkpoint::loadTorchFile(fixture("pytorch_legacy.pyth")));
  }

  void readsTheLegacyFormat() {
    const auto v = checkpoint::loadTorchFile(fixture("torchsave_legacy.pyth"));
    checkCommon(v);
    const auto m = v.toGenericDict().at("model_state").toGenericDict();
    const auto view = tensorAt(m, "view");  // a view of fc.bias's storage from element 1
    QVERIFY(torch::equal(view, torch::tensor({-2.0f, 10.0f, 20.0f})));
    QCOMPARE(view.data_ptr<float>() + 1, tensorAt(m, "fc.bias").data_ptr<float>());
  }

  void readsCaffe2Blobs_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("pickle") << "caffe2_blobs.pkl";
    QTest::newRow("numpy") << "numpy_blobs.pkl";
  }
  void readsCaffe2Blobs() {
    QFETCH(QString, file);
    const auto blobs = checkpoint::loadCaffe2Blobs(fixture(qPrintable(file)));
    std::map<std::string, torch::Tensor> b(blobs.begin(), blobs.end());
    QCOMPARE(blobs.size(), size_t(7));
    QCOMPARE(QString::fromStdString(blobs.front().first), QString("conv1_w"));  // the file's order
    QCOMPARE(b["conv1_w"].sizes().vec(), (std::vector<std::int64_t>{2, 1, 1, 1, 1}));
    QVERIFY(torch::equal(b["conv1_w"].flatten(), torch::tensor({0.5f, -0.5f})));
    QVERIFY(torch::equal(b["res_conv1_bn_riv"], torch::tensor({0.75f, 0.25f})));
    QVERIFY(torch::equal(
        b["pred_w"],
        torch::tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).view({2, 3})));  // Fortran order
    QCOMPARE(b["pred_b"].scalar_type(), at::kDouble);
    QVERIFY(torch::equal(b["pred_b"],
                         torch::tensor({0.125, -8.0}, torch::kDouble)));  // big-endian in the file
    QCOMPARE(b["model_iter"].item<std::int64_t>(), std::int64_t(123));
    QVERIFY(torch::equal(b["bytes_over_127"], torch::tensor({200, 0, 255}, torch::kByte)));
  }

  // What LibTorch writes (our checkpoints, torch::pickle_save) reads back exactly, typed lists too.
  void readsWhatLibTorchWrites() {
    c10::impl::GenericDict d(c10::StringType::get(), c10::AnyType::get());
    const auto f = torch::randn({3, 4});
    d.insert("f", f);
    d.insert("strided", f.t());
    d.insert("h", torch::randn({5}).to(at::kHalf));
    d.insert("b", torch::randn({2, 2}).to(at::kBFloat16));
    d.insert("i", torch::arange(6, torch::kLong).view({2, 3}));
    d.insert("ids", c10::List<int64_t>({3, 1, 4}));
    d.insert("xs", c10::List<double>({0.5, 2.0}));
    d.insert("t", c10::ivalue::Tuple::create({c10::IValue(1.5), c10::IValue(std::string("x"))}));
    c10::impl::GenericDict byIndex(c10::IntType::get(), c10::AnyType::get());
    byIndex.insert(7, torch::ones({2}));
    d.insert("by_index", byIndex);
    const auto bytes = torch::pickle_save(c10::IValue(d));
    const auto v = checkpoint::loadTorchBytes(std::string(bytes.begin(), bytes.end()), "memory")
                       .toGenericDict();
    QVERIFY(torch::equal(tensorAt(v, "f"), f));
    QVERIFY(torch::equal(tensorAt(v, "strided"), f.t()));
    QVERIFY(torch::equal(tensorAt(v, "h"), d.at("h").toTensor()));
    QVERIFY(torch::equal(tensorAt(v, "b"), d.at("b").toTensor()));
    QVERIFY(torch::equal(tensorAt(v, "i"), d.at("i").toTensor()));
    const auto ids = v.at("ids").toList();
    QCOMPARE(ids.size(), size_t(3));
    QCOMPARE(ids.get(2).toInt(), std::int64_t(4));
    QCOMPARE(v.at("xs").toList().get(0).toDouble(), 0.5);
    QCOMPARE(v.at("t").toTuple()->elements()[1].toStringRef(), std::string("x"));
    QVERIFY(torch::equal(v.at("by_index").toGenericDict().at(std::int64_t(7)).toTensor(),
                         torch::ones({2})));
  }

  // A training checkpoint of ours goes through the same reader: weights, optimizer state, counters.
  void ourCheckpointRoundTrips() {
    const auto dir =
        fs::temp_directory_path() / ("ampstudio-torchfile-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    torch::manual_seed(3);
    torch::nn::Sequential net(torch::nn::Linear(4, 3), torch::nn::BatchNorm1d(3));
    torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    net->train();
    for (int i = 0; i < 2; ++i) {
      opt.zero_grad();
      net->forward(torch::randn({5, 4})).pow(2).sum().backward();
      opt.step();
    }
    train::CheckpointInfo info;
    info.epochs_done = 3;
    info.global_step = 17;
    info.cfg_yaml = "NUM_GPUS: 1\n";
    const auto path = train::saveCheckpoint(dir.string(), *net, &opt, nullptr, info);
    {  // PySlowFast's set_lr reads layer_decay of every group when it resumes our file
      const auto groups = checkpoint::loadTorchFile(path)
                              .toGenericDict()
                              .at("optimizer_state")
                              .toGenericDict()
                              .at("param_groups")
                              .toList();
      for (size_t g = 0; g < groups.size(); ++g) {
        QCOMPARE(groups.get(g).toGenericDict().at("layer_decay").toDouble(), 1.0);
        QCOMPARE(groups.get(g).toGenericDict().at("apply_LARS").toBool(), false);
      }
    }

    torch::nn::Sequential other(torch::nn::Linear(4, 3), torch::nn::BatchNorm1d(3));
    torch::optim::SGD opt2(other->parameters(), torch::optim::SGDOptions(0.5).momentum(0.9));
    const auto back = train::loadCheckpoint(path, {other.ptr().get(), &opt2, nullptr, false, {}});
    QCOMPARE(back.epochs_done, 3);
    QCOMPARE(back.global_step, std::int64_t(17));
    QCOMPARE(QString::fromStdString(back.cfg_yaml), QString("NUM_GPUS: 1\n"));
    for (size_t k = 0; k < net->parameters().size(); ++k)
      QVERIFY(torch::equal(net->parameters()[k], other->parameters()[k]));
    QVERIFY(torch::equal(net->buffers()[0], other->buffers()[0]));  // running mean
    QCOMPARE(opt2.param_groups()[0].options().get_lr(), 0.1);
    // momentum buffers on the same parameters: one more identical step stays identical
    const auto x = torch::randn({5, 4});
    for (auto* pair : {&opt, &opt2}) pair->zero_grad();
    net->forward(x).pow(2).sum().backward();
    other->forward(x).pow(2).sum().backward();
    opt.step();
    opt2.step();
    for (size_t k = 0; k < net->parameters().size(); ++k)
      QVERIFY(torch::allclose(net->parameters()[k], other->parameters()[k]));
    fs::remove_all(dir);
  }

  // A checkpoint as PySlowFast writes it (torch 1.13's torch.save of model.state_dict() and an SGD
  // state_dict with PySlowFast's bn-first groups): weights, epoch and every momentum buffer land on
  // the parameter it belongs to under our optimizer's groups.
  void resumesWhatPySlowFastWrote() {
    torch::nn::Sequential net(torch::nn::Linear(4, 3), torch::nn::BatchNorm1d(3));
    auto opt = train::buildOptimizer(
        demoConfig({"SOLVER.WEIGHT_DECAY", "1e-4", "BN.WEIGHT_DECAY", "0.0"}), *net);
    QCOMPARE(opt->param_groups().size(), size_t(2));
    QCOMPARE(opt->param_groups()[0].params().size(), size_t(2));  // bn first, as PySlowFast
    const auto path = fixture("pyslowfast_sequential.pyth");
    const auto info = train::loadCheckpoint(path, {net.ptr().get(), opt.get(), nullptr, false, {}});
    QCOMPARE(info.epochs_done,
             3);  // PySlowFast's "epoch" 2: resume at epoch 3 (its start_epoch = epoch + 1)
    const auto file = checkpoint::loadTorchFile(path).toGenericDict();
    const auto weights = file.at("model_state").toGenericDict();
    const auto momentum = file.at("momentum_by_name").toGenericDict();
    for (const auto& p : net->named_parameters()) {
      QVERIFY(torch::equal(p.value(), weights.at(p.key()).toTensor()));
      const auto it =
          opt->state().find(stateKey<std::decay_t<decltype(opt->state())>::key_type>(p.value()));
      QVERIFY2(it != opt->state().end(), p.key().c_str());
      const auto* sgd = dynamic_cast<const torch::optim::SGDParamState*>(it->second.get());
      QVERIFY(sgd);
      QVERIFY2(torch::equal(sgd->momentum_buffer(), momentum.at(p.key()).toTensor()),
               p.key().c_str());
    }
  }

  // Fine-tuning (TRAIN.CHECKPOINT_FILE_PATH): the weights whose name and shape fit are loaded, the
  // head of another class count keeps its initialisation and is reported; resuming stays strict.
  void initialisesTheFittingSubset() {
    const auto dir = scratch("subset");
    torch::manual_seed(1);
    auto five = models::buildVideoNet(demoConfig({"MODEL.NUM_CLASSES", "5"}));
    train::CheckpointInfo info;
    info.epochs_done = 1;
    const auto path = train::saveCheckpoint(dir.string(), *five, nullptr, nullptr, info);
    torch::manual_seed(2);
    auto three = models::buildVideoNet(demoConfig({"MODEL.NUM_CLASSES", "3"}));
    const auto headBefore = three->named_parameters()["head.projection.weight"].clone();
    const QString strict = errorOf([&] {
      train::loadCheckpoint(path, {three.get(), nullptr, nullptr, false, {}});
    });
    QVERIFY2(strict.contains("head.projection.weight: 5x") && strict.contains("3x"),
             qPrintable(strict));
    const auto got =
        train::loadCheckpoint(path, {three.get(), nullptr, nullptr, false, {}, /*subset=*/true});
    QVERIFY(anyNoteContains(got.notes, "head.projection.weight: 5x"));
    QVERIFY(anyNoteContains(got.notes, "not loaded, keeps its initialisation"));
    QCOMPARE(got.notes.size(), size_t(2));  // weight and bias of the head, nothing else
    const auto theirs = five->named_parameters();
    for (const auto& p : three->named_parameters()) {
      if (p.key().rfind("head.projection.", 0) == 0) continue;
      QVERIFY2(torch::equal(p.value(), theirs[p.key()]), p.key().c_str());
    }
    QVERIFY(torch::equal(three->named_parameters()["head.projection.weight"], headBefore));
    // a checkpoint of which nothing fits is an error even as a subset
    torch::nn::Linear other(2, 2);
    const auto none =
        train::saveCheckpoint((dir / "other").string(), *other, nullptr, nullptr, info);
    QVERIFY(errorOf([&] {
              train::loadCheckpoint(none, {three.get(), nullptr, nullptr, false, {}, true});
            }).contains("no weight of the checkpoint fits"));
    fs::remove_all(dir);
  }

  // PySlowFast's reshaping of entries that do not fit: MViT's relative positions and positional
  // embeddings interpolated (linear, align_corners False), 2D weights inflated to 3D.
  void interpolatesAndInflatesAsPySlowFast() {
    const auto dir = scratch("fit");
    struct Attn : torch::nn::Module {
      torch::Tensor rel;
      Attn() { rel = register_parameter("rel_pos_h", torch::zeros({5, 2})); }
    };
    struct Block : torch::nn::Module {
      Block() { register_module("attn", std::make_shared<Attn>()); }
    };
    struct Mvit : torch::nn::Module {
      torch::Tensor temporal, spatial;
      Mvit() {
        register_module("block", std::make_shared<Block>());
        temporal = register_parameter("pos_embed_temporal", torch::zeros({1, 4, 3}));
        spatial = register_parameter("pos_embed_spatial", torch::zeros({1, 9, 3}));
      }
    };
    auto save = [&](const char* file,
                    const std::vector<std::pair<std::string, torch::Tensor>>& entries) {
      c10::impl::GenericDict model(c10::StringType::get(), c10::AnyType::get());
      for (const auto& [k, v] : entries) model.insert(k, v);
      c10::impl::GenericDict ck(c10::StringType::get(), c10::AnyType::get());
      ck.insert("model_state", model);
      const auto bytes = torch::pickle_save(c10::IValue(ck));
      const auto path = (dir / file).string();
      std::ofstream(path, std::ios::binary)
          .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      return path;
    };
    const auto rel = torch::stack(
        {torch::tensor({0.0f, 1.0f, 2.0f}), torch::tensor({10.0f, 20.0f, 30.0f})}, 1);  // 3 x 2
    const auto temporal =
        torch::tensor({0.0f, 1.0f}).view({1, 2, 1}).repeat({1, 1, 3});  // 1 x 2 x 3
    const auto mvitFile = save("mvit.pyth", {{"block.attn.rel_pos_h", rel},
                                             {"pos_embed_temporal", temporal},
                                             {"pos_embed_spatial", torch::full({1, 4, 3}, 7.0f)}});
    Mvit m;
    const auto got =
        train::loadCheckpoint(mvitFile, {&m, nullptr, nullptr, false, {}, /*subset=*/true});
    QVERIFY(torch::allclose(m.named_parameters()["block.attn.rel_pos_h"].select(1, 0),
                            torch::tensor({0.0f, 0.4f, 1.0f, 1.6f, 2.0f})));
    QVERIFY(torch::allclose(m.temporal.select(2, 1).flatten(),
                            torch::tensor({0.0f, 0.25f, 0.75f, 1.0f})));
    QVERIFY(torch::allclose(m.spatial, torch::full({1, 9, 3}, 7.0f)));
    QVERIFY(anyNoteContains(got.notes, "block.attn.rel_pos_h: 3x2 reshaped to 5x2"));
    QVERIFY(anyNoteContains(got.notes, "pos_embed_spatial: 1x4x3 reshaped to 1x9x3"));
    // resuming stays strict: no reshaping there
    QVERIFY(errorOf([&] {
              train::loadCheckpoint(mvitFile, {&m, nullptr, nullptr, false, {}});
            }).contains("wrong shape"));

    torch::nn::Sequential conv(
        torch::nn::Conv3d(torch::nn::Conv3dOptions(3, 4, {3, 2, 2}).bias(false)));
    const auto w2d = torch::arange(48, torch::kFloat).view({4, 3, 2, 2});
    const auto convFile = save("conv2d.pyth", {{"0.weight", w2d}});
    train::LoadTargets inflate{conv.ptr().get(), nullptr, nullptr, false, {}, true};
    inflate.inflate = true;
    const auto inflated = train::loadCheckpoint(convFile, inflate);
    QVERIFY(torch::allclose(conv->named_parameters()["0.weight"],
                            w2d.unsqueeze(2).repeat({1, 1, 3, 1, 1}) / 3));
    QVERIFY(anyNoteContains(inflated.notes, "inflate 0.weight: 4x3x2x2 reshaped to 4x3x3x2x2"));
    // without TRAIN.CHECKPOINT_INFLATE the 2D weight does not fit and is reported
    QVERIFY(
        errorOf([&] {
          train::loadCheckpoint(convFile, {conv.ptr().get(), nullptr, nullptr, false, {}, true});
        }).contains("no weight of the checkpoint fits"));
    // inflation wants every entry of the file in the model, as PySlowFast's inflate_weight
    const auto extraFile =
        save("extra.pyth", {{"0.weight", w2d}, {"fc.weight", torch::zeros({2})}});
    QVERIFY(errorOf([&] {
              train::loadCheckpoint(extraFile, inflate);
            }).contains("TRAIN.CHECKPOINT_INFLATE: fc.weight"));
    fs::remove_all(dir);
  }

  // TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN: the first occurrence anywhere in a name, patterns in
  // order.
  void clearsNamePatternsAsPySlowFast() {
    const auto dir = scratch("clear");
    struct Enc : torch::nn::Module {
      torch::nn::Linear fc{nullptr};
      Enc() { fc = register_module("fc", torch::nn::Linear(2, 2)); }
    };
    auto net = std::make_shared<Enc>();
    c10::impl::GenericDict model(c10::StringType::get(), c10::AnyType::get());
    model.insert("module.fc.module.weight",
                 torch::full({2, 2}, 3.0));  // only the first "module." goes per pattern
    model.insert("module.fc.bias", torch::full({2}, 4.0));
    c10::impl::GenericDict ck(c10::StringType::get(), c10::AnyType::get());
    ck.insert("model_state", model);
    const auto bytes = torch::pickle_save(c10::IValue(ck));
    const auto path = (dir / "renamed.pyth").string();
    std::ofstream(path, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    const auto got =
        train::loadCheckpoint(path, {net.get(), nullptr, nullptr, false, {"module.", "module."}});
    QVERIFY(torch::equal(net->fc->weight, torch::full({2, 2}, 3.0)));
    QVERIFY(torch::equal(net->fc->bias, torch::full({2}, 4.0)));
    QVERIFY(anyNoteContains(got.notes, "renaming: module.fc.module.weight -> fc.weight"));
    // one pattern removes one occurrence: the second "module." stays and the name does not fit
    QVERIFY(errorOf([&] {
              train::loadCheckpoint(path, {net.get(), nullptr, nullptr, false, {"module."}});
            }).contains("fc.module.weight"));
    fs::remove_all(dir);
  }

  // PySlowFast's rules, and what Python's re.sub makes of these names.
  void convertsCaffe2Names_data() {
    QTest::addColumn<QString>("caffe2");
    QTest::addColumn<QString>("pytorch");
    QTest::newRow("a") << "res2_0_branch2a_bn_rm"
                       << "s2.pathway0_res0.branch2.a_bn.running_mean";
    QTest::newRow("b") << "res2_0_branch1_bn_s"
                       << "s2.pathway0_res0.branch1_bn.weight";
    QTest::newRow("c") << "t_res3_1_branch2b_w"
                       << "s3.pathway1_res1.branch2.b.weight";
    QTest::newRow("d") << "t_pool1_subsample_bn_rm"
                       << "s1_fuse.bn.running_mean";
    QTest::newRow("e") << "t_res2_2_branch2c_bn_subsample_w"
                       << "s2_fuse.conv_f2s.weight";
    QTest::newRow("f") << "nonlocal_conv3_1_theta_w"
                       << "s3.pathway0_nonlocal1.conv_theta.weight";
    QTest::newRow("g") << "pred_w"
                       << "head.projection.weight";
    QTest::newRow("h") << "res2_0_branch2b_bn_fc1_w"
                       << "s2.pathway0_res0.branch2.se.fc1.weight";
    QTest::newRow("i") << "conv1_w_momentum"
                       << "s1.pathway0_stem.conv.w_momentum";
    QTest::newRow("j") << "res_conv1_bn_riv"
                       << "s1.pathway0_stem.bn.running_var";
  }
  void convertsCaffe2Names() {
    QFETCH(QString, caffe2);
    QFETCH(QString, pytorch);
    QCOMPARE(QString::fromStdString(train::convertCaffe2Name(caffe2.toStdString())), pytorch);
  }

  // TRAIN.CHECKPOINT_TYPE caffe2: blobs by converted name, a 2-D pred_w into the head, float64
  // cast, counters ignored silently, the rest reported.
  void loadsCaffe2WeightsAsPySlowFast() {
    struct Stem : torch::nn::Module {
      Stem() {
        register_module("conv", torch::nn::Conv3d(torch::nn::Conv3dOptions(1, 2, 1).bias(false)));
        register_module("bn", torch::nn::BatchNorm3d(2));
      }
    };
    struct S1 : torch::nn::Module {
      S1() { register_module("pathway0_stem", std::make_shared<Stem>()); }
    };
    struct Head : torch::nn::Module {
      Head() { register_module("projection", torch::nn::Linear(3, 2)); }
    };
    struct Tiny : torch::nn::Module {
      Tiny() {
        register_module("s1", std::make_shared<S1>());
        register_module("head", std::make_shared<Head>());
      }
    };
    for (const char* file : {"caffe2_blobs.pkl", "numpy_blobs.pkl"}) {
      Tiny net;
      auto p = net.named_parameters();
      auto b = net.named_buffers();
      const auto biasBefore = p["s1.pathway0_stem.bn.bias"].clone();
      train::LoadTargets targets{&net, nullptr, nullptr, false, {}};
      targets.caffe2 = true;
      const auto info = train::loadCheckpoint(fixture(file), targets);
      QCOMPARE(info.epochs_done, 0);
      QVERIFY(
          torch::equal(p["s1.pathway0_stem.conv.weight"].flatten(), torch::tensor({0.5f, -0.5f})));
      QVERIFY(torch::equal(p["s1.pathway0_stem.bn.weight"], torch::tensor({1.0f, 2.0f})));
      QVERIFY(torch::equal(b["s1.pathway0_stem.bn.running_var"], torch::tensor({0.75f, 0.25f})));
      QVERIFY(torch::equal(p["head.projection.weight"],
                           torch::tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).view({2, 3})));
      QVERIFY(torch::equal(p["head.projection.bias"], torch::tensor({0.125f, -8.0f})));
      QVERIFY(torch::equal(p["s1.pathway0_stem.bn.bias"], biasBefore));
      QVERIFY(anyNoteContains(info.notes, "bytes_over_127: can not be converted"));
      QVERIFY(anyNoteContains(info.notes, "s1.pathway0_stem.bn.bias: not in the file"));
      QVERIFY(anyNoteContains(info.notes, "s1.pathway0_stem.bn.running_mean: not in the file"));
      QVERIFY(!anyNoteContains(info.notes, "model_iter"));
      QCOMPARE(info.notes.size(), size_t(3));
    }
  }

  // A checkpoint must never run code: every global outside the known list is refused by name.
  void refusesCode_data() {
    QTest::addColumn<QByteArray>("pickle");
    QTest::addColumn<QString>("named");
    // os.system("touch ...") through GLOBAL + REDUCE, protocol 2
    const char sys[] =
        "\x80\x02"
        "cos\nsystem\nq\x00X\x1b\x00\x00\x00touch /tmp/ampstudio-pwned-1\x85R.";
    QTest::newRow("os.system") << QByteArray(sys, sizeof sys - 1) << "os.system";
    // builtins.eval through STACK_GLOBAL, protocol 4
    const char ev[] =
        "\x80\x04\x8c\x08"
        "builtins\x8c\x04"
        "eval\x93\x8c\x05"
        "1+1\x85R.";
    QTest::newRow("builtins.eval") << QByteArray(ev, sizeof ev - 1) << "builtins.eval";
    // hidden inside an otherwise normal state dict
    const char in[] =
        "\x80\x02}X\x01\x00\x00\x00"
        "acposix\nsystem\nX\x02\x00\x00\x00ls\x85Rs.";
    QTest::newRow("posix.system in a dict") << QByteArray(in, sizeof in - 1) << "posix.system";
    // a whole pickled model (torch.save(model)) is refused with what to do instead
    const char mod[] =
        "\x80\x02"
        "ctorch.nn.modules.linear\nLinear\n)\x81.";
    QTest::newRow("pickled module") << QByteArray(mod, sizeof mod - 1) << "state_dict()";
  }
  void refusesCode() {
    QFETCH(QByteArray, pickle);
    QFETCH(QString, named);
    const std::string p(pickle.constData(), static_cast<size_t>(pickle.size()));
    fs::remove("/tmp/ampstudio-pwned-1");  // only running the payload could make it exist below
    for (const auto& file : {zipWith(p), legacyWith(p)}) {
      const QString e = errorOf([&] { checkpoint::loadTorchBytes(file, "evil.pyth"); });
      QVERIFY2(e.startsWith("evil.pyth: "), qPrintable(e));
      QVERIFY2(e.contains(named), qPrintable(e));
    }
    QVERIFY(!fs::exists("/tmp/ampstudio-pwned-1"));
  }

  // Damaged files: every truncation and a few thousand byte flips end in an error naming the
  // file, never in a crash or a hang.
  void damagedFilesFailCleanly() {
    for (const char* name : {"torchsave_zip.pyth", "torchsave_legacy.pyth", "pytorch_zip.pyth",
                             "pytorch_legacy.pyth"}) {
      const std::string good = readAll(fixture(name));
      QVERIFY(good.size() > 1000);
      for (size_t n = 0; n < good.size(); n += 13) {
        const QString e =
            errorOf([&] { checkpoint::loadTorchBytes(good.substr(0, n), "cut.pyth"); });
        QVERIFY2(e.startsWith("cut.pyth: "),
                 qPrintable(QString("%1 cut at %2: '%3'").arg(name).arg(n).arg(e)));
      }
      std::mt19937 rng(7);
      int failed = 0;
      for (int k = 0; k < 1500; ++k) {
        std::string bad = good;
        for (int flips = 0; flips < 3; ++flips)
          bad[rng() % bad.size()] = static_cast<char>(rng() & 0xff);
        try {
          checkpoint::loadTorchBytes(bad, "flipped.pyth");
        } catch (const std::runtime_error& e) {
          ++failed;
          QVERIFY2(QString(e.what()).startsWith("flipped.pyth: "), e.what());
        }
      }
      QVERIFY(failed > 0);
    }
    const std::string caffe2 = readAll(fixture("caffe2_blobs.pkl"));
    const auto tmp =
        fs::temp_directory_path() / ("ampstudio-cut-" + std::to_string(::getpid()) + ".pkl");
    for (size_t n = 0; n < caffe2.size(); n += 11) {
      std::ofstream(tmp, std::ios::binary) << caffe2.substr(0, n);
      QVERIFY(!errorOf([&] { checkpoint::loadCaffe2Blobs(tmp.string()); }).isEmpty());
    }
    fs::remove(tmp);
  }

  void namesWhatIsWrong() {
    QVERIFY(errorOf([] {
              checkpoint::loadTorchFile("/nonexistent/x.pyth");
            }).contains("/nonexistent/x.pyth"));
    QVERIFY(errorOf([] {
              checkpoint::loadTorchBytes("hello world, not a checkpoint", "text.pyth");
            }).contains("not a checkpoint PyTorch wrote"));
    // a tensor pointing past the end of its storage
    const char oob[] =
        "\x80\x02"
        "ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\n"
        "X\x01\x00\x00\x00"
        "0X\x03\x00\x00\x00"
        "cpuK\x02tQK\x01K\x04\x85K\x01\x85\x89"
        "ccollections\nOrderedDict\n)RtR.";
    std::string zip;
    {
      caffe2::serialize::PyTorchStreamWriter w([&zip](const void* p, size_t n) {
        zip.append(static_cast<const char*>(p), n);
        return n;
      });
      w.writeRecord("data.pkl", oob, sizeof oob - 1);
      const float two[2] = {1, 2};
      w.writeRecord("data/0", two, sizeof two);
      w.writeEndOfFile();
    }
    const QString e = errorOf([&] { checkpoint::loadTorchBytes(zip, "oob.pyth"); });
    QVERIFY2(e.contains("storage of 2"), qPrintable(e));
  }
};

QTEST_APPLESS_MAIN(TestTorchFile)
#include "tst_torchfile.moc"
