// ampstudio-cli analyze confusion over a run directory's analysis files: the report, the CSV and
// the PNG, the choice of evaluation, and what it says about runs without (or with damaged) files.
#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <string>
#include <vector>

#include "CliRun.h"
#include "metrics/ConfusionRecord.h"

using namespace amp;
using amp::testing::runCli;

namespace {
// A test of 10 videos over three classes: walk 4/4 right, run 2 of 4 (both taken for walk),
// swim 1 of 2 (taken for run).
metrics::ConfusionRecord testRecord() {
  metrics::ConfusionRecord r;
  r.split = "test";
  r.epoch = 8;
  r.views_per_video = 2;
  r.matrix = metrics::ConfusionMatrix(3);
  r.names = {"walk", "run", "swim"};
  r.parents = {{"legs", {0, 1}}};
  for (int i = 0; i < 4; ++i) metrics::addSample(r, "w.mp4", 0, 0, 0.9, 0.9, 1);
  for (int i = 0; i < 2; ++i) metrics::addSample(r, "r.mp4", 1, 1, 0.8, 0.8, 1);
  metrics::addSample(r, "r1.mp4", 1, 0, 0.7, 0.2, 2);
  metrics::addSample(r, "r2.mp4", 1, 0, 0.6, 0.3, 2);
  metrics::addSample(r, "s.mp4", 2, 2, 0.9, 0.9, 1);
  metrics::addSample(r, "s1.mp4", 2, 1, 0.5, 0.4, 2);
  return r;
}
}  // namespace

class TestCliAnalyze : public QObject {
  Q_OBJECT
 private slots:
  void reportsAccuracyWorstFirstAndTheConfusedPairs() {
    QTemporaryDir dir;
    const std::string run = dir.path().toStdString() + "/run";
    std::string error;
    QVERIFY(metrics::writeConfusionRecord(testRecord(), metrics::confusionFilePath(run, "test", 0),
                                          &error));
    const QString csv = dir.path() + "/m.csv", png = dir.path() + "/m.png";
    const auto r = runCli({"analyze", "confusion", "--run", QString::fromStdString(run), "--top",
                           "2", "--csv", csv, "--png", png});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("top-1        70.0 % (7 of 10)"), qPrintable(r.out));
    // Worst first: run (50%), swim (50%: after run, the sort keeps class order), walk.
    const int run50 = r.out.indexOf(QRegularExpression("\\brun\\s+50\\.0 %"));
    const int walk = r.out.indexOf(QRegularExpression("\\bwalk\\s+100\\.0 %"));
    QVERIFY2(run50 > 0 && walk > run50, qPrintable(r.out));
    QVERIFY2(
        r.out.contains(QRegularExpression("run\\s+-> walk\\s+2\\s+\\(50\\.0 % of the class\\)")),
        qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression("swim\\s+-> run\\s+1")), qPrintable(r.out));
    QVERIFY2(r.out.contains("mistakes     3"), qPrintable(r.out));
    QFile c(csv);
    QVERIFY(c.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(c.readAll()),
             QString("true \\ predicted,walk,run,swim\nwalk,4,0,0\nrun,2,2,0\nswim,0,1,1\n"));
    QFile p(png);
    QVERIFY(p.open(QIODevice::ReadOnly));
    QCOMPARE(p.read(4), QByteArray("\x89PNG"));
  }

  void jsonAndAParentsChildren() {
    QTemporaryDir dir;
    const std::string run = dir.path().toStdString();
    std::string error;
    QVERIFY(metrics::writeConfusionRecord(testRecord(), metrics::confusionFilePath(run, "test", 0),
                                          &error));
    const auto r =
        runCli({"analyze", "confusion", "--run", dir.path(), "--parent", "legs", "--json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(j["samples"].toInt(), 10);
    QCOMPARE(j["top1_acc"].toDouble(), 0.7);
    const auto classes = j["classes"].toArray();
    QCOMPARE(classes.size(), 2);  // the parent's children only
    QCOMPARE(classes[0].toObject()["name"].toString(), QString("run"));
    QCOMPARE(classes[0].toObject()["accuracy"].toDouble(), 0.5);
    QCOMPARE(j["most_confused"].toArray()[0].toObject()["pred_name"].toString(), QString("walk"));
    const auto bad = runCli({"analyze", "confusion", "--run", dir.path(), "--parent", "water"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("no parent category \"water\" (\"legs\""), qPrintable(bad.err));
  }

  void picksTheEvaluationAskedFor() {
    QTemporaryDir dir;
    const std::string run = dir.path().toStdString();
    std::string error;
    auto r = testRecord();
    r.split = "val";
    r.unit = "clip";
    for (const int epoch : {1, 2}) {
      r.epoch = epoch;
      QVERIFY(
          metrics::writeConfusionRecord(r, metrics::confusionFilePath(run, "val", epoch), &error));
    }
    const auto newest = runCli({"analyze", "confusion", "--run", dir.path()});
    QVERIFY2(newest.out.contains("validation at epoch 2, 10 clips"), qPrintable(newest.out));
    const auto first = runCli({"analyze", "confusion", "--run", dir.path(), "--epoch", "1"});
    QVERIFY2(first.out.contains("validation at epoch 1"), qPrintable(first.out));
    const auto none = runCli({"analyze", "confusion", "--run", dir.path(), "--split", "test"});
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(none.err.contains("no analysis file of test; it has: val epoch 2 val epoch 1"),
             qPrintable(none.err));
  }

  void aRunWithoutOrWithADamagedFileIsSaidNotCrashed() {
    QTemporaryDir dir;
    const auto empty = runCli({"analyze", "confusion", "--run", dir.path()});
    QCOMPARE(empty.exitCode, 1);
    QVERIFY(!empty.crashed);
    QVERIFY2(empty.err.contains("no analysis files") && empty.err.contains("single-label run"),
             qPrintable(empty.err));
    const std::string path = metrics::confusionFilePath(dir.path().toStdString(), "test", 0);
    const std::string json = metrics::toJson(testRecord());
    std::string error;
    QVERIFY(metrics::writeConfusionRecord(testRecord(), path, &error));
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QByteArray::fromStdString(json.substr(0, json.size() / 3)));
    f.close();
    const auto torn = runCli({"analyze", "confusion", "--run", dir.path()});
    QCOMPARE(torn.exitCode, 1);
    QVERIFY(!torn.crashed);
    QVERIFY2(torn.err.contains(QString::fromStdString(path)) && torn.err.contains("damaged"),
             qPrintable(torn.err));
  }
};

QTEST_GUILESS_MAIN(TestCliAnalyze)
#include "tst_clianalyze.moc"
