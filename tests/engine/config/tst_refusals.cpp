// config/Refusals: what train and test refuse, one list for the validator (warnings), the
// pre-flight checks (errors) and the trainer; and the schema's "refused" keys agree with it.
#include <QtTest>

#include "config/Refusals.h"
#include "configfile/ConfigLoader.h"

using namespace amp::config;

namespace {

Config load(const std::string& yaml) {
  auto r = ConfigLoader().loadText(yaml, "t.yaml", ".");
  if (!r.ok()) throw std::runtime_error(formatDiagnostics(r.diagnostics));
  return r.config;
}

std::string keysOf(const std::vector<Refusal>& r) {
  std::string out;
  for (const auto& x : r) out += (out.empty() ? "" : " ") + x.key;
  return out;
}

}  // namespace

class TestRefusals : public QObject {
  Q_OBJECT
 private slots:
  void theDefaultsAndTheDemoAreNotRefused() {
    QCOMPARE(keysOf(refusedSettings(load(""), true)), std::string());
    QCOMPARE(keysOf(refusedSettings(load("TRAIN:\n  DATASET: Kinetics\n"), true)),
             std::string());  // PySlowFast capitalises
    QCOMPARE(keysOf(refusedSettings(load("SOLVER:\n  OPTIMIZING_METHOD: mt_adamw\n"), true)),
             std::string());
  }

  // Every key the schema marks "refused", set to a value other than its default, is refused by
  // its own name, and nothing else is.
  void everyRefusedKeyOfTheSchemaIsRefused() {
    int refusedKeys = 0;
    for (const auto& def : KeySchema::builtin()->keys()) {
      if (def.status != KeyStatus::Refused) continue;
      ++refusedKeys;
      const std::string leaf = def.key.substr(def.key.rfind('.') + 1);
      const std::string value = def.type.text() == "bool" ? "True" : "ssl";
      std::string yaml;
      if (def.key.rfind("MVIT.", 0) == 0)
        yaml += "MODEL:\n  MODEL_NAME: MViT\n  ARCH: mvit\nDATA:\n  INPUT_CHANNEL_NUM: [3]\n";
      // nested YAML for the dotted key, e.g. MVIT.REV.ENABLE
      std::string indent;
      size_t start = 0;
      for (size_t dot; (dot = def.key.find('.', start)) != std::string::npos; start = dot + 1) {
        yaml += indent + def.key.substr(start, dot - start) + ":\n";
        indent += "  ";
      }
      yaml += indent + leaf + ": " + value + "\n";
      const auto r = refusedSettings(load(yaml), true);
      QVERIFY2(r.size() == 1 && r[0].key == def.key, (def.key + " gave: " + keysOf(r)).c_str());
      QVERIFY2(r[0].message.find("False") != std::string::npos ||
                   r[0].message.find("empty") != std::string::npos,
               (def.key + ": the message says what to set: " + r[0].message).c_str());
    }
    QCOMPARE(refusedKeys, 4);  // MASK.ENABLE and three MViT variants
  }

