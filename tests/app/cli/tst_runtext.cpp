// What ampstudio-cli writes about a run in words: train's live lines of single-label runs (as
// before) and of multi-label ones (mAP from `map`, no top-1 where the event has none), and the
// best figure of `runs list`.
#include <QtTest>

#include <cmath>

#include "RunText.h"

using namespace amp;
using cli::bestValText;
using cli::evaluationLine;
using cli::StepLine;
using cli::trainStepBar;
using cli::trainStepLine;

namespace {
runlog::MetricEvent logged(const char* kind, std::int64_t step, double epoch,
                           std::map<std::string, double> values) {
  runlog::MetricEvent e;
  e.kind = kind;
  e.step = step;
  e.epoch = epoch;
  e.values = std::move(values);
  return e;
}
}  // namespace

class TestRunText : public QObject {
  Q_OBJECT
 private slots:
  void singleLabelLinesAreAsBefore() {
    const StepLine step{40, 2, "0:00:10"};
    const auto train = logged("train", 12, 0.6,
                              {{"loss", 1.23456},
                               {"top1_err", 50},
                               {"lr", 0.1},
                               {"loss_scale", 65536},
                               {"grad_norm", 2.5},
                               {"clips_per_s", 20}});
    QCOMPARE(QString::fromStdString(trainStepLine(train, step)),
             QString("[epoch 0.60/2][step 12] loss 1.2346  top1_err 50.0  lr 0.10000  scale 65536"
                     "  grad_norm 2.500  clips/s 20.0  eta 0:00:10"));
    QCOMPARE(QString::fromStdString(trainStepBar(train, step)),
             QString("epoch 1/2 [#######.................] 30%  step 12/40  loss 1.235  top1_err "
                     "50.0  20.0 clips/s  eta 0:00:10"));
    QCOMPARE(QString::fromStdString(evaluationLine(
                 logged("val", 20, 1, {{"top1_err", 30}, {"top5_err", 10}, {"min_top1_err", 28}}))),
             QString("[val epoch 1] top1_err 30.00  top5_err 10.00  best top1_err 28.00"));
    QCOMPARE(QString::fromStdString(evaluationLine(logged("test", 40, 2,
                                                          {{"top1_err", 25},
                                                           {"top5_err", 5},
                                                           {"videos", 80},
                                                           {"views_per_video", 6},
                                                           {"view_top1_err", 31}}))),
             QString("[test] top1_err 25.00  top5_err 5.00  over 80 videos x 6 views  (one view: "
                     "top1_err 31.00)"));
    runlog::MetricEvent checkpoint = logged("event", 20, 1, {});
    checkpoint.name = "checkpoint";
    checkpoint.message = "/runs/a/checkpoints/checkpoint_epoch_00001.pyth";
    QCOMPARE(QString::fromStdString(evaluationLine(checkpoint)),
             QString("[checkpoint] /runs/a/checkpoints/checkpoint_epoch_00001.pyth"));
    QVERIFY(evaluationLine(logged("epoch", 20, 1, {{"loss", 1}})).empty());
  }

  // A multi-label run (Charades): training has no top-1 (none is printed, not 0), validation and
  // test carry `map`, a fraction, printed as mAP in percent.
  void multiLabelLinesSayMeanAveragePrecision() {
    const StepLine step{40, 2, "0:00:10"};
    const auto train = logged("train", 12, 0.6,
                              {{"loss", 0.0812},
                               {"lr", 0.1},
                               {"loss_scale", 1},
                               {"grad_norm", 2.5},
                               {"clips_per_s", 20}});
    const std::string line = trainStepLine(train, step);
    QVERIFY2(line.find("top1_err") == std::string::npos, line.c_str());
    QCOMPARE(QString::fromStdString(line),
             QString("[epoch 0.60/2][step 12] loss 0.0812  lr 0.10000  scale 1  grad_norm 2.500  "
                     "clips/s 20.0  eta 0:00:10"));
    QVERIFY(trainStepBar(train, step).find("top1_err") == std::string::npos);
    QCOMPARE(QString::fromStdString(
                 evaluationLine(logged("val", 20, 1, {{"map", 0.413}, {"max_map", 0.4134}}))),
             QString("[val epoch 1] mAP 41.30 %  best mAP 41.34 %"));
    QCOMPARE(QString::fromStdString(evaluationLine(
                 logged("test", 40, 2, {{"map", 0.427}, {"videos", 80}, {"views_per_video", 30}}))),
             QString("[test] mAP 42.70 %  over 80 videos x 30 views"));
    // A value that is not a number is said as such.
    QVERIFY(evaluationLine(logged("val", 20, 1, {{"map", std::nan("")}})).find("mAP nan") !=
            std::string::npos);
  }

  void bestFigureOfTheRunList() {
    runlog::RunSummary s;
    QCOMPARE(QString::fromStdString(bestValText(s, false)), QString("-"));
    QCOMPARE(QString::fromStdString(bestValText(s, true)), QString("-"));
    s.bestValTop1 = 72.04;
    QCOMPARE(QString::fromStdString(bestValText(s, false)), QString("72.0 %"));
    s.bestValMap = 0.4134;
    QCOMPARE(QString::fromStdString(bestValText(s, true)), QString("mAP 41.3 %"));
  }
};

QTEST_GUILESS_MAIN(TestRunText)
#include "tst_runtext.moc"
