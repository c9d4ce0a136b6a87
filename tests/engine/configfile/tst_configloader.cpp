#include <QtTest>

#include <filesystem>
#include <fstream>

#include "configfile/ConfigLoader.h"
#include "support/HostileInput.h"

using namespace amp::config;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string writeFile(const QTemporaryDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.path().toStdString() + "/" + name;
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
  return path;
}

const Diagnostic* findDiag(const Diagnostics& d, const std::string& key, bool error = true) {
  for (const auto& x : d)
    if (x.key == key && x.isError() == error) return &x;
  return nullptr;
}

std::string dump(const Diagnostics& d) {
  return formatDiagnostics(d);
}

}  // namespace

class TestConfigLoader : public QObject {
  Q_OBJECT
 private slots:
  void defaultsWithoutFile() {
    auto r = ConfigLoader().loadText("", "empty.yaml", ".");
    QVERIFY2(r.ok(), dump(r.diagnostics).c_str());
    QCOMPARE(r.config.getInt("TRAIN.BATCH_SIZE"), std::int64_t(64));
    QCOMPARE(r.config.getString("MODEL.ARCH"), std::string("slowfast"));
    QVERIFY(r.config.changedKeys().empty());
  }

  void pyslowfastValueConversions() {
    const char* yaml =
        "SOLVER:\n"
        "  WEIGHT_DECAY: 1e-4\n"       // a string in YAML 1.1, a float for PySlowFast
        "  WARMUP_EPOCHS: 34\n"        // int into a float key
        "  COSINE_END_LR: \"1e-6\"\n"  // quoted: still literal_eval'd
        "  CLIP_GRAD_L2NORM: 1.0\n"    // None default: accepts a float
        "MVIT:\n"
        "  PATCH_KERNEL: (3, 7, 7)\n"  // a Python tuple written as a string
        "  DIM_MUL: [[1, 2.0], [3, 2.0]]\n"
        "  NORM: \"layernorm\"\n"
        "TRAIN:\n"
        "  MIXED_PRECISION: yes\n"  // YAML 1.1 boolean
        "  AUTO_RESUME: False\n"
        "DATA:\n"
        "  PATH_TO_DATA_DIR: /data/k400\n"
        "OUTPUT_DIR: .\n";
    auto r = ConfigLoader().loadText(yaml, "conv.yaml", ".");
    QVERIFY2(r.ok(), dump(r.diagnostics).c_str());
    const Config& c = r.config;
    QCOMPARE(c.getFloat("SOLVER.WEIGHT_DECAY"), 1e-4);
    QVERIFY(c.get("SOLVER.WARMUP_EPOCHS").is_number_float());
    QCOMPARE(c.getFloat("SOLVER.WARMUP_EPOCHS"), 34.0);
    QCOMPARE(c.getFloat("SOLVER.COSINE_END_LR"), 1e-6);
    QCOMPARE(*c.getOptionalFloat("SOLVER.CLIP_GRAD_L2NORM"), 1.0);
    QVERIFY(!c.getOptionalFloat("SOLVER.CLIP_GRAD_VAL"));
    QCOMPARE(c.getIntList("MVIT.PATCH_KERNEL"), (std::vector<std::int64_t>{3, 7, 7}));
    QCOMPARE(c.get("MVIT.DIM_MUL"), json::parse("[[1, 2.0], [3, 2.0]]"));
    QCOMPARE(c.getString("MVIT.NORM"), std::string("layernorm"));
    QVERIFY(c.getBool("TRAIN.MIXED_PRECISION"));
    QVERIFY(!c.getBool("TRAIN.AUTO_RESUME"));
    QCOMPARE(c.getString("DATA.PATH_TO_DATA_DIR"), std::string("/data/k400"));
    QCOMPARE(c.getString("OUTPUT_DIR"), std::string("."));
    QCOMPARE(c.origin("SOLVER.WEIGHT_DECAY")->line, 2);
    QCOMPARE(c.origin("SOLVER.WEIGHT_DECAY")->column, 17);
  }

