#include <QtTest>

#include <filesystem>

#include "configfile/ConfigLoader.h"
#include "configfile/ConfigWriter.h"
#include "util/AtomicFile.h"

using namespace amp::config;
using json = nlohmann::json;
namespace fs = std::filesystem;

class TestConfigWriter : public QObject {
  Q_OBJECT
 private slots:
  void shippedConfigsRoundTrip() {
    for (const auto& entry :
         fs::recursive_directory_iterator(fs::path(AMPSTUDIO_SOURCE_DIR) / "configs")) {
      if (entry.path().extension() != ".yaml" || entry.path().parent_path().filename() == "base")
        continue;
      auto a = ConfigLoader().loadFile(entry.path().string());
      QVERIFY(a.ok());
      for (bool onlyChanged : {false, true}) {
        WriteOptions opts;
        opts.onlyChanged = onlyChanged;
        const std::string yaml = toYaml(a.config, opts);
        auto b = ConfigLoader().loadText(yaml, "saved.yaml", ".");
        QVERIFY2(b.ok(),
                 (entry.path().string() + "\n" + formatDiagnostics(b.diagnostics) + yaml).c_str());
        QVERIFY2(a.config == b.config, entry.path().string().c_str());
      }
    }
  }

  void trickyValuesRoundTrip() {
    Config c;
    const std::pair<const char*, json> values[] = {
        {"OUTPUT_DIR", "123"},         // digits: must stay a string
        {"DATA.PATH_PREFIX", "True"},  // would read back as a boolean
        {"DATA.PATH_TO_DATA_DIR", "/data/k 400: #1"},
        {"TRAIN.CHECKPOINT_FILE_PATH", ""},
        {"TASK", "it's \"quoted\""},
        {"DATA.PATH_LABEL_SEPARATOR", ","},
        {"TEST.SAVE_RESULTS_PATH", "(1, 2)"},  // would read back as a tuple
        {"SOLVER.BASE_LR", 1e-6},
        {"SOLVER.WEIGHT_DECAY", 0.1 + 0.2},  // needs all 17 digits
        {"SOLVER.WARMUP_EPOCHS", 2.0},
        {"CONTRASTIVE.DELTA_CLIPS_MAX", std::numeric_limits<double>::infinity()},
        {"MVIT.POOL_KVQ_KERNEL", json::parse("[3, 3, 3]")},
        {"AUG.MAX_MASK_PATCHES_PER_BLOCK", 7},
        {"SOLVER.CLIP_GRAD_VAL", 0.5},
        {"TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN", json::parse(R"(["backbone.", "a,b"])")},
        {"MODEL.SINGLE_PATHWAY_ARCH",
         json::parse(R"(["2d", "c2d", "i3d", "slow", "x3d", "mvit", "maskmvit", "None"])")},
        {"BN.MOMENTUM", 0.2},  // deprecated: still kept when set
    };
    for (const auto& [k, v] : values) QVERIFY2(!c.set(k, v), k);
    const std::string yaml = toYaml(c);
    auto r = ConfigLoader().loadText(yaml, "t.yaml", ".");
    QVERIFY2(r.ok(), (formatDiagnostics(r.diagnostics) + yaml).c_str());
    for (const auto& [k, v] : values)
      QVERIFY2(r.config.get(k) == c.get(k), (std::string(k) + "\n" + yaml).c_str());
    QVERIFY(r.config == c);
  }

  void nestedLayoutAndOrder() {
    Config c;
    c.setOrThrow("TENSORBOARD.MODEL_VIS.GRAD_CAM.ENABLE", false);
    c.setOrThrow("NUM_GPUS", 2);
    WriteOptions opts;
    opts.onlyChanged = true;
    QCOMPARE(toYaml(c, opts),
             std::string(
                 "NUM_GPUS: 2\nTENSORBOARD:\n  MODEL_VIS:\n    GRAD_CAM:\n      ENABLE: False\n"));
  }

  void pyslowfastExport() {
    Config c;
    c.setOrThrow("SOLVER.BASE_LR", 0.1);
    c.setOrThrow("SOLVER.WARMUP_START_LR", 0.01);
    c.setOrThrow("SOLVER.LR_SCALE", 0.5);
    c.setOrThrow("AMP.INIT_SCALE", 1024.0);
    WriteOptions opts;
    opts.pyslowfast = true;
    const std::string yaml = toYaml(c, opts);
    QVERIFY(yaml.find("AMP:") == std::string::npos);
    QVERIFY(yaml.find("  LR_SCALE:") == std::string::npos);
    auto r = ConfigLoader().loadText(yaml, "p.yaml", ".");
    QVERIFY(r.ok());
    QCOMPARE(r.config.getFloat("SOLVER.BASE_LR"), 0.05);
    QCOMPARE(r.config.getFloat("SOLVER.WARMUP_START_LR"), 0.005);
    QCOMPARE(r.config.getFloat("SOLVER.LR_SCALE"), 1.0);
  }

  void saveIsAtomic() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/cfg.yaml";
    Config c;
    c.setOrThrow("TRAIN.BATCH_SIZE", 4);
    QVERIFY(saveConfigFile(c, path, nullptr));
    QVERIFY(saveConfigFile(c, path, nullptr));  // replaces the file
    QCOMPARE(
        std::distance(fs::directory_iterator(dir.path().toStdString()), fs::directory_iterator()),
        1L);
    auto r = ConfigLoader().loadFile(path);
    QVERIFY(r.ok() && r.config == c);
    std::string err;
    QVERIFY(!saveConfigFile(c, dir.path().toStdString() + "/no/such/dir/cfg.yaml", &err));
    QVERIFY2(err.find("no/such/dir/cfg.yaml") != std::string::npos, err.c_str());
  }
};

QTEST_APPLESS_MAIN(TestConfigWriter)
#include "tst_configwriter.moc"
