// checkpoint::loadTorchFile and loadCaffe2Blobs: what torch.save (zip and legacy), LibTorch and
// Caffe2's pickles wrote reads back exactly; code, damage and nonsense are refused by name.
#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>

#include <QtTest>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "checkpoint/TorchFile.h"

#include "support/TestFiles.h"

using namespace amp;
namespace fs = std::filesystem;

namespace {

using testsupport::checkpointFixture;
using testsupport::errorOf;

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

torch::Tensor tensorAt(const c10::impl::GenericDict& d, const char* key) {
  return d.at(key).toTensor();
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
    checkCommon(checkpoint::loadTorchFile(checkpointFixture(qPrintable(file))));
  }

  void readsWhatTorchSaveWroteInTheLegacyFormat() {
    checkCommon(checkpoint::loadTorchFile(checkpointFixture("pytorch_legacy.pyth")));
  }

  void readsTheLegacyFormat() {
    const auto v = checkpoint::loadTorchFile(checkpointFixture("torchsave_legacy.pyth"));
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
    const auto blobs = checkpoint::loadCaffe2Blobs(checkpointFixture(qPrintable(file)));
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
      const std::string good = readAll(checkpointFixture(name));
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
    const std::string caffe2 = readAll(checkpointFixture("caffe2_blobs.pkl"));
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
