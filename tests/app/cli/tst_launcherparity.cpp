// Data-parallel training, validation and the multi-view test over two CPU processes (Gloo)
// compute what one process computes.
#include <QtTest>

#include <QDir>
#include <QFile>

#include <cmath>
#include <map>

#include "CliRun.h"

#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"
#include "runlog/TensorBoardReader.h"
#include "runlog/TensorBoardWriter.h"

using amp::testing::makeDemoData;
using amp::testing::runTrainingCli;

class TestLauncherParity : public amp::testing::DemoDataSuite {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY(makeDemoData(data_)); }

  // Training, validation and the multi-view test over two processes compute what one process
  // computes: a tiny MViT (no batch norm) at learning rate 0, so both runs keep the same weights.
  // The clips' random crops, scales and flips depend on the clip's place in the epoch, not on
  // the rank that decodes it, so the per-step losses agree too; that holds for the recipe's
  // RandAugment, relative crops and random erasing as well. Mixup is off: it pairs the clips of
  // one rank's batch (as PySlowFast's does under DDP), so it cannot match one process's pairing.
  void evaluationOverTwoProcessesEqualsOne() {
    const QStringList mvit = {
        "--cfg",
        QString(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/MVITv2_S_16x4.yaml",
        "MVIT.EMBED_DIM",
        "16",
        "MVIT.DEPTH",
        "2",
        "MVIT.NUM_HEADS",
        "1",
        "MVIT.DIM_MUL",
        "[]",
        "MVIT.HEAD_MUL",
        "[]",
        "MVIT.POOL_Q_STRIDE",
        "[]",
        "MVIT.POOL_KV_STRIDE_ADAPTIVE",
        "[1, 4, 4]",
        "MVIT.DROPPATH_RATE",
        "0.0",
        "MODEL.DROPOUT_RATE",
        "0.0",
        "DATA.NUM_FRAMES",
        "4",
        "DATA.TRAIN_JITTER_SCALES",
        "[40, 48]",
        "DATA.TRAIN_CROP_SIZE",
        "32",
        "DATA.TEST_CROP_SIZE",
        "32",
        "DATA.RANDOM_FLIP",
        "True",
        "MODEL.NUM_CLASSES",
        "8",
        "NUM_GPUS",
        "0",
        "TRAIN.BATCH_SIZE",
        "4",
        "TEST.BATCH_SIZE",
        "4",
        "SOLVER.BASE_LR",
        "0",
        "SOLVER.LR_POLICY",
        "steps_with_relative_lrs",
        "SOLVER.STEPS",
        "[0]",
        "SOLVER.LRS",
        "[1]",
        "SOLVER.WARMUP_EPOCHS",
        "0",
        "SOLVER.MAX_EPOCH",
        "1",
        "TEST.ENABLE",
        "False",
        "TRAIN.MIXED_PRECISION",
        "False",
        "MIXUP.ENABLE",
        "False",
        "DATA_LOADER.NUM_WORKERS",
        "1",
        "DATA.PATH_TO_DATA_DIR",
        data_,
        "DATA.PATH_PREFIX",
        data_};
    const QString one = dir_.path() + "/eval1", two = dir_.path() + "/eval2";
    auto a = runTrainingCli(QStringList{"train"} + mvit +
                            QStringList{"OUTPUT_DIR", one, "TENSORBOARD.ENABLE", "True"});
    QVERIFY2(a.exitCode == 0, qPrintable(a.out + a.err));
    auto b = runTrainingCli(
        QStringList{"train", "--init-method", "file://" + dir_.path() + "/store-eval"} + mvit +
        QStringList{"OUTPUT_DIR", two, "DIST.CPU_PROCESSES", "2", "TENSORBOARD.ENABLE", "True"});
    QVERIFY2(b.exitCode == 0, qPrintable(b.out + b.err));
    auto records = [](const QString& run, const char* kind) {
      std::vector<amp::runlog::MetricEvent> out;
      for (const auto& e : amp::runlog::MetricsReader::readAll(
               amp::runlog::RunDirectory(run.toStdString()).metricsPath()))
        if (e.kind == kind) out.push_back(e);
      return out;
    };
    const auto trainA = records(one, amp::runlog::kind::kTrain),
               trainB = records(two, amp::runlog::kind::kTrain);
    QCOMPARE(trainA.size(), size_t{4});
    QCOMPARE(trainB.size(), trainA.size());
    for (size_t i = 0; i < trainA.size(); ++i) {
      const double la = *trainA[i].value("loss"), lb = *trainB[i].value("loss");
      QVERIFY2(std::abs(la - lb) < 1e-5, qPrintable(QString("step %1: loss %2 vs %3")
                                                        .arg(i + 1)
                                                        .arg(la, 0, 'g', 10)
                                                        .arg(lb, 0, 'g', 10)));
      QCOMPARE(*trainB[i].value("top1_err"), *trainA[i].value("top1_err"));
    }
    const auto valA = records(one, amp::runlog::kind::kVal),
               valB = records(two, amp::runlog::kind::kVal);
    QCOMPARE(valA.size(), size_t{1});
    QCOMPARE(valB.size(), size_t{1});
    QCOMPARE(*valB[0].value("top1_err"), *valA[0].value("top1_err"));
    QCOMPARE(*valB[0].value("top5_err"), *valA[0].value("top5_err"));
    QVERIFY(std::abs(*valB[0].value("loss") - *valA[0].value("loss")) < 1e-5);
    // TENSORBOARD.ENABLE: rank 0 writes the one events file; PySlowFast's per-batch validation
    // errors are averaged over the ranks, so two processes' batches i (rank 0 takes clips 0, 2,
    // rank 1 clips 1, 3 ...) give one process's batch i (clips 0-3).
    auto tensorBoard = [](const QString& run) {
      std::map<std::pair<std::string, std::int64_t>, double> values;
      const QStringList files = QDir(run + "/runs-kinetics").entryList(QDir::Files);
      if (files.size() != 1)
        qWarning("%s: %lld events files", qPrintable(run), static_cast<long long>(files.size()));
      for (const auto& f : files) {
        const auto read =
            amp::runlog::readTensorBoardFile((run + "/runs-kinetics/" + f).toStdString());
        if (!read.error.empty()) qWarning("%s", read.error.c_str());
        for (const auto& e : read.events)
          for (const auto& v : e.scalars) values[{v.tag, e.step}] = v.value;
      }
      return std::make_pair(files.size(), values);
    };
    const auto [filesA, tbA] = tensorBoard(one);
    const auto [filesB, tbB] = tensorBoard(two);
    const int files =
        !amp::runlog::tensorBoardSupport() ? 1 : 0;  // none where the build has no event files
    QCOMPARE(filesA, files);
    QCOMPARE(filesB, files);
    if (files) {
      double wrong = 0;  // 16 clips in 4 batches of 4: they pool to the whole validation's error
      for (std::int64_t i = 0; i < 4; ++i) {
        for (const char* tag : {"Val/Top1_err", "Val/Top5_err"}) {
          QVERIFY2(tbA.count({tag, i}) && tbB.count({tag, i}), tag);
          QCOMPARE(tbB.at({tag, i}), tbA.at({tag, i}));
        }
        wrong += tbB.at({"Val/Top1_err", i}) / 100.0 * 4;
      }
      QVERIFY2(std::abs(100.0 * wrong / 16 - *valB[0].value("top1_err")) < 1e-3,
               qPrintable(QString::number(100.0 * wrong / 16)));
      QVERIFY(!tbB.count({"Val/Top1_err", 4}));
      for (std::int64_t i = 0; i < 4;
           ++i)  // the averaged training values, as the metrics log has them
        QCOMPARE(tbB.at({"Train/Top1_err", i}),
                 static_cast<double>(static_cast<float>(*trainB[i].value("top1_err"))));
    }

    // The multi-view test of the same checkpoint, 3 x 3 views per video: every video gets all of
    // its views over two processes, and the same summed scores.
    const QString checkpoint = one + "/checkpoints/checkpoint_epoch_00001.pyth";
    const QStringList views = {
        "TEST.NUM_ENSEMBLE_VIEWS", "3", "TEST.NUM_SPATIAL_CROPS", "3", "OUTPUT_DIR", one};
    auto t1 = runTrainingCli(
        QStringList{"test", "--checkpoint", checkpoint, "--scores", dir_.path() + "/scores1.csv"} +
        mvit + views);
    QVERIFY2(t1.exitCode == 0, qPrintable(t1.out + t1.err));
    auto t2 = runTrainingCli(QStringList{"test", "--checkpoint", checkpoint, "--scores",
                                         dir_.path() + "/scores2.csv", "--init-method",
                                         "file://" + dir_.path() + "/store-test"} +
                             mvit + views + QStringList{"DIST.CPU_PROCESSES", "2"});
    QVERIFY2(t2.exitCode == 0, qPrintable(t2.out + t2.err));
    QVERIFY2(
        t2.out.contains(
            "16 x 9 views (3 temporal x 3 spatial, probabilities summed, shared by 2 processes)"),
        qPrintable(t2.out));
    auto lineOf = [](const QString& out, const QString& key) {
      for (const auto& l : out.split('\n'))
        if (l.startsWith(key)) return l;
      return QString();
    };
    for (const char* key : {"top1_err", "top5_err", "view top1_err"}) {
      QVERIFY(!lineOf(t1.out, key).isEmpty());
      QCOMPARE(lineOf(t2.out, key), lineOf(t1.out, key));
    }
    auto readCsv = [](const QString& path) {
      QFile f(path);
      if (!f.open(QIODevice::ReadOnly)) return QList<QStringList>();
      QList<QStringList> rows;
      for (const auto& l : QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts))
        rows.push_back(l.split(','));
      return rows;
    };
    const auto s1 = readCsv(dir_.path() + "/scores1.csv"),
               s2 = readCsv(dir_.path() + "/scores2.csv");
    QCOMPARE(s1.size(), 17);  // header and 16 videos
    QCOMPARE(s2.size(), s1.size());
    QCOMPARE(s1[0].mid(0, 5), (QStringList{"video", "label", "views", "top1", "score_0"}));
    double sum = 0;
    for (int v = 1; v < s1.size(); ++v) {
      QCOMPARE(s2[v].mid(0, 3), s1[v].mid(0, 3));  // same video, label and 9 views
      QCOMPARE(s1[v][2], QString("9"));
      for (int k = 4; k < s1[v].size(); ++k) {
        QVERIFY2(std::abs(s1[v][k].toDouble() - s2[v][k].toDouble()) < 1e-6,
                 qPrintable(s1[v].join(',') + " vs " + s2[v].join(',')));
        sum += s1[v][k].toDouble();
      }
    }
    QVERIFY(std::abs(sum - 16 * 9) < 1e-3);  // each view's probabilities sum to one

    // DATA.ENSEMBLE_METHOD max: the views' element-wise maximum, combined over the ranks by a max
    // all-reduce: one process and two agree, and mean <= max <= sum for every score.
    const QStringList maxViews = views + QStringList{"DATA.ENSEMBLE_METHOD", "max"};
    auto m1 = runTrainingCli(
        QStringList{"test", "--checkpoint", checkpoint, "--scores", dir_.path() + "/max1.csv"} +
        mvit + maxViews);
    QVERIFY2(m1.exitCode == 0, qPrintable(m1.out + m1.err));
    auto m2 = runTrainingCli(QStringList{"test", "--checkpoint", checkpoint, "--scores",
                                         dir_.path() + "/max2.csv", "--init-method",
                                         "file://" + dir_.path() + "/store-max"} +
                             mvit + maxViews + QStringList{"DIST.CPU_PROCESSES", "2"});
    QVERIFY2(m2.exitCode == 0, qPrintable(m2.out + m2.err));
    QVERIFY2(m2.out.contains("probabilities max-pooled, shared by 2 processes"),
             qPrintable(m2.out));
    const auto x1 = readCsv(dir_.path() + "/max1.csv"), x2 = readCsv(dir_.path() + "/max2.csv");
    QCOMPARE(x1.size(), 17);
    QCOMPARE(x2.size(), 17);
    bool anyBelowSum = false;
    for (int v = 1; v < x1.size(); ++v)
      for (int k = 4; k < x1[v].size(); ++k) {
        const double mx = x1[v][k].toDouble(), total = s1[v][k].toDouble();
        QVERIFY(std::abs(mx - x2[v][k].toDouble()) < 1e-6);
        QVERIFY2(mx <= total + 1e-9 && mx >= total / 9 - 1e-9, qPrintable(x1[v].join(',')));
        anyBelowSum = anyBelowSum || mx < total - 1e-6;
      }
    QVERIFY(anyBelowSum);  // really not the sum

    // TRAIN.ENABLE False: only the test, as PySlowFast's run_net, of TEST.CHECKPOINT_FILE_PATH.
    const QString only = dir_.path() + "/testonly";
    auto t3 =
        runTrainingCli(QStringList{"train"} + mvit +
                       QStringList{"OUTPUT_DIR", only, "TRAIN.ENABLE", "False", "TEST.ENABLE",
                                   "True", "TEST.CHECKPOINT_FILE_PATH", checkpoint,
                                   "TEST.NUM_ENSEMBLE_VIEWS", "3", "TEST.NUM_SPATIAL_CROPS", "3"});
    QVERIFY2(t3.exitCode == 0, qPrintable(t3.out + t3.err));
    QVERIFY(records(only, amp::runlog::kind::kTrain).empty());
    const auto test = records(only, amp::runlog::kind::kTest);
    QCOMPARE(test.size(), size_t{1});
    QCOMPARE(QString::number(*test[0].value("top1_err"), 'f', 2),
             lineOf(t1.out, "top1_err").split(' ', Qt::SkipEmptyParts)[1]);
    QVERIFY(QDir(only + "/checkpoints")
                .entryList(QDir::Files)
                .isEmpty());  // nothing trained, nothing saved
    auto nothing = runTrainingCli(QStringList{"train"} + mvit +
                                  QStringList{"OUTPUT_DIR", only, "TRAIN.ENABLE", "False"});
    QCOMPARE(nothing.exitCode, 1);
    QVERIFY2((nothing.out + nothing.err).contains("TRAIN.ENABLE and TEST.ENABLE are both False"),
             qPrintable(nothing.out + nothing.err));
  }
};

QTEST_GUILESS_MAIN(TestLauncherParity)
#include "tst_launcherparity.moc"