  // Detection is AVA's, on the ResNet / SlowFast families and MViT, with bce (the RoI head's
  // sigmoid) or bce_logit; each half of the pair alone is refused, naming what to set.
  void detectionIsAvasWithTheRoIHead() {
    const std::string ava = "TRAIN:\n  DATASET: ava\nTEST:\n  DATASET: ava\n";
    const std::string det = "DETECTION:\n  ENABLE: True\n";
    const std::string slow =
        "DATA:\n  INPUT_CHANNEL_NUM: [3]\n"
        "MODEL:\n  ARCH: slow\n  MODEL_NAME: ResNet\n  LOSS_FUNC: bce\n";
    QCOMPARE(keysOf(refusedSettings(load(ava + det + slow), true)), std::string());
    QCOMPARE(keysOf(refusedSettings(load(ava + det + slow), false)), std::string());
    QCOMPARE(keysOf(refusedSettings(load(ava + slow), true)), std::string("DETECTION.ENABLE"));
    QCOMPARE(keysOf(refusedSettings(load(det + slow), true)), std::string("DETECTION.ENABLE"));
    QCOMPARE(keysOf(refusedSettings(load(ava + det + "DATA:\n  INPUT_CHANNEL_NUM: [3]\n" +
                                         "MODEL:\n  LOSS_FUNC: bce\n  ARCH: x3d\n  "
                                         "MODEL_NAME: X3D\n"),
                                    true)),
             std::string("MODEL.MODEL_NAME"));  // PySlowFast's X3D has no detection head
    const std::string mvit =
        "DATA:\n  INPUT_CHANNEL_NUM: [3]\nMODEL:\n  LOSS_FUNC: bce\n  ARCH: mvit\n  "
        "MODEL_NAME: MViT\n";
    QCOMPARE(keysOf(refusedSettings(load(ava + det + mvit), true)), std::string());
    // Its reversible form asserts not DETECTION.ENABLE; mixup fails on AVA's per-box targets.
    QCOMPARE(
        keysOf(refusedSettings(load(ava + det + mvit + "MVIT:\n  REV:\n    ENABLE: True\n"), true)),
        std::string("MVIT.REV.ENABLE"));
    QCOMPARE(keysOf(refusedSettings(load(ava + det + mvit + "MIXUP:\n  ENABLE: True\n"), true)),
             std::string("MIXUP.ENABLE"));
    QCOMPARE(keysOf(refusedSettings(load(ava + det +
                                         "DATA:\n  INPUT_CHANNEL_NUM: [3]\nMODEL:\n  ARCH: slow\n  "
                                         "MODEL_NAME: ResNet\n"),
                                    true)),
             std::string("MODEL.LOSS_FUNC"));  // cross_entropy takes one class a box
    QCOMPARE(keysOf(refusedSettings(load(ava + det + "DATA:\n  INPUT_CHANNEL_NUM: [3]\n" +
                                         "MODEL:\n  ARCH: slow\n  MODEL_NAME: ResNet\n  "
                                         "LOSS_FUNC: bce_logit\n"),
                                    true)),
             std::string());
  }

  // PySlowFast trains every TASK but ssl as classification: the ssl_eval recipes (linear probe,
  // fine-tuning) run, pre-training does not, and a name that would put checkpoints elsewhere is
  // refused.
  void onlyPreTrainingTasksAreRefused() {
    for (const char* task : {"ssl_eval_k400", "ssl_eval_ucf", "ssl_eval", "my_task"})
      QCOMPARE(keysOf(refusedSettings(load(std::string("TASK: ") + task + "\n"), true)),
               std::string());
    const auto ssl = refusedSettings(load("TASK: ssl\n"), true);
    QCOMPARE(keysOf(ssl), std::string("TASK"));
    QVERIFY2(ssl[0].message.find("self-supervised pre-training") != std::string::npos,
             ssl[0].message.c_str());
    QCOMPARE(keysOf(refusedSettings(load("TASK: ssl\n"), false)), std::string("TASK"));
    QCOMPARE(keysOf(refusedSettings(load("TASK: ../elsewhere\n"), true)), std::string("TASK"));
    // masked pre-training stays refused under an evaluation task name
    QCOMPARE(keysOf(refusedSettings(load("TASK: ssl_eval\nMASK:\n  ENABLE: True\n"), true)),
             std::string("MASK.ENABLE"));
  }

