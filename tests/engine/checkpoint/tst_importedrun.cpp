#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>

#include <QtTest>

#include <filesystem>
#include <fstream>

#include "checkpoint/ImportedRun.h"
#include "checkpoint/TorchFile.h"
#include "runlog/RunDirectory.h"

using namespace amp;
namespace fs = std::filesystem;

namespace {
std::string fixture(const char* name) {
  return std::string(AMPSTUDIO_TEST_DATA_DIR) + "/checkpoints/" + name;
}

// A PySlowFast OUTPUT_DIR: its stats log and the given checkpoints (name -> fixture).
fs::path pySlowFastRun(const QTemporaryDir& tmp,
                       const std::vector<std::pair<std::string, std::string>>& checkpoints) {
  const fs::path dir = fs::path(tmp.path().toStdString()) / "slow_8x8";
  fs::create_directories(dir / "checkpoints");
  std::ofstream(dir / "json_stats.log")
      << R"(json_stats: {"_type": "train_epoch", "epoch": "1/12", "loss": 4.5})"
      << "\n";
  for (const auto& [name, source] : checkpoints) fs::copy_file(source, dir / "checkpoints" / name);
  return dir;
}
}  // namespace

class TestImportedRun : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Without the weights: every tensor has its shape, strides and dtype on the meta device, in
  // both torch.save formats, and views keep their storage offsets.
  void structureWithoutWeights() {
    for (const char* name : {"torchsave_zip.pyth", "torchsave_legacy.pyth", "pytorch_zip.pyth"}) {
      const c10::IValue full = checkpoint::loadTorchFile(fixture(name));
      const c10::IValue shape = checkpoint::loadTorchFileStructure(fixture(name));
      const auto fm = full.toGenericDict().at("model_state").toGenericDict();
      const auto sm = shape.toGenericDict().at("model_state").toGenericDict();
      QCOMPARE(sm.size(), fm.size());
      for (const auto& item : fm) {
        const torch::Tensor f = item.value().toTensor();
        const torch::Tensor s = sm.at(item.key()).toTensor();
        QVERIFY2(s.is_meta(), name);
        QCOMPARE(s.sizes().vec(), f.sizes().vec());
        QCOMPARE(s.strides().vec(), f.strides().vec());
        QCOMPARE(s.scalar_type(), f.scalar_type());
        QCOMPARE(s.storage_offset(), f.storage_offset());
      }
      QCOMPARE(shape.toGenericDict().at("cfg").toStringRef(),
               full.toGenericDict().at("cfg").toStringRef());
    }
  }

  // The run's config is the cfg of its newest checkpoint, loaded as a config file: keys of another
  // PySlowFast version are named, the rest is the config.
  void configFromTheNewestCheckpoint() {
    QTemporaryDir tmp;
    const fs::path dir =
        pySlowFastRun(tmp, {{"checkpoint_epoch_00011.pyth", fixture("torchsave_zip.pyth")},
                            {"checkpoint_epoch_00012.pyth", fixture("pyslowfast_run.pyth")}});
    QVERIFY(runlog::RunDirectory(dir.string()).isPySlowFast());
    std::string error;
    const auto imported = checkpoint::readImportedRunConfig(dir.string(), &error);
    QVERIFY2(imported, error.c_str());
    QCOMPARE(imported->checkpoint, (dir / "checkpoints" / "checkpoint_epoch_00012.pyth").string());
    QVERIFY(imported->yaml.rfind("DATA:\n  DECODING_BACKEND: pyav\n  INPUT_CHANNEL_NUM:\n  - 3\n",
                                 0) == 0);
    const config::Config& c = imported->loaded.config;
    QCOMPARE(c.getString("MODEL.ARCH"), std::string("slow"));
    QCOMPARE(c.getString("DATA.DECODING_BACKEND"), std::string("pyav"));
    QCOMPARE(c.getInt("TRAIN.BATCH_SIZE"), std::int64_t(64));
    QCOMPARE(c.getFloat("SOLVER.BASE_LR"), 0.8);
    QCOMPARE(c.getIntList("DATA.TRAIN_JITTER_SCALES"), (std::vector<std::int64_t>{256, 320}));
    QVERIFY(c.getBool("TRAIN.MIXED_PRECISION"));
    bool named = false;
    for (const auto& d : imported->loaded.diagnostics)
      named = named || d.key == "SOLVER.FROM_A_LATER_VERSION";
    QVERIFY(named);

    auto meta = runlog::RunDirectory(dir.string()).readMetadata(&error);
    QVERIFY2(meta, error.c_str());
    QCOMPARE(meta->model, std::string("PySlowFast run"));
    checkpoint::describeImportedRun(*meta, dir.string());
    QCOMPARE(meta->model, std::string("ResNet (slow)"));
    QCOMPARE(meta->precision, std::string("fp16"));
    QCOMPARE(meta->extra["config_from"].get<std::string>(), imported->checkpoint);

    // A newer checkpoint replaces the cached config.
    fs::copy_file(fixture("torchsave_zip.pyth"),
                  dir / "checkpoints" / "checkpoint_epoch_00013.pyth");
    const auto newer = checkpoint::readImportedRunConfig(dir.string(), &error);
    QVERIFY2(newer, error.c_str());
    QCOMPARE(newer->loaded.config.getInt("TRAIN.BATCH_SIZE"), std::int64_t(8));
  }

  // The CLI tools get a loadable file: ours is config.yaml, a PySlowFast run's is written to the
  // scratch folder with the keys this studio knows (the other version's key left out).
  void aConfigFileForTheTools() {
    QTemporaryDir tmp, scratch;
    const fs::path theirs =
        pySlowFastRun(tmp, {{"checkpoint_epoch_00012.pyth", fixture("pyslowfast_run.pyth")}});
    std::string error;
    const std::string file =
        checkpoint::runConfigFile(theirs.string(), scratch.path().toStdString(), &error);
    QCOMPARE(file, scratch.path().toStdString() + "/slow_8x8-config.yaml");
    const auto loaded = config::ConfigLoader().loadFile(file);
    QVERIFY2(loaded.ok(), config::formatDiagnostics(loaded.diagnostics).c_str());
    QCOMPARE(loaded.config.getString("MODEL.ARCH"), std::string("slow"));
    QCOMPARE(loaded.config.getFloat("SOLVER.BASE_LR"), 0.8);

    const fs::path ours = fs::path(tmp.path().toStdString()) / "ours";
    fs::create_directories(ours);
    std::ofstream(ours / "run.json") << "{}";
    QVERIFY(checkpoint::runConfigFile(ours.string(), scratch.path().toStdString(), &error).empty());
    QVERIFY2(error.find("the run has no config.yaml") != std::string::npos, error.c_str());
    std::ofstream(ours / "config.yaml") << "TRAIN:\n  BATCH_SIZE: 4\n";
    QCOMPARE(checkpoint::runConfigFile(ours.string(), scratch.path().toStdString(), &error),
             (ours / "config.yaml").string());
  }

  void whatCannotBeRead() {
    QTemporaryDir tmp;
    std::string error;
    const fs::path none = pySlowFastRun(tmp, {});
    QVERIFY(!checkpoint::readImportedRunConfig(none.string(), &error));
    QVERIFY2(error.find("no checkpoints/checkpoint_epoch_*.pyth") != std::string::npos,
             error.c_str());
    auto meta = runlog::RunDirectory(none.string()).readMetadata(&error);
    QVERIFY(meta);
    checkpoint::describeImportedRun(*meta, none.string());  // nothing to add: unchanged
    QCOMPARE(meta->model, std::string("PySlowFast run"));
    QVERIFY(meta->precision.empty());

    // A checkpoint without "cfg" (a bare dict), and a damaged one.
    std::string zip;
    {
      caffe2::serialize::PyTorchStreamWriter w([&zip](const void* p, size_t n) {
        zip.append(static_cast<const char*>(p), n);
        return n;
      });
      const std::string pickle("\x80\x02}.", 4);  // {}
      w.writeRecord("data.pkl", pickle.data(), pickle.size());
      w.writeEndOfFile();
    }
    std::ofstream(none / "checkpoints" / "checkpoint_epoch_00001.pyth", std::ios::binary) << zip;
    QVERIFY(!checkpoint::readImportedRunConfig(none.string(), &error));
    QVERIFY2(error.find("holds no \"cfg\"") != std::string::npos, error.c_str());
    std::ofstream(none / "checkpoints" / "checkpoint_epoch_00002.pyth", std::ios::binary)
        << zip.substr(0, zip.size() / 2);
    QVERIFY(!checkpoint::readImportedRunConfig(none.string(), &error));
    QVERIFY2(error.find("checkpoint_epoch_00002.pyth") != std::string::npos, error.c_str());
  }
};

QTEST_GUILESS_MAIN(TestImportedRun)
#include "tst_importedrun.moc"
