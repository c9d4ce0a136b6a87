// The studio's Predict tab: ampstudio-cli predict --json in a child process on a run's model (its
// config and newest checkpoint) or the editor's config, each video's top-5 classes with names and
// probabilities in a table; a video that cannot be read says why in its row; beside a training
// run it yields the cores; Cancel ends it; errors say what is wrong. A detection config lists
// every person box's actions and writes the video with the boxes drawn.
#include <QtTest>

#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QTableWidget>
#include <QTemporaryDir>

#include <fstream>
#include <set>
#include <sstream>

#include "CliPanelChecks.h"
#include "PredictPanel.h"
#include "PredictionTable.h"
#include "runlog/RunDirectory.h"
#include "support/AvaDemo.h"
#include "support/DemoFixture.h"
#include "system/DeviceInfo.h"

using namespace amp;

class TestPredictPanel : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  testsupport::DemoFixture demo_{
      {"X3D.DIM_C5", "32", "TRAIN.BATCH_SIZE", "4", "DATA_LOADER.NUM_WORKERS", "1"}};
  QString run_;

  QStringList testVideos(int n) const {
    QStringList out;
    std::ifstream in(demo_.dataDir() + "/test.csv");
    std::string line;
    while (static_cast<int>(out.size()) < n && std::getline(in, line))
      out << QString::fromStdString(demo_.dataDir() + "/" + line.substr(0, line.find(' ')));
    return out;
  }

 private Q_SLOTS:
  void initTestCase() {
    qputenv("AMPSTUDIO_CLI", AMPSTUDIO_CLI_PATH);
    QVERIFY2(demo_.generate(dir_.path()), demo_.error().c_str());
    run_ = dir_.path() + "/run";
    const QString trained = demo_.trainRun(run_);
    QVERIFY2(trained.isEmpty(), qPrintable(trained));
  }

  void predictsWithARunsNewestCheckpoint() {
    widgets::PredictPanel panel;
    panel.resize(1200, 700);
    QVERIFY(panel.useRun(run_));
    QCOMPARE(panel.configEdit()->text(),
             QString::fromStdString(runlog::RunDirectory(run_.toStdString()).configPath()));
    QVERIFY(panel.checkpointEdit()->text().endsWith("/checkpoints/checkpoint_epoch_00001.pyth"));
    panel.labelsEdit()->setText(QString::fromStdString(demo_.dataDir() + "/classes.txt"));
    const QStringList videos = testVideos(2);
    QCOMPARE(videos.size(), 2);
    panel.addVideos(videos + QStringList{dir_.path() + "/missing.mp4"});
    panel.addVideos({videos[0]});  // listed once
    QCOMPARE(panel.videos().size(), 3);
    QSignalSpy done(&panel, &widgets::PredictPanel::finished);
    panel.predict();
    QVERIFY(panel.busy());
    QVERIFY(done.wait(120000));
    QVERIFY2(done.front().front().toBool(), qPrintable(panel.status()->text()));
    const QStringList args = panel.lastArguments();
    QVERIFY(args.contains("--json"));
    QCOMPARE(args.at(args.indexOf("--checkpoint") + 1), panel.checkpointEdit()->text());
    // Without a CUDA device the model runs on this machine's CPU, whatever the config says.
    QCOMPARE(args.join(' ').contains("NUM_GPUS 0"), system::probeDevices().cuda_devices.empty());

    // Two videos with their top-5 named classes; the missing one says why.
    QTableWidget* t = panel.table();
    QCOMPARE(t->rowCount(), 3);
    std::set<QString> names;
    QFile classes(QString::fromStdString(demo_.dataDir() + "/classes.txt"));
    QVERIFY(classes.open(QIODevice::ReadOnly));
    for (const QString& n : QString::fromUtf8(classes.readAll()).split('\n', Qt::SkipEmptyParts))
      names.insert(n);
    for (int row = 0; row < 2; ++row) {
      QCOMPARE(t->item(row, widgets::PredictionTable::Video)->text(),
               QFileInfo(videos[row]).fileName());
      QVERIFY2(names.count(t->item(row, widgets::PredictionTable::TopClass)->text()),
               qPrintable(t->item(row, 1)->text()));
      QVERIFY(t->item(row, widgets::PredictionTable::Probability)->text().endsWith(" %"));
      QCOMPARE(t->item(row, widgets::PredictionTable::Top5)->text().count(" · "), 4);
      QVERIFY(t->item(row, widgets::PredictionTable::Top5)
                  ->text()
                  .startsWith(t->item(row, widgets::PredictionTable::TopClass)->text() + " " +
                              t->item(row, widgets::PredictionTable::Probability)->text()));
      QVERIFY(t->item(row, widgets::PredictionTable::Views)->text().toInt() >= 1);
    }
    QVERIFY2(
        t->item(2, widgets::PredictionTable::TopClass)->text().contains("cannot predict") &&
            t->item(2, widgets::PredictionTable::TopClass)->text().contains("file does not exist"),
        qPrintable(t->item(2, 1)->text()));
    QVERIFY2(panel.status()->text().contains("Predicted 2 of 3 videos") &&
                 panel.status()->text().contains("1 could not be read"),
             qPrintable(panel.status()->text()));
    QVERIFY2(panel.status()->styleSheet().contains("#b35c00"),
             qPrintable(panel.status()->styleSheet()));  // a warning: most were predicted

    // The CSV holds what the table shows, with full precision.
    const QString csv = dir_.path() + "/predictions.csv";
    QCOMPARE(panel.exportCsv(csv), QString());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 5 + 5 + 1);
    const QStringList first = lines[1].split(',');
    QCOMPARE(first[0], videos[0]);
    QCOMPARE(first[1], QString("1"));
    QCOMPARE(first[3], t->item(0, widgets::PredictionTable::TopClass)->text());
    QCOMPARE(QStringLiteral("%1 %").arg(100.0 * first[4].toDouble(), 0, 'f', 1),
             t->item(0, widgets::PredictionTable::Probability)->text());
    QVERIFY(lines.last().startsWith(dir_.path() + "/missing.mp4,,,,,") &&
            lines.last().contains("file does not exist"));
  }

  // A detection (AVA) config: one row a person box of the boxes CSV, its top actions named from
  // the label map and its keyframe's second; the video with the boxes drawn is written.
  void predictsTheActionsOfEachBox() {
    const std::string ava = dir_.path().toStdString() + "/ava";
    std::string error;
    QVERIFY2(testsupport::makeAvaDemo(ava, 1, &error), error.c_str());
    const QString avaRun = dir_.path() + "/ava-run";
    QStringList data = {"AVA.FRAME_DIR",      QString::fromStdString(ava + "/frames"),
                        "AVA.FRAME_LIST_DIR", QString::fromStdString(ava + "/frame_lists"),
                        "AVA.ANNOTATION_DIR", QString::fromStdString(ava + "/annotations")};
    QProcess train;
    train.start(AMPSTUDIO_CLI_PATH,
                QStringList{"train", "--cfg",
                            QString(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_SLOW_TINY_AVA.yaml",
                            "OUTPUT_DIR", avaRun, "SOLVER.MAX_EPOCH", "1", "TEST.ENABLE", "False",
                            "TRAIN.EVAL_PERIOD", "5", "TRAIN.BATCH_SIZE", "2",
                            "DATA_LOADER.NUM_WORKERS", "0"} +
                    data);
    QVERIFY(train.waitForFinished(300000));
    QVERIFY2(train.exitCode() == 0, train.readAllStandardError().constData());

    widgets::PredictPanel panel;
    QVERIFY(panel.useRun(avaRun));
    // The run's config names the data; the first val video with boxes over the threshold.
    const std::string boxes = ava + "/annotations/ava_val_predicted_boxes.csv";
    std::string video;
    for (const auto& row : testsupport::csvCells(boxes))
      if (row.size() == 8 && std::stod(row[7]) >= 0.9) {
        video = row[0];
        break;
      }
    QVERIFY(!video.empty());
    panel.boxesEdit()->setText(QString::fromStdString(boxes));
    const QString mp4 = dir_.path() + "/boxes.mp4";
    panel.outputEdit()->setText(mp4);
    panel.addVideos({QString::fromStdString(ava + "/frames/" + video)});
    QSignalSpy done(&panel, &widgets::PredictPanel::finished);
    panel.predict();
    QVERIFY(done.wait(120000));
    QVERIFY2(done.front().front().toBool(), qPrintable(panel.status()->text()));
    QVERIFY(panel.detectionResult());
    int expected = 0;  // the video's boxes over the threshold
    for (const auto& row : testsupport::csvCells(boxes))
      expected += row.size() == 8 && row[0] == video && std::stod(row[7]) >= 0.9;
    QTableWidget* t = panel.table();
    QCOMPARE(t->rowCount(), expected);
    QCOMPARE(t->horizontalHeaderItem(widgets::PredictionTable::TopClass)->text(),
             QString("Top action"));
    QCOMPARE(t->item(0, widgets::PredictionTable::Video)->text(),
             QString::fromStdString(video) + " · box 1");
    QVERIFY(t->item(0, widgets::PredictionTable::Views)->text().toInt() >= 902);  // the second
    QCOMPARE(t->item(0, widgets::PredictionTable::Top5)->text().count(" · "), 4);
    QVERIFY2(
        t->item(0, widgets::PredictionTable::TopClass)->text().contains('_'),  // a label-map name
        qPrintable(t->item(0, widgets::PredictionTable::TopClass)->text()));
    QVERIFY2(panel.status()->text().contains(QString("%1 box").arg(expected)) &&
                 panel.status()->text().contains("wrote " + mp4),
             qPrintable(panel.status()->text()));
    QVERIFY(QFileInfo(mp4).size() > 1000);
    const QString csv = dir_.path() + "/boxes.csv";
    QCOMPARE(panel.exportCsv(csv), QString());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 5 * expected);
    QVERIFY(lines[0].startsWith("video,second,box,"));
  }

  // Write video: the demo on the one input, a row a window, and the player on what it wrote.
  void writesAndPlaysTheDemoVideo() {
    widgets::PredictPanel panel;
    QVERIFY(panel.useRun(run_));
    panel.labelsEdit()->setText(QString::fromStdString(demo_.dataDir() + "/classes.txt"));
    const QString mp4 = dir_.path() + "/demo.mp4";
    panel.outputEdit()->setText(mp4);
    panel.addVideos(testVideos(2));
    panel.predict();  // two inputs: the demo takes one
    QVERIFY2(!panel.busy() && panel.status()->text().contains("one input"),
             qPrintable(panel.status()->text()));
    panel.clearVideos();
    panel.addVideos(testVideos(1));
    QSignalSpy done(&panel, &widgets::PredictPanel::finished);
    panel.predict();
    QVERIFY(done.wait(120000));
    QVERIFY2(done.front().front().toBool(), qPrintable(panel.status()->text()));
    QCOMPARE(panel.lastArguments().front(), QString("demo"));
    QTableWidget* t = panel.table();
    QCOMPARE(t->rowCount(), 1);  // 24 frames hold one window of 8 x 2 (DEMO.BUFFER_SIZE 0)
    QCOMPARE(t->horizontalHeaderItem(widgets::PredictionTable::Video)->text(),
             QString("Video · second"));
    QVERIFY2(t->item(0, widgets::PredictionTable::Video)->text().endsWith(" · 0.53 s"),
             qPrintable(t->item(0, widgets::PredictionTable::Video)->text()));
    QCOMPARE(t->item(0, widgets::PredictionTable::Views)->text(), QString("0–15"));
    QCOMPARE(panel.writtenVideos(), QStringList{mp4});
    QVERIFY2(panel.status()->text().contains("wrote " + mp4), qPrintable(panel.status()->text()));
    const QString csv = dir_.path() + "/windows.csv";
    QCOMPARE(panel.exportCsv(csv), QString());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readLine().startsWith("video,first,last,second,rank,class,name,probability"));
    panel.playVideo();
    QVERIFY(panel.lastPlayer());
    QCOMPARE(panel.lastPlayer()->frameCount(), std::int64_t{24});
    QCOMPARE(panel.lastPlayer()->image().width(), 84);
    QVERIFY(panel.lastPlayer()->playing());
    QSignalSpy shown(panel.lastPlayer(), &widgets::VideoPlayer::frameShown);
    QVERIFY(shown.wait(5000));
    QVERIFY(panel.lastPlayer()->frame() > 0);
  }

  void besideATrainingRunItYieldsAndCancels() {
    widgets::PredictPanel panel;
    std::optional<config::Config> cfg =
        demo_.config({"OUTPUT_DIR", run_.toStdString(), "TEST.NUM_ENSEMBLE_VIEWS", "30"});
    panel.setConfigSource([&] { return cfg; });  // the config field is empty: the editor's config
    panel.setTrainingActive(true);
    panel.addVideos(testVideos(4));
    QSignalSpy done(&panel, &widgets::PredictPanel::finished);
    panel.predict();
    QVERIFY(panel.lastArguments()
                .at(panel.lastArguments().indexOf("--cfg") + 1)
                .endsWith("editor-config.yaml"));
    testing::checkYieldsAndCancels(panel, done);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(panel.table()->rowCount(), 0);  // nothing half-read
  }

  void errorsSayWhatIsWrong() {
    widgets::PredictPanel panel;
    panel.predict();
    QVERIFY2(panel.status()->text().contains("Add the videos"), qPrintable(panel.status()->text()));
    panel.addVideos(testVideos(1));
    std::optional<config::Config> cfg;
    panel.setConfigSource([&] { return cfg; });
    panel.predict();  // the editor's YAML has errors
    QVERIFY2(panel.status()->text().contains("The config has errors"),
             qPrintable(panel.status()->text()));
    QVERIFY(!panel.busy());

    QVERIFY(!panel.useRun(dir_.path() + "/no-run"));
    QVERIFY2(panel.status()->text().contains("no-run: the run has no config.yaml"),
             qPrintable(panel.status()->text()));

    cfg = demo_.config();
    testing::checkCliErrorsAreSaid(
        panel, [&] { panel.predict(); }, dir_.path());
  }
};

QTEST_MAIN(TestPredictPanel)
#include "tst_predictpanel.moc"
