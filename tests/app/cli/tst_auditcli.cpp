// ampstudio-cli audit precision on the generated demo data with the tiny demo X3D: the JSON
// report parses and holds every documented field; the table and the errors a user can cause.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include "CliRun.h"

namespace {

using amp::testing::runCli;

QString demoConfig() {
  return QString(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml";
}

}  // namespace

class TestAuditCli : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    data_ = dir_.path() + "/demo";
    auto made = runCli({"make-demo-data", "--out", data_, "--clips-per-class", "1", "--seed", "3"});
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
  }

  void jsonReport() {
    auto r = runCli({"audit", "precision", "--cfg", demoConfig(), "--batches", "2", "--batch", "2",
                     "--json", "X3D.DIM_C5", "32", "DATA.PATH_TO_DATA_DIR", data_,
                     "DATA.PATH_PREFIX", data_});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QJsonParseError parseError;
    const auto doc = QJsonDocument::fromJson(r.out.toUtf8(), &parseError);
    QVERIFY2(parseError.error == QJsonParseError::NoError,
             qPrintable(parseError.errorString() + "\n" + r.out.left(2000)));
    const auto root = doc.object();
    const auto layers = root["layers"].toArray();
    QVERIFY(layers.size() > 20);  // the demo X3D's convolutions, batch norms, head
    for (const auto& v : layers) {
      const auto l = v.toObject();
      for (const char* key : {"name", "op", "dtype", "why", "headroom_log2",
                              "fp16_underflow_fraction", "overflow_scale", "act_absmax",
                              "grad_absmax", "bf16_rel_error", "fp16_subnormal_fraction"})
        QVERIFY2(l.contains(key), key);
      QVERIFY(!l["name"].toString().isEmpty());
      QVERIFY2(l["dtype"].toString() == "bfloat16" || l["dtype"].toString() == "float32",
               qPrintable(l["dtype"].toString()));
    }
    // Execution order: the stem's convolutions first, the head's projection last of the modules.
    QCOMPARE(layers.first().toObject()["name"].toString(), QString("s1.pathway0_stem.conv_xy"));
    QCOMPARE(layers.first().toObject()["op"].toString(), QString("conv3d"));
    QCOMPARE(layers.first().toObject()["dtype"].toString(), QString("bfloat16"));
    QVERIFY(layers.first().toObject()["bf16_rel_error"].toDouble() >
            0);  // the first batch is compared by default
    bool projection = false;
    for (const auto& v : layers)
      projection = projection || v.toObject()["name"].toString() == "head.projection";
    QVERIFY(projection);
    const auto summary = root["summary"].toObject();
    QCOMPARE(summary["precision"].toString(), QString("bf16"));
    QCOMPARE(summary["batches"].toInt(), 2);
    QCOMPARE(summary["report_scale"].toDouble(),
             65536.0);  // AMP.INIT_SCALE: bfloat16 runs no scaler
    QVERIFY(summary["safe_scale_max"].toDouble() > summary["safe_scale_min"].toDouble());
    QVERIFY(!summary["overflow_layer"].toString().isEmpty());
    QCOMPARE(summary["losses"].toArray().size(), 2);
    QVERIFY2(root["recommendation"].toString().contains("AMP.INIT_SCALE 2^"),
             qPrintable(root["recommendation"].toString()));
    QVERIFY(root["recommendation"].toString().contains("rule of thumb"));
  }

  void tableOnRandomClips() {
    auto r = runCli({"audit", "precision", "--cfg", demoConfig(), "--batches", "1", "--batch", "2",
                     "--synthetic", "--no-compare", "--scale", "1024", "X3D.DIM_C5", "32"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("headroom") && r.out.contains("s1.pathway0_stem.conv_xy") &&
                 r.out.contains("lower-precision list"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("loss scale s = 2^10"), qPrintable(r.out));
    QVERIFY2(r.out.contains("\nrecommendation: AMP.INIT_SCALE"), qPrintable(r.out));
  }

  void fromACheckpoint() {
    const QString run = dir_.path() + "/run";
    const QStringList common{"X3D.DIM_C5",       "32", "DATA.PATH_TO_DATA_DIR", data_,
                             "DATA.PATH_PREFIX", data_};
    auto train =
        runCli(QStringList{"train", "--cfg", demoConfig(), "OUTPUT_DIR", run, "SOLVER.MAX_EPOCH",
                           "1", "TRAIN.BATCH_SIZE", "4", "TEST.ENABLE", "False"} +
               common);
    QVERIFY2(train.exitCode == 0, qPrintable(train.err));
    const QString checkpoint = run + "/checkpoints/checkpoint_epoch_00001.pyth";
    QVERIFY(QFile::exists(checkpoint));
    auto r =
        runCli(QStringList{"audit", "precision", "--cfg", demoConfig(), "--checkpoint", checkpoint,
                           "--batches", "1", "--batch", "2", "--no-compare", "--json"} +
               common);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto root = QJsonDocument::fromJson(r.out.toUtf8()).object();
    bool noted = false;
    for (const auto& n : root["notes"].toArray())
      noted =
          noted || n.toString().contains("weights from " + checkpoint + " (epochs done 1, step 2)");
    QVERIFY2(noted, qPrintable(r.out.left(3000)));
    QVERIFY(root["layers"].toArray().size() > 20);
    QVERIFY(
        root["layers"].toArray().first().toObject()["bf16_rel_error"].isNull());  // --no-compare
  }

  void userErrors() {
    QFile junk(dir_.path() + "/not-a-checkpoint.pyth");
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("definitely not a checkpoint");
    junk.close();
    auto bad = runCli({"audit", "precision", "--cfg", demoConfig(), "--synthetic", "--checkpoint",
                       junk.fileName(), "X3D.DIM_C5", "32"});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.err.contains("audit precision: ") && bad.err.contains("not-a-checkpoint.pyth") &&
                 !bad.err.contains("frame #"),
             qPrintable(bad.err));
    auto one = runCli({"audit", "precision", "--cfg", demoConfig(), "--synthetic", "--batch", "1"});
    QCOMPARE(one.exitCode, 1);
    QVERIFY2(one.err.contains("--batch 1: X3D.BN_LIN5"), qPrintable(one.err));
    auto noData = runCli({"audit", "precision", "--cfg", demoConfig(), "DATA.PATH_TO_DATA_DIR",
                          dir_.path() + "/nowhere"});
    QCOMPARE(noData.exitCode, 1);
    QVERIFY2(noData.err.contains("--synthetic"), qPrintable(noData.err));
  }

 private:
  QTemporaryDir dir_;
  QString data_;
};

QTEST_GUILESS_MAIN(TestAuditCli)
#include "tst_auditcli.moc"