  void everyShippedConfigLoads() {
    const fs::path root = fs::path(AMPSTUDIO_SOURCE_DIR) / "configs";
    int count = 0;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      // base/ holds fragments shared through _BASE_; they are checked through the configs using
      // them.
      if (entry.path().extension() != ".yaml" || entry.path().parent_path().filename() == "base")
        continue;
      auto r = ConfigLoader().loadFile(entry.path().string());
      QVERIFY2(r.ok(), (entry.path().string() + "\n" + dump(r.diagnostics)).c_str());
      ++count;
    }
    QCOMPARE(count, 23);
    // The demo's stepwise / multigrid pair inherits through two _BASE_ levels.
    auto mg =
        ConfigLoader().loadFile((root / "demo" / "DEMO_X3D_TINY_stepwise_multigrid.yaml").string());
    QVERIFY(mg.ok());
    QVERIFY(mg.config.getBool("MULTIGRID.LONG_CYCLE"));
    QVERIFY(!mg.config.getBool("MULTIGRID.SHORT_CYCLE"));
    QCOMPARE(mg.config.getString("SOLVER.OPTIMIZING_METHOD"), std::string("sgd"));
    QCOMPARE(mg.config.getString("SOLVER.LR_POLICY"), std::string("steps_with_relative_lrs"));
    QCOMPARE(mg.config.getString("MODEL.ARCH"), std::string("x3d"));
    for (const char* name :
         {"SLOWFAST_8x8_R50", "SLOWFAST_4x16_R50", "SLOW_8x8_R50", "I3D_8x8_R50", "C2D_8x8_R50",
          "X3D_XS", "X3D_S", "X3D_M", "X3D_L", "MVITv2_S_16x4", "MVIT_B_16x4_CONV"})
      QVERIFY2(fs::exists(root / "Kinetics" / (std::string(name) + ".yaml")), name);
  }

  void shippedValuesMatchPySlowFast() {
    const std::string dir = std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/";
    auto sf = ConfigLoader().loadFile(dir + "SLOWFAST_8x8_R50.yaml");
    QVERIFY(sf.ok());
    QCOMPARE(sf.config.getInt("DATA.NUM_FRAMES"), std::int64_t(32));
    QCOMPARE(sf.config.getInt("DATA.SAMPLING_RATE"), std::int64_t(2));
    QCOMPARE(sf.config.getInt("SLOWFAST.ALPHA"), std::int64_t(4));
    QCOMPARE(sf.config.getInt("SLOWFAST.FUSION_KERNEL_SZ"), std::int64_t(7));
    QCOMPARE(sf.config.getFloat("SOLVER.WARMUP_EPOCHS"), 34.0);
    QCOMPARE(sf.config.getInt("SOLVER.MAX_EPOCH"), std::int64_t(196));
    QCOMPARE(sf.config.get("RESNET.NUM_BLOCK_TEMP_KERNEL"),
             json::parse("[[3, 3], [4, 4], [6, 6], [3, 3]]"));
    auto x3d = ConfigLoader().loadFile(dir + "X3D_L.yaml");
    QCOMPARE(x3d.config.getFloat("X3D.DEPTH_FACTOR"), 5.0);
    QCOMPARE(x3d.config.getInt("DATA.TRAIN_CROP_SIZE"), std::int64_t(312));
    QCOMPARE(x3d.config.getFloat("SOLVER.BASE_LR"), 0.05);
    auto mvit = ConfigLoader().loadFile(dir + "MVITv2_S_16x4.yaml");
    QCOMPARE(mvit.config.get("MVIT.POOL_Q_STRIDE").size(), size_t(16));
    QCOMPARE(mvit.config.getString("SOLVER.OPTIMIZING_METHOD"), std::string("adamw"));
    QCOMPARE(mvit.config.getInt("TEST.NUM_ENSEMBLE_VIEWS"), std::int64_t(5));
    // configs/SSv2 and configs/Charades: PySlowFast's recipes for the frame datasets.
    const std::string root = std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/";
    auto ssv2 = ConfigLoader().loadFile(root + "SSv2/SLOWFAST_16x8_R50.yaml");
    QVERIFY(ssv2.ok());
    QCOMPARE(ssv2.config.getString("TRAIN.DATASET"), std::string("ssv2"));
    QCOMPARE(ssv2.config.getInt("MODEL.NUM_CLASSES"), std::int64_t(174));
    QVERIFY(!ssv2.config.getBool("DATA.RANDOM_FLIP"));
    QCOMPARE(ssv2.config.getInt("DATA.NUM_FRAMES"), std::int64_t(64));
    auto ssv2Mvit = ConfigLoader().loadFile(root + "SSv2/MVITv2_S_16x4.yaml");
    QVERIFY(ssv2Mvit.ok());
    QCOMPARE(ssv2Mvit.config.getInt("TEST.NUM_SPATIAL_CROPS"), std::int64_t(3));
    QCOMPARE(ssv2Mvit.config.getString("MODEL.LOSS_FUNC"), std::string("soft_cross_entropy"));
    auto charades = ConfigLoader().loadFile(root + "Charades/SLOWFAST_16x8_R50.yaml");
    QVERIFY(charades.ok());
    QVERIFY(charades.config.getBool("DATA.MULTI_LABEL"));
    QCOMPARE(charades.config.getString("MODEL.LOSS_FUNC"), std::string("bce_logit"));
    QCOMPARE(charades.config.getString("MODEL.HEAD_ACT"), std::string("sigmoid"));
    QCOMPARE(charades.config.getString("DATA.ENSEMBLE_METHOD"), std::string("max"));
    QCOMPARE(charades.config.getInt("MODEL.NUM_CLASSES"), std::int64_t(157));
  }

  void baseInheritance() {
    QTemporaryDir dir;
    writeFile(dir, "common/base.yaml",
              "TRAIN:\n  BATCH_SIZE: 32\nSOLVER:\n  BASE_LR: 0.2\n  MAX_EPOCH: 50\n");
    writeFile(dir, "mid.yaml", "_BASE_: common/base.yaml\nSOLVER:\n  BASE_LR: 0.3\n");
    const std::string top =
        writeFile(dir, "top.yaml", "_BASE_: mid.yaml\nSOLVER:\n  MAX_EPOCH: 10\n");
    auto r = ConfigLoader().loadFile(top);
    QVERIFY2(r.ok(), dump(r.diagnostics).c_str());
    QCOMPARE(r.config.getInt("TRAIN.BATCH_SIZE"), std::int64_t(32));  // from the base of the base
    QCOMPARE(r.config.getFloat("SOLVER.BASE_LR"), 0.3);  // the middle file wins over its base
    QCOMPARE(r.config.getInt("SOLVER.MAX_EPOCH"), std::int64_t(10));  // the top file wins
    QVERIFY(r.config.origin("TRAIN.BATCH_SIZE")->file.find("common/base.yaml") !=
            std::string::npos);
  }

  void baseErrors() {
    QTemporaryDir dir;
    const std::string missing =
        writeFile(dir, "missing.yaml", "TRAIN:\n  BATCH_SIZE: 8\n_BASE_: nope.yaml\n");
    auto r = ConfigLoader().loadFile(missing);
    QVERIFY(!r.ok());
    const Diagnostic* d = findDiag(r.diagnostics, "_BASE_");
    QVERIFY2(d, dump(r.diagnostics).c_str());
    QCOMPARE(d->where.line, 3);
    QVERIFY(d->message.find("does not exist") != std::string::npos);

    writeFile(dir, "a.yaml", "_BASE_: b.yaml\n");
    const std::string b = writeFile(dir, "b.yaml", "_BASE_: a.yaml\n");
    auto cyc = ConfigLoader().loadFile(b);
    QVERIFY(!cyc.ok());
    QVERIFY2(dump(cyc.diagnostics).find("includes itself") != std::string::npos,
             dump(cyc.diagnostics).c_str());
  }

  void overrides() {
    auto r = ConfigLoader().loadText(
        "TRAIN:\n  BATCH_SIZE: 16\n", "o.yaml", ".",
        {"TRAIN.BATCH_SIZE", "32", "SOLVER.BASE_LR", "1e-3", "DATA.MEAN", "[0.5, 0.5, 0.5]",
         "TRAIN.MIXED_PRECISION", "True", "OUTPUT_DIR", "/tmp/run 1", "DEMO.WEBCAM", "-1",
         "MVIT.PATCH_STRIDE", "(1, 2, 2)"});
    QVERIFY2(r.ok(), dump(r.diagnostics).c_str());
    QCOMPARE(r.config.getInt("TRAIN.BATCH_SIZE"), std::int64_t(32));
    QCOMPARE(r.config.getFloat("SOLVER.BASE_LR"), 1e-3);
    QCOMPARE(r.config.getFloatList("DATA.MEAN"), (std::vector<double>{0.5, 0.5, 0.5}));
    QVERIFY(r.config.getBool("TRAIN.MIXED_PRECISION"));
    QCOMPARE(r.config.getString("OUTPUT_DIR"), std::string("/tmp/run 1"));
    QCOMPARE(r.config.getInt("DEMO.WEBCAM"), std::int64_t(-1));
    QCOMPARE(r.config.getIntList("MVIT.PATCH_STRIDE"), (std::vector<std::int64_t>{1, 2, 2}));
    QVERIFY(r.config.origin("TRAIN.BATCH_SIZE")->isCommandLine());
  }

  void emptyOverrideIsTheEmptyString() {
    // yacs keeps "" as the empty string (literal_eval fails on it); a number key still refuses it.
    auto r = ConfigLoader().loadText("DATA:\n  PATH_PREFIX: /videos\n", "o.yaml", ".",
                                     {"DATA.PATH_PREFIX", ""});
    QVERIFY2(r.ok(), dump(r.diagnostics).c_str());
    QCOMPARE(r.config.getString("DATA.PATH_PREFIX"), std::string());
    auto bad = ConfigLoader().loadText("", "o.yaml", ".", {"TRAIN.BATCH_SIZE", ""});
    QCOMPARE(countErrors(bad.diagnostics), size_t(1));
  }

  void overrideErrors() {
    auto r = ConfigLoader().loadText(
        "", "o.yaml", ".",
        {"SOLVER.BASE_RL", "0.1", "TRAIN.BATCH_SIZE", "many", "SOLVER", "1", "TRAIN.EVAL_PERIOD"});
    QCOMPARE(countErrors(r.diagnostics), size_t(4));
    const Diagnostic* unknown = findDiag(r.diagnostics, "SOLVER.BASE_RL");
    QVERIFY(unknown && unknown->message.find("did you mean SOLVER.BASE_LR") != std::string::npos);
    QCOMPARE(unknown->toString().substr(0, 26), std::string("command line, argument 1: "));
    const Diagnostic* type = findDiag(r.diagnostics, "TRAIN.BATCH_SIZE");
    QVERIFY(type && type->where.column == 3);
    QVERIFY(findDiag(r.diagnostics, "SOLVER")->message.find("group") != std::string::npos);
    QVERIFY(findDiag(r.diagnostics, "TRAIN.EVAL_PERIOD")->message.find("pairs") !=
            std::string::npos);
  }

  void yamlSyntaxErrorHasLocation() {
    auto r = ConfigLoader().loadText("TRAIN:\n  BATCH_SIZE: [1, 2\nSOLVER:\n  BASE_LR: 0.1\n",
                                     "bad.yaml", ".");
    QVERIFY(!r.ok());
    QCOMPARE(r.diagnostics.size(), size_t(1));
    const auto& d = r.diagnostics.front();
    QVERIFY2(d.message.find("YAML syntax error") == 0, d.message.c_str());
    QVERIFY(d.where.line >= 2);
    QVERIFY(d.toString().rfind("bad.yaml:", 0) == 0);
  }

  void everyErrorClassWithExactLocation() {
    const char* yaml =
        "TRAIN:\n"                 // 1
        "  BATCH_SZE: 8\n"         // 2 unknown key (typo)
        "  EVAL_PERIOD: often\n"   // 3 wrong type
        "SOLVER:\n"                // 4
        "  BASE_LR: -0.1\n"        // 5 negative LR
        "  LR_POLICY: linear\n"    // 6 not a choice
        "AMP:\n"                   // 7
        "  GROWTH_FACTOR: 1.0\n"   // 8 must be > 1
        "  BACKOFF_FACTOR: 1.0\n"  // 9 must be in (0, 1)
        "DATA:\n"                  // 10
        "  NUM_FRAMES: 30\n"       // 11 not divisible by ALPHA 8 (slowfast default)
        "MODEL:\n"                 // 12
        "  NUM_CLASSES: 0\n"       // 13 must be > 0
        "RESNET:\n"                // 14
        "  DEPTH: 34\n";           // 15 not a ResNet depth PySlowFast builds
    auto r = ConfigLoader().loadText(yaml, "cfg.yaml", ".");
    struct Expect {
      const char* key;
      int line;
      int column;
      const char* text;
    };
    const Expect expected[] = {
        {"TRAIN.BATCH_SZE", 2, 3, "did you mean TRAIN.BATCH_SIZE"},
        {"TRAIN.EVAL_PERIOD", 3, 16, "expected an integer"},
        {"SOLVER.BASE_LR", 5, 12, "must be >= 0"},
        {"SOLVER.LR_POLICY", 6, 14, "allowed: cosine, steps_with_relative_lrs"},
        {"AMP.GROWTH_FACTOR", 8, 18, "must be > 1"},
        {"AMP.BACKOFF_FACTOR", 9, 19, "in (0, 1)"},
        {"DATA.NUM_FRAMES", 11, 15, "not divisible by SLOWFAST.ALPHA 8"},
        {"MODEL.NUM_CLASSES", 13, 16, "must be > 0"},
        {"RESNET.DEPTH", 15, 10, "allowed: 18, 50, 101"},
    };
    QCOMPARE(countErrors(r.diagnostics), std::size(expected));
    for (const auto& e : expected) {
      const Diagnostic* d = findDiag(r.diagnostics, e.key);
      QVERIFY2(d, (std::string(e.key) + " missing in\n" + dump(r.diagnostics)).c_str());
      QVERIFY2(d->where.line == e.line && d->where.column == e.column, d->toString().c_str());
      QVERIFY2(d->message.find(e.text) != std::string::npos, d->toString().c_str());
      QVERIFY2(d->toString().rfind("cfg.yaml:" + std::to_string(e.line) + ":" +
                                       std::to_string(e.column) + ": " + e.key + ": ",
                                   0) == 0,
               d->toString().c_str());
    }
  }

  void crossKeyRules() {
    auto arch = ConfigLoader().loadText("MODEL:\n  ARCH: slowfst\n", "a.yaml", ".");
    QVERIFY(findDiag(arch.diagnostics, "MODEL.ARCH")->message.find("slowfast") !=
            std::string::npos);
    auto channels = ConfigLoader().loadText("MODEL:\n  ARCH: i3d\n", "c.yaml", ".");
    QVERIFY2(findDiag(channels.diagnostics, "DATA.INPUT_CHANNEL_NUM"),
             dump(channels.diagnostics).c_str());
    auto steps = ConfigLoader().loadText(
        "SOLVER:\n  LR_POLICY: steps_with_relative_lrs\n  STEPS: [0, 40, 60]\n  LRS: [1, 0.1]\n",
        "s.yaml", ".");
    QVERIFY2(findDiag(steps.diagnostics, "SOLVER.LRS"), dump(steps.diagnostics).c_str());
    auto fp16cpu = ConfigLoader().loadText(
        "NUM_GPUS: 0\nTRAIN:\n  MIXED_PRECISION: True\nAMP:\n  DTYPE: float16\n", "f.yaml", ".");
    const Diagnostic* d = findDiag(fp16cpu.diagnostics, "AMP.DTYPE");
    QVERIFY2(d && d->where.line == 5, dump(fp16cpu.diagnostics).c_str());
    QVERIFY(d->message.find("bfloat16") != std::string::npos);
    auto cosine = ConfigLoader().loadText("SOLVER:\n  BASE_LR: 0.01\n  COSINE_END_LR: 0.1\n",
                                          "cos.yaml", ".");
    QVERIFY2(findDiag(cosine.diagnostics, "SOLVER.COSINE_END_LR"),
             dump(cosine.diagnostics).c_str());
    auto shard = ConfigLoader().loadText("NUM_SHARDS: 2\nSHARD_ID: 2\n", "sh.yaml", ".");
    QVERIFY(findDiag(shard.diagnostics, "SHARD_ID"));
    // Batch norm over the pooled X3D head cannot train on one clip per device.
    const std::string x3d = "MODEL:\n  ARCH: x3d\nX3D:\n  BN_LIN5: True\nTRAIN:\n  BATCH_SIZE: ";
    auto one = ConfigLoader().loadText(x3d + "1\n", "x.yaml", ".");
    d = findDiag(one.diagnostics, "TRAIN.BATCH_SIZE");
    QVERIFY2(d && d->where.line == 6 && d->message.find("at least 2 clips") != std::string::npos,
             dump(one.diagnostics).c_str());
    QVERIFY(!findDiag(ConfigLoader().loadText(x3d + "2\n", "x.yaml", ".").diagnostics,
                      "TRAIN.BATCH_SIZE"));
    QVERIFY(
        !findDiag(ConfigLoader().loadText(x3d + "1\n  ENABLE: False\n", "x.yaml", ".").diagnostics,
                  "TRAIN.BATCH_SIZE"));
  }

  void warnings() {
    auto r = ConfigLoader().loadText(
        "BN:\n  MOMENTUM: 0.1\nMODEL:\n  FP16_ALLREDUCE: True\nCONTRASTIVE:\n  T: 0.1\nSOLVER:\n  "
        "BASE_LR: 0.1\n  BASE_LR: 0.2\n",
        "w.yaml", ".");
    QVERIFY2(r.ok(), dump(r.diagnostics).c_str());
    QCOMPARE(r.config.getFloat("SOLVER.BASE_LR"), 0.2);  // the later duplicate wins, as in PyYAML
    const Diagnostic* dep = findDiag(r.diagnostics, "BN.MOMENTUM", false);
    QVERIFY(dep && dep->where.line == 2);
    const Diagnostic* dup = findDiag(r.diagnostics, "SOLVER.BASE_LR", false);
    QVERIFY(dup && dup->where.line == 9 && dup->message.find("line 8") != std::string::npos);
    int inactive = 0;
    for (const auto& d : r.diagnostics)
      if (d.message.find("not acted on") != std::string::npos) {
        ++inactive;
        QVERIFY(d.message.find("MODEL.FP16_ALLREDUCE") != std::string::npos);
        QVERIFY(d.message.find("CONTRASTIVE.T") != std::string::npos);
      }
    QCOMPARE(inactive, 1);  // one warning listing them all
  }

  void structureErrors() {
    auto group = ConfigLoader().loadText("SOLVER: 0.1\n", "g.yaml", ".");
    QVERIFY(findDiag(group.diagnostics, "SOLVER"));
    auto mapping = ConfigLoader().loadText("SOLVER:\n  BASE_LR:\n    X: 1\n", "m.yaml", ".");
    QVERIFY(findDiag(mapping.diagnostics, "SOLVER.BASE_LR"));
    auto list = ConfigLoader().loadText("- 1\n- 2\n", "l.yaml", ".");
    QVERIFY(!list.ok());
    auto nullStr = ConfigLoader().loadText("OUTPUT_DIR:\n", "n.yaml", ".");
    QVERIFY2(findDiag(nullStr.diagnostics, "OUTPUT_DIR"), dump(nullStr.diagnostics).c_str());
    auto floatForInt = ConfigLoader().loadText("TRAIN:\n  BATCH_SIZE: 8.0\n", "i.yaml", ".");
    QVERIFY(findDiag(floatForInt.diagnostics, "TRAIN.BATCH_SIZE")->message.find("decimal point") !=
            std::string::npos);
  }

  // Multigrid and sub batch norm: what PySlowFast would fail on later is an error at load.
  void multigridAndSubBatchNormRules() {
    auto mvit = ConfigLoader().loadText(
        "MODEL:\n  ARCH: mvit\n  MODEL_NAME: MViT\nMULTIGRID:\n  SHORT_CYCLE: True\n", "m.yaml",
        ".");
    const Diagnostic* d = findDiag(mvit.diagnostics, "MULTIGRID.SHORT_CYCLE");
    QVERIFY2(d && d->severity == Diagnostic::Severity::Error && d->where.line == 5,
             dump(mvit.diagnostics).c_str());
    auto badFactors = ConfigLoader().loadText(
        "MULTIGRID:\n  LONG_CYCLE: True\n  LONG_CYCLE_FACTORS: [[0.5]]\n", "f.yaml", ".");
    QVERIFY2(findDiag(badFactors.diagnostics, "MULTIGRID.LONG_CYCLE_FACTORS"),
             dump(badFactors.diagnostics).c_str());
    auto split = ConfigLoader().loadText(
        "BN:\n  NORM_TYPE: sub_batchnorm\n  NUM_SPLITS: 3\nTRAIN:\n  BATCH_SIZE: 8\nNUM_GPUS: 0\n",
        "s.yaml", ".");
    d = findDiag(split.diagnostics, "BN.NUM_SPLITS");
    QVERIFY2(d && d->message.find("8 clips") != std::string::npos, dump(split.diagnostics).c_str());
    auto fine = ConfigLoader().loadText(
        "BN:\n  NORM_TYPE: sub_batchnorm\n  NUM_SPLITS: 4\nTRAIN:\n  BATCH_SIZE: 8\nNUM_GPUS: 0\n",
        "s.yaml", ".");
    QVERIFY2(fine.ok() && !findDiag(fine.diagnostics, "BN.NORM_TYPE") &&
                 !findDiag(fine.diagnostics, "BN.NUM_SPLITS"),
             dump(fine.diagnostics).c_str());
  }

  void pyslowfastQuirksStillLoad() {
    // Shapes found in PySlowFast's own configs folder, all valid for PySlowFast.
    const char* yaml =
        "TASK: ssl\n"
        "MODEL:\n"
        "  ARCH: slow_c2d\n"
        "  ARCH: slow\n"  // duplicate key: the later wins
        "  LOSS_FUNC: multi_mse\n"
        "  HEAD_ACT: none\n"
        "DATA:\n"
        "  INPUT_CHANNEL_NUM: [3]\n"
        "AUG:\n"
        "  COLOR_JITTER: None\n"  // None for a float key the studio does not act on
        "AVA:\n"
        "  TRAIN_PREDICT_BOX_LISTS: [\n"
        "    \"ava_train_v2.2.csv\",\n"
        "    \"boxes.csv\",\n"  // trailing comma in a flow list
        "  ]\n"
        "BN:\n"
        "  MOMENTUM: 0.1\n"  // removed from PySlowFast, still in old configs
        "SOLVER:\n"
        "  LR_POLICY: steps_with_relative_lrs\n"
        "  STEPS: [0, 10, 5, 5]\n"  // unsorted, yet accepted by PySlowFast
        "  LRS: [1, 0.1, 0.01, 0.001]\n"
        "  WARMUP_EPOCHS: 5\n";
    auto r = ConfigLoader().loadText(yaml, "quirks.yaml", ".");
    QVERIFY2(r.ok(), dump(r.diagnostics).c_str());
    QCOMPARE(r.config.getString("MODEL.ARCH"), std::string("slow"));
    QVERIFY(r.config.get("AUG.COLOR_JITTER").is_null());
    QCOMPARE(r.config.getStringList("AVA.TRAIN_PREDICT_BOX_LISTS").size(), size_t(2));
    QVERIFY(findDiag(r.diagnostics, "SOLVER.STEPS", false));
    QVERIFY(findDiag(r.diagnostics, "BN.MOMENTUM", false));
    // None for a key the studio acts on is explained, not accepted silently.
    auto active = ConfigLoader().loadText("SOLVER:\n  BASE_LR: None\n", "n.yaml", ".");
    const Diagnostic* d = findDiag(active.diagnostics, "SOLVER.BASE_LR");
    QVERIFY2(d && d->message.find("AMP Studio acts on this key") != std::string::npos,
             dump(active.diagnostics).c_str());
  }

  // A 1 KB file naming 10^10 values through nested aliases is refused at the key that uses it,
  // without expanding it (before the budget, this allocated until std::bad_alloc).
  void aliasBombIsRefusedAtItsKey() {
    const std::string bomb = amp::testsupport::yamlAliasBomb();
    QVERIFY(bomb.size() < 1024);
    auto r = ConfigLoader().loadText(bomb, "bomb.yaml", ".");
    QVERIFY(!r.ok());
    const Diagnostic* d = findDiag(r.diagnostics, "TRAIN.BATCH_SIZE");
    QVERIFY2(d, dump(r.diagnostics).c_str());
    QCOMPARE(
        d->toString(),
        std::string("bomb.yaml:2:15: TRAIN.BATCH_SIZE: alias expands to more than 100000 values "
                    "(YAML anchors nested inside each other); write the values out"));
    int errors = 0;
    for (const auto& x : r.diagnostics) errors += x.isError();
    QCOMPARE(errors, 1);  // one message, not one per value or key after it
  }

  // Just over the budget fails, just under loads: the limit is where the docs say it is.
  void aliasBudgetBoundary() {
    // 10^5 values plus the list nodes above them: over 100,000 nodes.
    auto over = ConfigLoader().loadText(amp::testsupport::yamlAliasBomb(5, 10), "over.yaml", ".");
    QVERIFY(findDiag(over.diagnostics, "TRAIN.BATCH_SIZE"));
    QVERIFY(dump(over.diagnostics).find("more than 100000 values") != std::string::npos);
    // 10^4 values: expanded, and then refused for what it is (a list where an integer goes).
    auto under = ConfigLoader().loadText(amp::testsupport::yamlAliasBomb(4, 10), "under.yaml", ".");
    const Diagnostic* d = findDiag(under.diagnostics, "TRAIN.BATCH_SIZE");
    QVERIFY(d);
    QVERIFY2(d->message.find("alias") == std::string::npos, d->message.c_str());
  }

  void aliasBombInABaseFileNamesThatFile() {
    QTemporaryDir dir;
    const std::string base = writeFile(dir, "base/bomb.yaml", amp::testsupport::yamlAliasBomb());
    const std::string top =
        writeFile(dir, "top.yaml", "_BASE_: base/bomb.yaml\nSOLVER:\n  BASE_LR: 0.1\n");
    auto r = ConfigLoader().loadFile(top);
    const Diagnostic* d = findDiag(r.diagnostics, "TRAIN.BATCH_SIZE");
    QVERIFY2(d, dump(r.diagnostics).c_str());
    QCOMPARE(d->where.file, base);
    QCOMPARE(d->where.line, 2);
  }

  // Each file naming the next one several times merges 4^16 files; refused after 64.
  void baseDiamondIsRefused() {
    QTemporaryDir dir;
    for (int i = 0; i < 16; ++i) {
      std::string text;
      for (int k = 0; k < 4; ++k) text += "_BASE_: l" + std::to_string(i + 1) + ".yaml\n";
      writeFile(dir, "l" + std::to_string(i) + ".yaml", text);
    }
    writeFile(dir, "l16.yaml", "TRAIN:\n  BATCH_SIZE: 8\n");
    auto r = ConfigLoader().loadFile(dir.path().toStdString() + "/l0.yaml");
    QVERIFY(!r.ok());
    QVERIFY2(
        dump(r.diagnostics).find("more than 64 files merged through _BASE_") != std::string::npos,
        dump(r.diagnostics).c_str());
  }

  // One long value aliased many times: few nodes, much text.
  void aliasedLongTextIsRefused() {
    std::string yaml = "OUTPUT_DIR: &s " + std::string(200000, 'x') + "\nTRAIN:\n  BATCH_SIZE: [";
    for (int i = 0; i < 100; ++i) yaml += i ? ", *s" : "*s";
    yaml += "]\n";
    auto r = ConfigLoader().loadText(yaml, "text.yaml", ".");
    const Diagnostic* d = findDiag(r.diagnostics, "TRAIN.BATCH_SIZE");
    QVERIFY2(d, dump(r.diagnostics).c_str());
    QVERIFY2(d->message.find("alias expands to more than 16 MiB of text") != std::string::npos,
             d->message.c_str());
  }

  void aKeyLongerThanAnyKeyIsRefusedShortened() {
    // An explicit key ("? KEY"): YAML refuses implicit keys over 1024 characters, not these.
    auto r = ConfigLoader().loadText("TRAIN:\n  ? " + std::string(1 << 20, 'K') + "\n  : 1\n",
                                     "key.yaml", ".");
    QVERIFY(!r.ok());
    const std::string text = dump(r.diagnostics);
    QVERIFY2(
        text.find("key.yaml:2:5: TRAIN: a key of 1048576 characters ('KKKK") != std::string::npos,
        text.c_str());
    QVERIFY(text.size() < 1000);  // the key is not copied into the message
  }

  // A megabyte value is named by its start and length, not repeated in the message.
  void aLongWrongValueIsShortenedInItsMessage() {
    auto r = ConfigLoader().loadText("TRAIN:\n  BATCH_SIZE: " + std::string(1 << 20, 'x') + "\n",
                                     "long.yaml", ".");
    const Diagnostic* d = findDiag(r.diagnostics, "TRAIN.BATCH_SIZE");
    QVERIFY2(d, dump(r.diagnostics).substr(0, 500).c_str());
    QVERIFY2(d->message.size() < 300, d->message.substr(0, 500).c_str());
    QVERIFY2(d->message.find("... (1048578 characters)") != std::string::npos, d->message.c_str());
  }

  void aBaseThatIsNotAFileIsRefusedUnread() {
    auto r = ConfigLoader().loadText("_BASE_: /dev/zero\n", "dev.yaml", ".");
    QVERIFY(!r.ok());
    QVERIFY2(dump(r.diagnostics).find("'/dev/zero' is not a regular file") != std::string::npos,
             dump(r.diagnostics).c_str());
  }

  void aHugeFileIsNotReadWhole() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/big.yaml";
    std::ofstream(path) << "TRAIN:\n  BATCH_SIZE: 8\n" << std::string(5u << 20, '#') << "\n";
    auto r = ConfigLoader().loadFile(path);
    QVERIFY(!r.ok());
    QVERIFY2(dump(r.diagnostics).find("is 5 MiB; a config is a YAML file of a few KB") !=
                 std::string::npos,
             dump(r.diagnostics).c_str());
  }

  void missingFile() {
    auto r = ConfigLoader().loadFile("/nonexistent/cfg.yaml");
    QVERIFY(!r.ok());
    QVERIFY(r.diagnostics.front().toString().find("/nonexistent/cfg.yaml") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestConfigLoader)
#include "tst_configloader.moc"
