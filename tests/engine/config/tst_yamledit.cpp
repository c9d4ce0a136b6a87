// The form's edits of YAML text: one key changes, comments and layout stay.
#include <QtTest>

#include "config/YamlEdit.h"
#include "configfile/ConfigLoader.h"

using namespace amp::config;

class TestYamlEdit : public QObject {
  Q_OBJECT
 private slots:
  void replacesAValueAndKeepsItsComment() {
    const std::string in =
        "# top\nSOLVER:\n  BASE_LR: 0.1  # peak\n  MAX_EPOCH: 10\nTRAIN:\n  BATCH_SIZE: 8\n";
    std::string error;
    auto out = setYamlKey(in, "SOLVER.BASE_LR", "0.06", &error);
    QVERIFY2(out, error.c_str());
    QCOMPARE(
        *out,
        std::string(
            "# top\nSOLVER:\n  BASE_LR: 0.06  # peak\n  MAX_EPOCH: 10\nTRAIN:\n  BATCH_SIZE: 8\n"));
  }

  void addsAMissingKeyAtTheEndOfItsSection() {
    const std::string in =
        "SOLVER:\n    BASE_LR: 0.1\n\n    # comment inside\nTRAIN:\n  BATCH_SIZE: 8\n";
    auto out = setYamlKey(in, "SOLVER.LR_SCALE", "0.6");
    QVERIFY(out);
    QCOMPARE(*out, std::string("SOLVER:\n    BASE_LR: 0.1\n    LR_SCALE: 0.6\n\n    # comment "
                               "inside\nTRAIN:\n  BATCH_SIZE: 8\n"));
  }

  void addsAMissingSection() {
    auto out = setYamlKey("TRAIN:\n  BATCH_SIZE: 8\n", "AMP.GROWTH_INTERVAL", "1000");
    QVERIFY(out);
    QCOMPARE(*out, std::string("TRAIN:\n  BATCH_SIZE: 8\nAMP:\n  GROWTH_INTERVAL: 1000\n"));
    auto top = setYamlKey("TRAIN:\n  BATCH_SIZE: 8", "NUM_GPUS", "0");
    QVERIFY(top);
    QCOMPARE(*top, std::string("TRAIN:\n  BATCH_SIZE: 8\nNUM_GPUS: 0\n"));
    auto empty = setYamlKey("", "NUM_GPUS", "1");
    QVERIFY(empty);
    QCOMPARE(*empty, std::string("NUM_GPUS: 1\n"));
  }

  void doesNotMatchAPrefixOrADeeperKey() {
    const std::string in = "SOLVER:\n  BASE_LR_SCALE_NUM_SHARDS: True\n  X:\n    BASE_LR: 5\n";
    auto out = setYamlKey(in, "SOLVER.BASE_LR", "0.2");
    QVERIFY(out);
    QCOMPARE(
        *out,
        std::string(
            "SOLVER:\n  BASE_LR_SCALE_NUM_SHARDS: True\n  X:\n    BASE_LR: 5\n  BASE_LR: 0.2\n"));
  }

  void refusesFlowMappingsNamingTheKey() {
    std::string error;
    QVERIFY(!setYamlKey("SOLVER: {BASE_LR: 0.1}\n", "SOLVER.BASE_LR", "0.2", &error));
    QVERIFY2(error.find("SOLVER.BASE_LR") != std::string::npos &&
                 error.find("flow mapping") != std::string::npos,
             error.c_str());
  }

  void scalarTextReadsBackAsTheSameValue() {
    QCOMPARE(yamlScalarText(Value(true)), std::string("True"));
    QCOMPARE(yamlScalarText(Value(0.004)), std::string("0.004"));
    QCOMPARE(yamlScalarText(Value(8)), std::string("8"));
    QCOMPARE(yamlScalarText(Value("cosine")), std::string("cosine"));
    QCOMPARE(yamlScalarText(Value("off")), std::string("'off'"));
    QCOMPARE(yamlScalarText(Value("1e3")), std::string("'1e3'"));
    QCOMPARE(yamlScalarText(Value("it's: here")), std::string("'it''s: here'"));
    QCOMPARE(yamlScalarText(Value::array({64, 80})), std::string("[64, 80]"));
    // The edited file loads with the new values.
    std::string text = "TRAIN:\n  BATCH_SIZE: 8\n";
    text = *setYamlKey(text, "DATA.PATH_TO_DATA_DIR", yamlScalarText(Value("my data: v2")));
    text = *setYamlKey(text, "SOLVER.BASE_LR", yamlScalarText(Value(1e-5)));
    text = *setYamlKey(text, "AMP.SCALER", yamlScalarText(Value("on")));
    auto r = ConfigLoader().loadText(text, "edited.yaml", ".");
    QVERIFY(r.ok());
    QCOMPARE(r.config.getString("DATA.PATH_TO_DATA_DIR"), std::string("my data: v2"));
    QCOMPARE(r.config.getFloat("SOLVER.BASE_LR"), 1e-5);
    QCOMPARE(r.config.getString("AMP.SCALER"), std::string("on"));
    QCOMPARE(r.config.getInt("TRAIN.BATCH_SIZE"), 8);
  }
};

QTEST_APPLESS_MAIN(TestYamlEdit)
#include "tst_yamledit.moc"
