#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <cmath>
#include <map>

#include "CliRun.h"

#include "runlog/MetricsReader.h"
#include "runlog/MetricsWriter.h"
#include "runlog/RunDirectory.h"
#include "runlog/TensorBoardWriter.h"

namespace {

using amp::testing::runCli;

QString config(const char* rel) {
  return QString(AMPSTUDIO_SOURCE_DIR) + "/configs/" + rel;
}

}  // namespace

// The demo dataset of 16 clips per split used by the data, train and bench tests.
static bool makeDemoData(const QString& out) {
  auto made = runCli({"make-demo-data", "--out", out, "--clips-per-class", "2", "--seed", "5"});
  if (made.exitCode == 0 && made.out.contains("Wrote 16 train, 16 val, 16 test clips")) return true;
  qWarning("make-demo-data: %s%s", qPrintable(made.out), qPrintable(made.err));
  return false;
}

class TestCli : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString data_;

 private slots:
  void initTestCase() {
    data_ = dir_.path() + "/demo";
    QVERIFY(makeDemoData(data_));
  }

  void checkValid() {
    auto r = runCli({"config", "check", "--cfg", config("Kinetics/SLOWFAST_8x8_R50.yaml")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("valid"));
  }

  void checkInvalidReportsEveryError() {
    QTemporaryDir dir;
    const QString path = dir.path() + "/bad.yaml";
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("SOLVER:\n  BASE_LR: -1\n  MAX_EPOCHS: 3\n");
    f.close();
    auto r = runCli({"config", "check", "--cfg", path, "TRAIN.BATCH_SIZE", "x"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(path + ":2:12: SOLVER.BASE_LR:"), qPrintable(r.err));
    QVERIFY2(r.err.contains(path + ":3:3: SOLVER.MAX_EPOCHS: ") &&
                 r.err.contains("did you mean SOLVER.MAX_EPOCH"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("command line, argument 1: TRAIN.BATCH_SIZE:"), qPrintable(r.err));
    QVERIFY(r.err.contains("3 errors"));
    QVERIFY(r.out.isEmpty());
  }

  void showResolvedWithOverrides() {
    auto r = runCli({"config", "show", "--cfg", config("Kinetics/X3D_XS.yaml"), "--changed",
                     "SOLVER.LR_SCALE", "0.6"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("NUM_FRAMES: 4\n"));
    QVERIFY(r.out.contains("  LR_SCALE: 0.6\n"));
    QVERIFY(!r.out.contains("\nNUM_SHARDS:"));  // default: not shown with --changed
    auto p = runCli({"config", "show", "--cfg", config("Kinetics/X3D_XS.yaml"), "--pyslowfast",
                     "SOLVER.LR_SCALE", "0.5"});
    QCOMPARE(p.exitCode, 0);
    QVERIFY(p.out.contains("  BASE_LR: 0.05\n"));
    QVERIFY(!p.out.contains("AMP:"));
  }

  void overrideValuesStayWhole() {
    auto r = runCli({"config", "show", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--changed",
                     "DATA.TRAIN_JITTER_SCALES", "[70, 90]", "DEMO.WEBCAM", "-5"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("TRAIN_JITTER_SCALES: [70, 90]"), qPrintable(r.out));
    QVERIFY(r.out.contains("WEBCAM: -5"));
  }

  // data check and preview on the intact demo data of initTestCase.
  void dataCheckAndPreview() {
    const QString data = data_;
    const QStringList dataArgs{"DATA.PATH_TO_DATA_DIR", data, "DATA.PATH_PREFIX", data};
    QTemporaryDir dir;
    auto check =
        runCli(QStringList{"data", "check", "--cfg", config("demo/DEMO_X3D_TINY.yaml")} + dataArgs);
    QCOMPARE(check.exitCode, 0);
    QVERIFY2(check.out.contains("total: 48 clips ok, 0 failed"), qPrintable(check.out));
    QVERIFY(check.out.contains("size 84x84"));
    // data preview: a PNG contact sheet per clip and each clip's sampling (here two test views).
    auto preview = runCli(QStringList{"data", "preview", "--cfg", config("demo/DEMO_X3D_TINY.yaml"),
                                      "--split", "test", "--clip", "2", "--count", "2", "--out",
                                      dir.path() + "/preview", "--json"} +
                          dataArgs);
    QCOMPARE(preview.exitCode, 0);
    const auto clips = QJsonDocument::fromJson(preview.out.toUtf8()).array();
    QCOMPARE(clips.size(), 2);
    QCOMPARE(clips[0].toObject()["position"].toInt(), 2);
    QCOMPARE(clips[1].toObject()["view"].toInt(),
             1);  // test positions are video x views: 3 is video 1's view 1
    QVERIFY(clips[0].toObject()["frame_indices"].toArray().size() == 8);
    QVERIFY(QFile::exists(clips[1].toObject()["png"].toString()));
    auto outside = runCli(QStringList{"data", "preview", "--cfg", config("demo/DEMO_X3D_TINY.yaml"),
                                      "--clip", "999", "--out", dir.path() + "/preview"} +
                          dataArgs);
    QCOMPARE(outside.exitCode, 1);
    QVERIFY2(outside.err.contains("clip 999 is outside the train epoch's"),
             qPrintable(outside.err));
    // Training clips with RandAugment and random erasing: each op by name with its argument, each
    // box.
    const QStringList augArgs{"AUG.ENABLE",         "True",        "AUG.AA_TYPE",
                              "rand-m9-n4-mstd0.5", "AUG.RE_PROB", "1.0"};
    auto augmented =
        runCli(QStringList{"data", "preview", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--count",
                           "4", "--out", dir.path() + "/augmented", "--json"} +
               dataArgs + augArgs);
    QCOMPARE(augmented.exitCode, 0);
    const auto augClips = QJsonDocument::fromJson(augmented.out.toUtf8()).array();
    QCOMPARE(augClips.size(), 4);
    const QStringList opNames{"AutoContrast", "Equalize",      "Invert",       "Rotate",
                              "Posterize",    "Solarize",      "SolarizeAdd",  "Color",
                              "Contrast",     "Brightness",    "Sharpness",    "ShearX",
                              "ShearY",       "TranslateXRel", "TranslateYRel"};
    int ops = 0;
    QStringList firstOps;
    for (qsizetype i = 0; i < augClips.size(); ++i) {
      const auto c = augClips[i].toObject();
      for (const auto& op : c["augment_ops"].toArray()) {
        const QString name = op.toObject()["op"].toString();
        QVERIFY2(opNames.contains(name), qPrintable(name));
        QVERIFY(op.toObject()["text"].toString().startsWith(name));
        if (i == 0) firstOps << op.toObject()["text"].toString();
        ++ops;
      }
      QCOMPARE(c["erased_boxes"].toArray().size(), 1);  // RE_PROB 1, RE_COUNT 1
      const auto box = c["erased_boxes"].toArray()[0].toObject();
      QVERIFY(box["y"].toInt() >= 0 && box["y"].toInt() + box["height"].toInt() <= 64);
      QVERIFY(box["x"].toInt() >= 0 && box["x"].toInt() + box["width"].toInt() <= 64);
    }
    QVERIFY(ops > 0);  // 4 clips of up to 4 ops each: the seeded draw applied some
    auto text = runCli(QStringList{"data", "preview", "--cfg", config("demo/DEMO_X3D_TINY.yaml"),
                                   "--count", "4", "--out", dir.path() + "/augmented"} +
                       dataArgs + augArgs);
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("  erased "), qPrintable(text.out));
    if (!firstOps.isEmpty())
      QVERIFY2(text.out.contains("  RandAugment " + firstOps.join(", ") + "\n"),
               qPrintable(text.out));
  }

  // A dataset with one missing video and one file that is not a video: data check names both, and
  // a short training run on it, its test and predict work around them.
  void damagedDataTrainsTestsAndPredicts() {
    QTemporaryDir dir;
    const QString data = dir.path() + "/demo";
    QVERIFY(makeDemoData(data));
    const QStringList dataArgs{"DATA.PATH_TO_DATA_DIR", data, "DATA.PATH_PREFIX", data};
    QFile::remove(data + "/videos/train/growing_0001.mp4");
    QFile junk(data + "/videos/val/shrinking_0000.mp4");
    QVERIFY(junk.open(QIODevice::WriteOnly | QIODevice::Truncate));
    junk.write("definitely not a video");
    junk.close();
    auto bad =
        runCli(QStringList{"data", "check", "--cfg", config("demo/DEMO_X3D_TINY.yaml")} + dataArgs);
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.out.contains("train.csv:15: " + data +
                              "/videos/train/growing_0001.mp4: file does not exist"),
             qPrintable(bad.out));
    QVERIFY2(bad.out.contains("shrinking_0000.mp4: not a readable video"), qPrintable(bad.out));
    QVERIFY(bad.out.contains("total: 46 clips ok, 2 failed"));
    auto bench = runCli(QStringList{"bench", "data", "--cfg", config("demo/DEMO_X3D_TINY.yaml"),
                                    "--split", "test", "--batches", "2", "--workers", "2"} +
                        dataArgs);
    QCOMPARE(bench.exitCode, 0);
    QVERIFY2(bench.out.contains("clips/s") && bench.out.contains("speed-up with 2 workers"),
             qPrintable(bench.out));
    // Train one short epoch headless on the (partly damaged) dataset: damaged clips are
    // replaced, the run finishes, and the run list sees it.
    const QString run = dir.path() + "/runs/cli-run";
    auto train = runCli(QStringList{"train", "--cfg", config("demo/DEMO_X3D_TINY.yaml"),
                                    "OUTPUT_DIR", run, "SOLVER.MAX_EPOCH", "1", "TRAIN.BATCH_SIZE",
                                    "4", "X3D.DIM_C5", "32", "LOG_PERIOD", "1"} +
                        dataArgs);
    QCOMPARE(train.exitCode, 0);
    QVERIFY2(train.out.contains("[epoch ") && train.out.contains("[val epoch 1]") &&
                 train.out.contains("run finished"),
             qPrintable(train.out));
    auto runs = runCli({"runs", "list", dir.path() + "/runs"});
    QVERIFY2(
        runs.out.contains("cli-run") && runs.out.contains("finished") && runs.out.contains("bf16"),
        qPrintable(runs.out));
    QVERIFY(QFile::exists(run + "/checkpoints/checkpoint_epoch_00001.pyth"));
    // The multi-view test of the run's newest checkpoint (the test split is intact).
    const QString scores = dir.path() + "/scores.csv";
    auto test = runCli(QStringList{"test", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--scores",
                                   scores, "OUTPUT_DIR", run, "X3D.DIM_C5", "32"} +
                       dataArgs);
    QCOMPARE(test.exitCode, 0);
    // TEST.NUM_TEMPORAL_CLIPS: one test per entry and one scores file each, named after its clips;
    // the 2-clip test is the test above (TEST.NUM_ENSEMBLE_VIEWS 2).
    auto multi = runCli(QStringList{"test", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--scores",
                                    dir.path() + "/multi.csv", "OUTPUT_DIR", run, "X3D.DIM_C5",
                                    "32", "TEST.NUM_TEMPORAL_CLIPS", "[1, 2]"} +
                        dataArgs);
    QCOMPARE(multi.exitCode, 0);
    QVERIFY2(multi.out.count("checkpoint   ") == 2 && multi.out.contains("x 1 views (1 temporal") &&
                 multi.out.contains("x 2 views (2 temporal"),
             qPrintable(multi.out));
    auto readAll = [](const QString& path) {
      QFile f(path);
      return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    QVERIFY(!readAll(dir.path() + "/multi_1clips.csv").isEmpty());
    QCOMPARE(readAll(dir.path() + "/multi_2clips.csv"), readAll(scores));
    QVERIFY(!QFile::exists(dir.path() + "/multi.csv"));
    // predict: the same protocol on videos named on the command line, with the class names; its
    // top class and probability are the test's for the same video; a missing video says why.
    QFile scoreFile(scores);
    QVERIFY(scoreFile.open(QIODevice::ReadOnly));
    const auto rows = QString::fromUtf8(scoreFile.readAll()).split('\n', Qt::SkipEmptyParts);
    QVERIFY(rows.size() == 17);
    const auto row = rows[1].split(',');  // video,label,views,top1,score_0...
    double best = 0;
    for (int k = 4; k < row.size(); ++k) best = std::max(best, row[k].toDouble());
    auto predict =
        runCli(QStringList{"predict", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--checkpoint",
                           run + "/checkpoints/checkpoint_epoch_00001.pyth", "--labels",
                           data + "/classes.txt", row[0], dir.path() + "/missing.mp4", "X3D.DIM_C5",
                           "32"} +
               dataArgs);
    QCOMPARE(predict.exitCode, 1);  // one video could not be predicted
    QStringList classNames;
    QFile classes(data + "/classes.txt");
    QVERIFY(classes.open(QIODevice::ReadOnly));
    classNames = QString::fromUtf8(classes.readAll()).split('\n', Qt::SkipEmptyParts);
    const QString expected = QString("  1. %1 %  class %2  %3")
                                 .arg(100.0 * best / 2, 5, 'f', 1)
                                 .arg(row[3])
                                 .arg(classNames[row[3].toInt()]);
    QVERIFY2(predict.out.contains(expected), qPrintable(expected + "\n" + predict.out));
    QVERIFY2(predict.out.contains("  2 views, ") && predict.out.contains("  5. "),
             qPrintable(predict.out));
    QVERIFY2(predict.out.contains("missing.mp4\n  cannot predict: ") &&
                 predict.out.contains("file does not exist"),
             qPrintable(predict.out));
    // Without --labels, DEMO.LABEL_FILE_PATH of the demo config (demo-data/classes.txt, not in
    // this folder): the prediction still comes, classes by number.
    auto unnamed = runCli(
        QStringList{"predict", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--checkpoint",
                    run + "/checkpoints/checkpoint_epoch_00001.pyth", row[0], "X3D.DIM_C5", "32"} +
            dataArgs,
        amp::testing::CliOptions{240000, dir.path(), {}});
    QCOMPARE(unnamed.exitCode, 0);
    QVERIFY2(unnamed.err.contains("DEMO.LABEL_FILE_PATH: demo-data/classes.txt does not exist; "
                                  "classes are shown by number"),
             qPrintable(unnamed.err));
    QVERIFY2(unnamed.out.contains(
                 QString("  1. %1 %  class %2\n").arg(100.0 * best / 2, 5, 'f', 1).arg(row[3])),
             qPrintable(unnamed.out));
    // --json (the studio's Predict tab): the same numbers as data.
    auto predictJson =
        runCli(QStringList{"predict", "--json", "--cfg", config("demo/DEMO_X3D_TINY.yaml"),
                           "--checkpoint", run + "/checkpoints/checkpoint_epoch_00001.pyth",
                           "--labels", data + "/classes.txt", row[0], dir.path() + "/missing.mp4",
                           "X3D.DIM_C5", "32"} +
               dataArgs);
    QCOMPARE(predictJson.exitCode, 1);
    const QJsonArray predicted =
        QJsonDocument::fromJson(predictJson.out.toUtf8()).object()["videos"].toArray();
    QCOMPARE(predicted.size(), 2);
    const QJsonObject top1 = predicted[0].toObject()["top"].toArray()[0].toObject();
    QCOMPARE(top1["class"].toInt(), row[3].toInt());
    QCOMPARE(top1["name"].toString(), classNames[row[3].toInt()]);
    QVERIFY(std::abs(top1["probability"].toDouble() - best / 2) < 1e-4);  // the CSV rounds
    QCOMPARE(predicted[0].toObject()["views"].toInt(), 2);
    QVERIFY(predicted[1].toObject()["error"].toString().contains("file does not exist"));
    QVERIFY2(test.out.contains("checkpoint_epoch_00001.pyth") &&
                 test.out.contains("videos       16 x 2 views") && test.out.contains("top1_err") &&
                 test.out.contains("per class top1_err: 0:"),
             qPrintable(test.out));
    auto noCheckpoint = runCli(QStringList{"test", "--cfg", config("demo/DEMO_X3D_TINY.yaml"),
                                           "OUTPUT_DIR", dir.path() + "/none"} +
                               dataArgs);
    QCOMPARE(noCheckpoint.exitCode, 1);
    QVERIFY2(noCheckpoint.err.contains("TEST.CHECKPOINT_FILE_PATH: no checkpoint to test"),
             qPrintable(noCheckpoint.err));
  }

  void benchPrecisionOverheadAndMultigrid() {
    const QString data = data_;
    const QStringList dataArgs{"DATA.PATH_TO_DATA_DIR", data, "DATA.PATH_PREFIX", data};
    QTemporaryDir dir;
    // The precision benchmark on the demo's training data: FP32 then BF16, with the ratios.
    auto prec =
        runCli(QStringList{"bench", "precision", "--cfg", config("demo/DEMO_X3D_TINY.yaml"),
                           "--iters", "2", "--warmup", "0", "--batch", "2", "X3D.DIM_C5", "32"} +
               dataArgs);
    QCOMPARE(prec.exitCode, 0);
    QVERIFY2(prec.out.contains("training data") && prec.out.contains("\nfp32 ") &&
                 prec.out.contains("\nbf16 ") && prec.out.contains("bf16 / fp32:") &&
                 prec.out.contains("loss@2"),
             qPrintable(prec.out));
    // Engine overhead: the trainer against a bare loop, one round (the ratio itself is noise at
    // this size; docs/training.md has the measured figure). Random clips: no dataset needed, as
    // on a GPU server without one.
    auto over = runCli(QStringList{"bench", "overhead", "--cfg", config("demo/DEMO_X3D_TINY.yaml"),
                                   "--iters", "3", "--warmup", "1", "--rounds", "1",
                                   "TRAIN.BATCH_SIZE", "2", "X3D.DIM_C5", "32",
                                   "DATA.PATH_TO_DATA_DIR", "/nonexistent-dataset"});
    QCOMPARE(over.exitCode, 0);
    QVERIFY2(over.out.contains("round 1: bare loop ") &&
                 over.out.contains("trainer / bare (median of paired rounds): ") &&
                 over.out.contains("precision bf16"),
             qPrintable(over.out));
    auto accum = runCli(QStringList{"bench", "overhead", "--cfg", config("demo/DEMO_X3D_TINY.yaml"),
                                    "SOLVER.GRAD_ACCUM_STEPS", "2"} +
                        dataArgs);
    QCOMPARE(accum.exitCode, 1);
    QVERIFY2(accum.err.contains("SOLVER.GRAD_ACCUM_STEPS"), qPrintable(accum.err));
    // bench multigrid: the plain run (16 clips / 2 = 8 steps) against short cycles (batches of
    // 8, 4 and 2 clips: 3 steps), for two seeds, in one invocation; a used --out folder is refused.
    const QString mgOut = dir.path() + "/mgbench";
    auto mg = runCli(QStringList{"bench", "multigrid", "--cfg", config("demo/DEMO_X3D_TINY.yaml"),
                                 "--out", mgOut, "--precision", "mixed", "--cycles", "short",
                                 "--seeds", "1,2", "--json", "SOLVER.MAX_EPOCH", "1",
                                 "TRAIN.BATCH_SIZE", "2", "X3D.DIM_C5", "32"} +
                     dataArgs);
    QVERIFY2(mg.exitCode == 0, qPrintable(mg.out + mg.err));
    const auto mgRuns = QJsonDocument::fromJson(mg.out.toUtf8()).object().value("runs").toArray();
    QCOMPARE(mgRuns.size(), 4);
    for (int i = 0; i < 4; ++i) {
      const auto r = mgRuns[i].toObject();
      const bool multigrid = i % 2 == 1;
      const int seed = 1 + i / 2;
      QCOMPARE(r.value("multigrid").toBool(), multigrid);
      QCOMPARE(r.value("steps").toInt(), multigrid ? 3 : 8);
      QCOMPARE(r.value("seed").toInt(), seed);
      const QString name =
          QString(multigrid ? "multigrid" : "plain") + "-mixed-seed" + QString::number(seed);
      QCOMPARE(r.value("name").toString(), name);
      // The run trained with that seed: its saved config says so.
      QFile saved(mgOut + "/" + name + "/config.yaml");
      QVERIFY2(saved.open(QIODevice::ReadOnly), qPrintable(saved.fileName()));
      QVERIFY2(saved.readAll().contains("RNG_SEED: " + QByteArray::number(seed)),
               qPrintable(saved.fileName()));
    }
    for (const auto& r : mgRuns) {
      QVERIFY(r.toObject().value("finished").toBool());
      // The final accuracy is the run's last validation, as its own metrics log has it.
      const std::string runDir =
          (mgOut + "/" + r.toObject().value("name").toString()).toStdString();
      std::optional<double> lastErr;
      for (const auto& e :
           amp::runlog::MetricsReader::readAll(amp::runlog::RunDirectory(runDir).metricsPath()))
        if (e.kind == amp::runlog::kind::kVal) lastErr = e.value("top1_err");
      QVERIFY2(lastErr, runDir.c_str());
      QCOMPARE(r.toObject().value("final_top1").toDouble(), 100.0 - *lastErr);
    }
    auto again = runCli(QStringList{"bench", "multigrid", "--cfg",
                                    config("demo/DEMO_X3D_TINY.yaml"), "--out", mgOut} +
                        dataArgs);
    QCOMPARE(again.exitCode, 2);
    QVERIFY2(again.err.contains("not empty"), qPrintable(again.err));
  }

  // bench multigrid-time: each shape of the demo's long-cycle schedule timed once, priced by its
  // steps. 64 clips: phase 0 trains 6 epochs of 64 // 64 = 1 step, phase 1 3 epochs of 64 // 32
  // = 2, phase 2 one of 4, phases 3 and 4 one of 8 each: 32 steps; the plain run 8 epochs of 8.
  void benchMultigridTimePricesEachShape() {
    const QStringList tiny{
        "--iterations",        "1", "--warmup", "0", "X3D.DIM_C5", "32", "DATA.PATH_TO_DATA_DIR",
        "/nonexistent-dataset"};
    auto j = runCli(QStringList{"bench", "multigrid-time", "--cfg",
                                config("demo/DEMO_X3D_TINY_stepwise_multigrid.yaml"), "--samples",
                                "64", "--precision", "fp32", "--rounds", "2", "--json"} +
                    tiny);
    QVERIFY2(j.exitCode == 0, qPrintable(j.out + j.err));
    const auto o = QJsonDocument::fromJson(j.out.toUtf8()).object();
    QCOMPARE(o["plain"].toObject()["steps"].toInt(), 64);
    QCOMPARE(o["multigrid"].toObject()["steps"].toInt(), 32);
    QCOMPARE(o["iteration_saving"].toDouble(), 2.0);
    QCOMPARE(o["rounds"].toInt(), 2);
    const auto shapes = o["shapes"].toArray();
    QCOMPARE(shapes.size(), 4);
    std::map<QString, double> step;  // "clips x frames x crop" -> seconds
    for (const auto& s : shapes) {
      const auto so = s.toObject();
      const auto fp32 = so["step"].toObject()["fp32"].toObject();
      step[QString("%1x%2x%3")
               .arg(so["clips"].toInt())
               .arg(so["frames"].toInt())
               .arg(so["crop"].toInt())] = fp32["median_step_s"].toDouble();
      // Each shape timed once per round; its time is the median of the rounds (of two: their mean).
      const auto rounds = fp32["round_step_s"].toArray();
      QCOMPARE(rounds.size(), 2);
      const double mean = 0.5 * (rounds[0].toDouble() + rounds[1].toDouble());
      QVERIFY2(std::abs(fp32["median_step_s"].toDouble() - mean) <= 1e-12 * mean,
               qPrintable(j.out));
    }
    QCOMPARE(step.size(), size_t{4});
    for (const auto& [key, seconds] : step) QVERIFY2(seconds > 0, qPrintable(key));
    const double mgExpected =
        6 * step["64x2x45"] + 6 * step["32x4x45"] + 4 * step["16x4x64"] + 16 * step["8x8x64"];
    const double mgSeconds = o["multigrid"].toObject()["seconds"].toObject()["fp32"].toDouble();
    QVERIFY2(std::abs(mgSeconds - mgExpected) <= 1e-9 * mgExpected, qPrintable(j.out));
    const double plainSeconds = o["plain"].toObject()["seconds"].toObject()["fp32"].toDouble();
    QVERIFY2(std::abs(plainSeconds - 64 * step["8x8x64"]) <= 1e-9 * plainSeconds,
             qPrintable(j.out));
    const auto phases = o["multigrid"].toObject()["phases"].toArray();
    QCOMPARE(phases.size(), 5);
    QCOMPARE(phases[0].toObject()["per_epoch"].toArray()[0].toObject()["shape"].toString(),
             QString("64 x 2 x 45, sub_batchnorm 8"));

    // Text, both precisions, short cycles turned on over the plain stepwise config: one phase of
    // 12 epochs, each 56 clips = one cycle of 32, 16 and 8 clips (3 steps).
    auto t = runCli(QStringList{"bench", "multigrid-time", "--cfg",
                                config("demo/DEMO_X3D_TINY_stepwise.yaml"), "--cycles", "short",
                                "--samples", "56", "--rounds", "1"} +
                    tiny);
    QVERIFY2(t.exitCode == 0, qPrintable(t.out + t.err));
    for (const char* line :
         {", short cycles; 56 training clips over 1 process", "\nmultigrid 0   0-12      3  ",
          "\nfp32: multigrid's 36 steps take ", "against the plain run's 56 in ",
          "\nbf16: multigrid's 36 steps",
          "\nbf16 with multigrid against fp32 without: ", "\nsteps alone: 1.56x fewer"})
      QVERIFY2(t.out.contains(line), line);

    // The clip count comes from the training list unless --samples gives it.
    auto none = runCli(QStringList{"bench", "multigrid-time", "--cfg",
                                   config("demo/DEMO_X3D_TINY_stepwise_multigrid.yaml")} +
                       tiny);
    QCOMPARE(none.exitCode, 2);
    QVERIFY2(none.err.contains("/nonexistent-dataset") && none.err.contains("pass --samples N"),
             qPrintable(none.err));
    auto few =
        runCli(QStringList{"bench", "multigrid-time", "--cfg",
                           config("demo/DEMO_X3D_TINY_stepwise_multigrid.yaml"), "--samples", "4"} +
               tiny);
    QCOMPARE(few.exitCode, 2);
    QVERIFY2(few.err.contains("4 training clips over 1 process make no whole batch"),
             qPrintable(few.err));
    // 32 clips are 4 plain steps an epoch, but multigrid's first phase needs 64: training would
    // stop there.
    auto short32 = runCli(QStringList{"bench", "multigrid-time", "--cfg",
                                      config("demo/DEMO_X3D_TINY_stepwise_multigrid.yaml"),
                                      "--samples", "32"} +
                          tiny);
    QCOMPARE(short32.exitCode, 2);
    QVERIFY2(short32.err.contains("multigrid phase 0 makes no whole batch of 32 clips per process"),
             qPrintable(short32.err));
    auto accum = runCli(QStringList{"bench", "multigrid-time", "--cfg",
                                    config("demo/DEMO_X3D_TINY_stepwise_multigrid.yaml"),
                                    "--samples", "64", "SOLVER.GRAD_ACCUM_STEPS", "2"} +
                        tiny);
    QCOMPARE(accum.exitCode, 2);
    QVERIFY2(accum.err.contains(
                 "SOLVER.GRAD_ACCUM_STEPS 2: the estimate prices one batch per optimizer step"),
             qPrintable(accum.err));
  }

  void benchStepComparesPrecisions() {
    auto r = runCli({"bench", "step", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--batch", "2",
                     "--iterations", "1", "--warmup", "0", "X3D.DIM_C5", "32"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(
        r.out.contains("\nfp32 ") && r.out.contains("\nbf16 ") && r.out.contains("bf16 / fp32:"),
        qPrintable(r.out));
    // The step split into forward and backward: both measured, together within the step.
    auto split = runCli({"bench", "step", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--batch",
                         "2", "--iterations", "1", "--warmup", "0", "--precision", "fp32", "--json",
                         "X3D.DIM_C5", "32"});
    QCOMPARE(split.exitCode, 0);
    const auto sj = QJsonDocument::fromJson(split.out.toUtf8()).object();
    const double stepS = sj["median_step_s"].toDouble(), fwdS = sj["median_forward_s"].toDouble(),
                 bwdS = sj["median_backward_s"].toDouble();
    QVERIFY2(fwdS > 0 && bwdS > 0 && fwdS + bwdS <= stepS, qPrintable(split.out));
    // With and without MODEL.ACT_CHECKPOINT: the ratios and what the recomputation cost.
    auto ckpt = runCli({"bench", "step", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--batch", "2",
                        "--iterations", "1", "--warmup", "0", "--precision", "fp32",
                        "--act-checkpoint", "both", "X3D.DIM_C5", "32"});
    QCOMPARE(ckpt.exitCode, 0);
    QVERIFY2(ckpt.out.contains("\nfp32+ckpt ") &&
                 ckpt.out.contains("fp32 with / without activation checkpointing: ") &&
                 ckpt.out.contains("  fp32: backward ") &&
                 ckpt.out.contains("x the forward; forward is "),
             qPrintable(ckpt.out));
    auto fp16 = runCli(
        {"bench", "step", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--precision", "fp16"});
    QCOMPARE(fp16.exitCode, 1);
    QVERIFY2(fp16.err.contains("AMP.DTYPE: float16 mixed precision needs CUDA"),
             qPrintable(fp16.err));
    // Without --batch: the config's TRAIN.BATCH_SIZE.
    auto dflt =
        runCli({"bench", "step", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--precision", "bf16",
                "--iterations", "1", "--warmup", "0", "X3D.DIM_C5", "32", "TRAIN.BATCH_SIZE", "3"});
    QCOMPARE(dflt.exitCode, 0);
    QVERIFY2(dflt.out.contains("batch 3,"), qPrintable(dflt.out));
    // One clip cannot train the demo's batch-normalised X3D head: said in one line, no LibTorch
    // backtrace.
    auto one = runCli({"bench", "step", "--cfg", config("demo/DEMO_X3D_TINY.yaml"), "--batch", "1",
                       "--precision", "bf16"});
    QCOMPARE(one.exitCode, 1);
    QVERIFY2(one.err.contains("--batch 1: X3D.BN_LIN5") && !one.err.contains("frame #"),
             qPrintable(one.err));
  }

  void modelSummary() {
    auto r = runCli({"model", "summary", "--cfg", config("demo/DEMO_X3D_TINY.yaml")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("output       1x8") && r.out.contains("input 0      1x3x8x64x64"),
             qPrintable(r.out));
    auto keys = runCli({"model", "summary", "--cfg", config("Kinetics/X3D_XS.yaml"), "--keys"});
    QCOMPARE(keys.exitCode, 0);
    QVERIFY(keys.out.startsWith("# X3D (x3d): 3794322 parameters, 568 state-dict entries"));
    QVERIFY(keys.out.contains("\ns1.pathway0_stem.conv_xy.weight 24x3x1x3x3\n"));
    auto mvit =
        runCli({"model", "summary", "--cfg", config("Kinetics/MVITv2_S_16x4.yaml"), "--keys"});
    QCOMPARE(mvit.exitCode, 0);
    QVERIFY2(mvit.out.startsWith("# MViT (mvit): 34537744 parameters, 397 state-dict entries"),
             qPrintable(mvit.out.left(200)));
    auto odd = runCli({"model", "summary", "--cfg", config("Kinetics/MVITv2_S_16x4.yaml"),
                       "MODEL.MODEL_NAME", "ViT"});
    QCOMPARE(odd.exitCode, 1);
    QVERIFY2(odd.err.contains(
                 "MODEL.MODEL_NAME: 'ViT' is not built; available: ResNet, SlowFast, X3D, MViT"),
             qPrintable(odd.err));
  }

  void multigridSchedule() {
    const QString cfg =
        QString(AMPSTUDIO_TEST_DATA_DIR) + "/multigrid/SLOWFAST_8x8_R50_stepwise_multigrid.yaml";
    auto r = runCli({"multigrid", "schedule", "--cfg", cfg});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("phase stage   epochs  batch /device frames crop rate  relative LR"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("SOLVER.MAX_EPOCH 358 (was 239)"), qPrintable(r.out));
    QVERIFY2(r.out.contains("theoretical iteration saving: 3.42258x") &&
                 r.out.contains("5.75x at equal epochs"),
             qPrintable(r.out));
    auto j =
        runCli({"multigrid", "schedule", "--cfg", cfg, "--json", "MULTIGRID.SHORT_CYCLE", "False"});
    QCOMPARE(j.exitCode, 0);
    const auto o = QJsonDocument::fromJson(j.out.toUtf8()).object();
    QCOMPARE(o["phases"].toArray().size(), 13);
    QCOMPARE(o["solver"].toObject()["MAX_EPOCH"].toInt(), 358);
    QCOMPARE(o["phases"].toArray()[1].toObject()["end_epoch"].toInt(), 130);  // long cycles alone
    QVERIFY(o["notes"].toArray()[0].toString().contains("PySlowFast fails"));
    auto off = runCli({"multigrid", "schedule", "--cfg", config("demo/DEMO_X3D_TINY.yaml")});
    QCOMPARE(off.exitCode, 0);
    QVERIFY2(off.out.startsWith("multigrid is off"), qPrintable(off.out));
    auto bad = runCli({"multigrid", "schedule", "--cfg", cfg, "SOLVER.MAX_EPOCH", "150"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("SOLVER.MAX_EPOCH: 150 is before the last SOLVER.STEPS entry 196"),
             qPrintable(bad.err));
  }

  void keys() {
    auto r = runCli({"config", "keys", "AMP."});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("AMP.GROWTH_FACTOR"));
    QVERIFY(r.out.contains("9 keys"));
    auto bad = runCli({"config", "keys", "SOLVR"});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY(bad.err.contains("did you mean"));
  }

  void infoNamesVersionsAndWhatThisBuildWrites() {
    auto r = runCli({"info"});
    QCOMPARE(r.exitCode, 0);
    for (const char* line : {"AMP Studio ", "LibTorch ", "CPU ", "BLAS ", "FFmpeg ", "CUDA device"})
      QVERIFY2(r.out.contains(QString("\n") + line) || r.out.startsWith(line), line);
    const auto unsupported = amp::runlog::tensorBoardSupport();
    const QString expected = QString::fromStdString(
        unsupported ? "none: " + *unsupported : "event files with TENSORBOARD.ENABLE");
    QVERIFY2(r.out.contains("\nTensorBoard     " + expected + "\n"), qPrintable(r.out));
#ifdef AMPSTUDIO_TEST_HAS_GLOO
    QVERIFY2(r.out.contains("\nProcesses       c10d Gloo (CPU and GPU"), qPrintable(r.out));
#else
    QVERIFY2(r.out.contains("\nProcesses       ") && !r.out.contains("c10d Gloo"),
             qPrintable(r.out));
#endif
  }

  void missingConfigFile() {
    auto r = runCli({"config", "check", "--cfg", "/no/such.yaml"});
    QVERIFY(r.exitCode != 0);
    QVERIFY(r.err.contains("/no/such.yaml"));
  }

  void runsListShowTail() {
    QTemporaryDir dir;
    amp::runlog::RunDirectory run((dir.path() + "/run1").toStdString());
    QVERIFY(run.ensureExists(nullptr));
    amp::runlog::RunMetadata m;
    m.name = "demo-amp";
    m.status = amp::runlog::RunStatus::Finished;
    m.model = "X3D";
    m.precision = "bf16";
    QVERIFY(run.writeMetadata(m, nullptr));
    {
      amp::runlog::MetricsWriter w;
      QVERIFY(w.open(run.metricsPath(), nullptr));
      for (int i = 1; i <= 3; ++i) {
        amp::runlog::MetricEvent e;
        e.step = i;
        e.values = {{"loss", 1.0 / i}};
        QVERIFY(w.write(e, nullptr));
      }
    }
    auto list = runCli({"runs", "list", dir.path()});
    QCOMPARE(list.exitCode, 0);
    QVERIFY2(
        list.out.contains("demo-amp") && list.out.contains("finished") && list.out.contains("bf16"),
        qPrintable(list.out));
    auto show = runCli({"runs", "show", dir.path() + "/run1"});
    QCOMPARE(show.exitCode, 0);
    QVERIFY(show.out.contains("3 metric events"));
    auto tail = runCli({"runs", "tail", dir.path() + "/run1", "--kind", "train"});
    QCOMPARE(tail.exitCode, 0);
    QCOMPARE(tail.out.count("\n"), 3);
    QVERIFY(tail.out.contains("loss=0.333333"));

    // Our run's config is its config.yaml.
    QVERIFY(QFile::copy(QString(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml",
                        dir.path() + "/run1/config.yaml"));
    auto ours = runCli({"runs", "show", "--config", dir.path() + "/run1"});
    QCOMPARE(ours.exitCode, 0);
    QVERIFY2(ours.out.contains("MODEL:") && ours.out.contains("x3d"), qPrintable(ours.out));

    // A PySlowFast OUTPUT_DIR: model and precision from the cfg of its newest checkpoint.
    QDir(dir.path()).mkpath("theirs/checkpoints");
    QFile log(dir.path() + "/theirs/json_stats.log");
    QVERIFY(log.open(QIODevice::WriteOnly));
    log.write(
        R"(json_stats: {"_type": "train_epoch", "epoch": "1/12", "loss": 4.5, "lr": 0.1, "top1_err": 90.0})"
        "\n");
    log.close();
    const QString fixtures = QString(AMPSTUDIO_TEST_DATA_DIR) + "/checkpoints/";
    QVERIFY(QFile::copy(fixtures + "torchsave_zip.pyth",
                        dir.path() + "/theirs/checkpoints/checkpoint_epoch_00011.pyth"));
    QVERIFY(QFile::copy(fixtures + "pyslowfast_run.pyth",
                        dir.path() + "/theirs/checkpoints/checkpoint_epoch_00012.pyth"));
    list = runCli({"runs", "list", dir.path()});
    QCOMPARE(list.exitCode, 0);
    QVERIFY2(list.out.contains("ResNet (slow)") && list.out.contains("fp16"), qPrintable(list.out));
    auto theirs = runCli({"runs", "show", "--config", dir.path() + "/theirs"});
    QCOMPARE(theirs.exitCode, 0);
    QVERIFY2(theirs.out.contains("checkpoint_epoch_00012.pyth") &&
                 theirs.out.contains("  ARCH: slow") &&
                 theirs.out.contains("MIXED_PRECISION: true"),
             qPrintable(theirs.out));
    QVERIFY2(theirs.err.contains("SOLVER.FROM_A_LATER_VERSION"),
             qPrintable(theirs.err));  // a key of another version
    show = runCli({"runs", "show", dir.path() + "/theirs"});
    QVERIFY2(show.out.contains("checkpoint_epoch_00012.pyth") &&
                 show.out.contains("\"precision\": \"fp16\""),
             qPrintable(show.out));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