  // PySlowFast's X3D head takes no detach_final_fc: config check says the key does nothing
  // there, and stays quiet for the heads that have it.
  void detachFinalFcIsSaidToDoNothingOnX3D() {
    auto x3d = ConfigLoader().loadText(
        "DATA:\n  INPUT_CHANNEL_NUM: [3]\nMODEL:\n  MODEL_NAME: X3D\n  ARCH: x3d\n"
        "  DETACH_FINAL_FC: True\n",
        "t.yaml", ".");
    QVERIFY2(x3d.ok(), formatDiagnostics(x3d.diagnostics).c_str());
    const Diagnostic* d = nullptr;
    for (const auto& x : x3d.diagnostics)
      if (x.key == "MODEL.DETACH_FINAL_FC") d = &x;
    QVERIFY2(d, formatDiagnostics(x3d.diagnostics).c_str());
    QVERIFY(!d->isError());
    QCOMPARE(d->where.line, 6);
    QVERIFY2(d->message.find("does nothing to X3D") != std::string::npos, d->message.c_str());
    auto slow = ConfigLoader().loadText(
        "DATA:\n  INPUT_CHANNEL_NUM: [3]\nMODEL:\n  MODEL_NAME: ResNet\n  ARCH: slow\n"
        "  DETACH_FINAL_FC: True\n",
        "t.yaml", ".");
    QVERIFY2(slow.ok(), formatDiagnostics(slow.diagnostics).c_str());
    for (const auto& x : slow.diagnostics)
      QVERIFY2(x.key != "MODEL.DETACH_FINAL_FC" &&
                   x.message.find("DETACH_FINAL_FC") == std::string::npos,
               x.message.c_str());
    // PySlowFast's MViT builds its detection head without the detach either.
    auto mvitDet = ConfigLoader().loadText(
        "DATA:\n  INPUT_CHANNEL_NUM: [3]\nMODEL:\n  MODEL_NAME: MViT\n  ARCH: mvit\n"
        "  DETACH_FINAL_FC: True\nDETECTION:\n  ENABLE: True\n",
        "t.yaml", ".");
    QVERIFY2(mvitDet.ok(), formatDiagnostics(mvitDet.diagnostics).c_str());
    d = nullptr;
    for (const auto& x : mvitDet.diagnostics)
      if (x.key == "MODEL.DETACH_FINAL_FC") d = &x;
    QVERIFY2(d && d->message.find("MViT's detection head") != std::string::npos,
             formatDiagnostics(mvitDet.diagnostics).c_str());
  }

  void mvitVariantsCountOnlyForAnMViT() {
    QCOMPARE(keysOf(refusedSettings(load("MVIT:\n  PATCH_2D: True\n"), true)),
             std::string());  // a SlowFast builds no patches
  }

  void datasetsAndLossesAsTrainAndTestReadThem() {
    const Config other = load("TRAIN:\n  DATASET: imagenet\nTEST:\n  DATASET: imagenet\n");
    QCOMPARE(keysOf(refusedSettings(other, true)), std::string("TRAIN.DATASET TEST.DATASET"));
    QCOMPARE(keysOf(refusedSettings(other, false)),
             std::string("TEST.DATASET"));  // a test reads only the test list
    for (const char* d : {"kinetics", "SSv2", "ssv2"})
      QCOMPARE(keysOf(refusedSettings(
                   load(std::string("TRAIN:\n  DATASET: ") + d + "\nTEST:\n  DATASET: " + d + "\n"),
                   true)),
               std::string());
    // Charades is multi-label with bce_logit, as PySlowFast's configs/Charades.
    const std::string charades = "TRAIN:\n  DATASET: charades\nTEST:\n  DATASET: charades\n";
    QCOMPARE(
        keysOf(refusedSettings(
            load(charades + "DATA:\n  MULTI_LABEL: True\nMODEL:\n  LOSS_FUNC: bce_logit\n"), true)),
        std::string());
    QCOMPARE(keysOf(refusedSettings(load(charades + "MODEL:\n  LOSS_FUNC: bce_logit\n"), true)),
             std::string("DATA.MULTI_LABEL"));
    QCOMPARE(keysOf(refusedSettings(load(charades + "DATA:\n  MULTI_LABEL: True\n"), true)),
             std::string("MODEL.LOSS_FUNC"));  // cross_entropy takes class indices
    QCOMPARE(keysOf(refusedSettings(load("DATA:\n  MULTI_LABEL: True\n"), true)),
             std::string("DATA.MULTI_LABEL"));  // Kinetics' labels are class indices
    for (const char* loss : {"bce", "mse", "multi_mse", "contrastive_loss"}) {
      const Config c = load(std::string("MODEL:\n  LOSS_FUNC: ") + loss + "\n");
      QCOMPARE(keysOf(refusedSettings(c, true)), std::string("MODEL.LOSS_FUNC"));
      QCOMPARE(keysOf(refusedSettings(c, false)), std::string());  // testing computes no loss
    }
    for (const char* loss : {"cross_entropy", "soft_cross_entropy", "bce_logit"})
      QCOMPARE(
          keysOf(refusedSettings(load(std::string("MODEL:\n  LOSS_FUNC: ") + loss + "\n"), true)),
          std::string());
    QCOMPARE(keysOf(refusedSettings(load("MODEL:\n  MODEL_NAME: ContrastiveModel\n"), true)),
             std::string("MODEL.MODEL_NAME"));
  }

