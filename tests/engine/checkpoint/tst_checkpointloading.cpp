// train::loadCheckpoint on what checkpoint::loadTorchFile read: our checkpoints round trip,
// PySlowFast's resume, and fine-tuning's subset, reshaping, renaming and Caffe2 weights.
#include <torch/torch.h>

#include <QtTest>

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <type_traits>

#include "checkpoint/TorchFile.h"
#include "configfile/ConfigLoader.h"
#include "models/VideoModels.h"
#include "train/Checkpoint.h"
#include "train/Optimizer.h"

#include "support/TestFiles.h"

using namespace amp;
namespace fs = std::filesystem;

namespace {

using testsupport::checkpointFixture;
using testsupport::errorOf;

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

class TestCheckpointLoading : public QObject {
  Q_OBJECT

 private Q_SLOTS:
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
    const auto path = checkpointFixture("pyslowfast_sequential.pyth");
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
      const auto info = train::loadCheckpoint(checkpointFixture(file), targets);
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

  // The model zoo's Caffe2 AVA checkpoints (configs/AVA/c2): every entry of the SlowFast 32x2
  // R101 50-50 AVA model (non-local blocks, fusions, RoI head) is named by a Caffe2 blob, and
  // each blob converts to that entry as PySlowFast's converter makes it (tests/data/README.md).
  void caffe2AvaNamesCoverTheModel() {
    const std::string dir = std::string(AMPSTUDIO_TEST_DATA_DIR) + "/reference/caffe2-ava/";
    auto r =
        config::ConfigLoader().loadFile(dir + "SLOWFAST_32x2_R101_50_50.yaml", {"NUM_GPUS", "0"});
    QVERIFY2(r.ok(), config::formatDiagnostics(r.diagnostics).c_str());
    auto net = models::buildVideoNet(r.config);
    std::set<std::string> entries;
    for (const auto& p : net->named_parameters()) entries.insert(p.key());
    for (const auto& b : net->named_buffers())
      if (b.key().find("num_batches_tracked") == std::string::npos) entries.insert(b.key());
    std::ifstream in(dir + "SLOWFAST_32x2_R101_50_50.c2names");
    QVERIFY(in.good());
    std::set<std::string> named;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream fields(line);
      std::string blob, expected;
      fields >> blob >> expected;
      QCOMPARE(QString::fromStdString(train::convertCaffe2Name(blob)),
               QString::fromStdString(expected));
      QVERIFY2(entries.count(expected), expected.c_str());
      named.insert(expected);
    }
    QCOMPARE(named.size(), size_t(1098));
    QCOMPARE(named.size(), entries.size());
    QVERIFY(entries.count("s4.pathway0_nonlocal13.conv_theta.weight"));
    QCOMPARE(net->named_parameters()["head.projection.weight"].sizes().vec(),
             (std::vector<std::int64_t>{80, 2304}));
  }
};

QTEST_APPLESS_MAIN(TestCheckpointLoading)
#include "tst_checkpointloading.moc"