  // PySlowFast asserts LONG_CYCLE_SAMPLING_RATE >= SAMPLING_RATE when it is on.
  void aLongCycleRateBelowTheRateIsAnError() {
    auto low = ConfigLoader().loadText(
        "DATA:\n  SAMPLING_RATE: 4\nMULTIGRID:\n  LONG_CYCLE_SAMPLING_RATE: 2\n", "t.yaml", ".");
    QVERIFY(!low.ok());
    QVERIFY2(
        formatDiagnostics(low.diagnostics)
                .find("MULTIGRID.LONG_CYCLE_SAMPLING_RATE: is 2, below DATA.SAMPLING_RATE (4)") !=
            std::string::npos,
        formatDiagnostics(low.diagnostics).c_str());
    for (const char* ok : {"0", "4", "16"})
      QVERIFY(
          ConfigLoader()
              .loadText(std::string(
                            "DATA:\n  SAMPLING_RATE: 4\nMULTIGRID:\n  LONG_CYCLE_SAMPLING_RATE: ") +
                            ok + "\n",
                        "t.yaml", ".")
              .ok());
  }

  // The clips follow the pathway lists, the models their names: the lists must agree with them.
  void pathwayListsMustAgreeWithTheModels() {
    auto i3d = ConfigLoader().loadText(
        "MODEL:\n  ARCH: i3d\n  MULTI_PATHWAY_ARCH: [slowfast, i3d]\nDATA:\n  INPUT_CHANNEL_NUM: "
        "[3, 3]\n",
        "t.yaml", ".");
    QVERIFY(!i3d.ok());
    QVERIFY2(formatDiagnostics(i3d.diagnostics).find("MODEL.MULTI_PATHWAY_ARCH: lists 'i3d'") !=
                 std::string::npos,
             formatDiagnostics(i3d.diagnostics).c_str());
    QVERIFY(!ConfigLoader()
                 .loadText("MODEL:\n  SINGLE_PATHWAY_ARCH: [slowfast, c2d]\n", "t.yaml", ".")
                 .ok());
    QVERIFY(ConfigLoader().loadText("MODEL:\n  ARCH: slowfast\n", "t.yaml", ".").ok());
  }

  // `config check` says what train will refuse, at the key's line, as a warning (the file is
  // valid PySlowFast); it does not call it "not acted on (runs as if the default)".
  void theValidatorWarnsAtTheKey() {
    auto r = ConfigLoader().loadText("TRAIN:\n  BATCH_SIZE: 8\nDETECTION:\n  ENABLE: True\n",
                                     "t.yaml", ".");
    QVERIFY2(r.ok(), formatDiagnostics(r.diagnostics).c_str());
    const Diagnostic* d = nullptr;
    for (const auto& x : r.diagnostics) {
      QVERIFY2(x.message.find("not acted on") == std::string::npos, x.message.c_str());
      if (x.key == "DETECTION.ENABLE") d = &x;
    }
    QVERIFY2(d, formatDiagnostics(r.diagnostics).c_str());
    QVERIFY(!d->isError());
    QCOMPARE(d->where.line, 4);
    QVERIFY2(d->message.find("train and test refuse it") != std::string::npos, d->message.c_str());
  }
};

QTEST_APPLESS_MAIN(TestRefusals)
#include "tst_refusals.moc"
