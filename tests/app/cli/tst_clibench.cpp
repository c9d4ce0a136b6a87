// ampstudio-cli bench: precision, engine overhead, step, multigrid and multigrid-time.
#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cmath>
#include <map>
#include <optional>

#include "CliRun.h"

#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"

using amp::testing::configFile;
using amp::testing::makeDemoData;
using amp::testing::runCli;

class TestCliBench : public amp::testing::DemoDataSuite {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY(makeDemoData(data_)); }

  void benchPrecisionOverheadAndMultigrid() {
    const QString data = data_;
    const QStringList dataArgs{"DATA.PATH_TO_DATA_DIR", data, "DATA.PATH_PREFIX", data};
    QTemporaryDir dir;
    // The precision benchmark on the demo's training data: FP32 then BF16, with the ratios.
    auto prec =
        runCli(QStringList{"bench", "precision", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
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
    auto over = runCli(
        QStringList{"bench", "overhead", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"), "--iters",
                    "3", "--warmup", "1", "--rounds", "1", "TRAIN.BATCH_SIZE", "2", "X3D.DIM_C5",
                    "32", "DATA.PATH_TO_DATA_DIR", "/nonexistent-dataset"});
    QCOMPARE(over.exitCode, 0);
    QVERIFY2(over.out.contains("round 1: bare loop ") &&
                 over.out.contains("trainer / bare (median of paired rounds): ") &&
                 over.out.contains("precision bf16"),
             qPrintable(over.out));
    auto accum =
        runCli(QStringList{"bench", "overhead", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                           "SOLVER.GRAD_ACCUM_STEPS", "2"} +
               dataArgs);
    QCOMPARE(accum.exitCode, 1);
    QVERIFY2(accum.err.contains("SOLVER.GRAD_ACCUM_STEPS"), qPrintable(accum.err));
    // bench multigrid: the plain run (16 clips / 2 = 8 steps) against short cycles (batches of
    // 8, 4 and 2 clips: 3 steps), for two seeds, in one invocation; a used --out folder is refused.
    const QString mgOut = dir.path() + "/mgbench";
    auto mg = runCli(
        QStringList{"bench", "multigrid", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"), "--out",
                    mgOut, "--precision", "mixed", "--cycles", "short", "--seeds", "1,2", "--json",
                    "SOLVER.MAX_EPOCH", "1", "TRAIN.BATCH_SIZE", "2", "X3D.DIM_C5", "32"} +
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
                                    configFile("demo/DEMO_X3D_TINY.yaml"), "--out", mgOut} +
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
    auto j =
        runCli(QStringList{"bench", "multigrid-time", "--cfg",
                           configFile("demo/DEMO_X3D_TINY_stepwise_multigrid.yaml"), "--samples",
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
                                configFile("demo/DEMO_X3D_TINY_stepwise.yaml"), "--cycles", "short",
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
                                   configFile("demo/DEMO_X3D_TINY_stepwise_multigrid.yaml")} +
                       tiny);
    QCOMPARE(none.exitCode, 2);
    QVERIFY2(none.err.contains("/nonexistent-dataset") && none.err.contains("pass --samples N"),
             qPrintable(none.err));
    auto few = runCli(QStringList{"bench", "multigrid-time", "--cfg",
                                  configFile("demo/DEMO_X3D_TINY_stepwise_multigrid.yaml"),
                                  "--samples", "4"} +
                      tiny);
    QCOMPARE(few.exitCode, 2);
    QVERIFY2(few.err.contains("4 training clips over 1 process make no whole batch"),
             qPrintable(few.err));
    // 32 clips are 4 plain steps an epoch, but multigrid's first phase needs 64: training would
    // stop there.
    auto short32 = runCli(QStringList{"bench", "multigrid-time", "--cfg",
                                      configFile("demo/DEMO_X3D_TINY_stepwise_multigrid.yaml"),
                                      "--samples", "32"} +
                          tiny);
    QCOMPARE(short32.exitCode, 2);
    QVERIFY2(short32.err.contains("multigrid phase 0 makes no whole batch of 32 clips per process"),
             qPrintable(short32.err));
    auto accum = runCli(QStringList{"bench", "multigrid-time", "--cfg",
                                    configFile("demo/DEMO_X3D_TINY_stepwise_multigrid.yaml"),
                                    "--samples", "64", "SOLVER.GRAD_ACCUM_STEPS", "2"} +
                        tiny);
    QCOMPARE(accum.exitCode, 2);
    QVERIFY2(accum.err.contains(
                 "SOLVER.GRAD_ACCUM_STEPS 2: the estimate prices one batch per optimizer step"),
             qPrintable(accum.err));
  }

  void benchStepComparesPrecisions() {
    auto r = runCli({"bench", "step", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"), "--batch",
                     "2", "--iterations", "1", "--warmup", "0", "X3D.DIM_C5", "32"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(
        r.out.contains("\nfp32 ") && r.out.contains("\nbf16 ") && r.out.contains("bf16 / fp32:"),
        qPrintable(r.out));
    // The step split into forward and backward: both measured, together within the step.
    auto split = runCli({"bench", "step", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"), "--batch",
                         "2", "--iterations", "1", "--warmup", "0", "--precision", "fp32", "--json",
                         "X3D.DIM_C5", "32"});
    QCOMPARE(split.exitCode, 0);
    const auto sj = QJsonDocument::fromJson(split.out.toUtf8()).object();
    const double stepS = sj["median_step_s"].toDouble(), fwdS = sj["median_forward_s"].toDouble(),
                 bwdS = sj["median_backward_s"].toDouble();
    QVERIFY2(fwdS > 0 && bwdS > 0 && fwdS + bwdS <= stepS, qPrintable(split.out));
    // With and without MODEL.ACT_CHECKPOINT: the ratios and what the recomputation cost.
    auto ckpt = runCli({"bench", "step", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"), "--batch",
                        "2", "--iterations", "1", "--warmup", "0", "--precision", "fp32",
                        "--act-checkpoint", "both", "X3D.DIM_C5", "32"});
    QCOMPARE(ckpt.exitCode, 0);
    QVERIFY2(ckpt.out.contains("\nfp32+ckpt ") &&
                 ckpt.out.contains("fp32 with / without activation checkpointing: ") &&
                 ckpt.out.contains("  fp32: backward ") &&
                 ckpt.out.contains("x the forward; forward is "),
             qPrintable(ckpt.out));
    auto fp16 = runCli(
        {"bench", "step", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"), "--precision", "fp16"});
    QCOMPARE(fp16.exitCode, 1);
    QVERIFY2(fp16.err.contains("AMP.DTYPE: float16 mixed precision needs CUDA"),
             qPrintable(fp16.err));
    // Without --batch: the config's TRAIN.BATCH_SIZE.
    auto dflt = runCli({"bench", "step", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                        "--precision", "bf16", "--iterations", "1", "--warmup", "0", "X3D.DIM_C5",
                        "32", "TRAIN.BATCH_SIZE", "3"});
    QCOMPARE(dflt.exitCode, 0);
    QVERIFY2(dflt.out.contains("batch 3,"), qPrintable(dflt.out));
    // One clip cannot train the demo's batch-normalised X3D head: said in one line, no LibTorch
    // backtrace.
    auto one = runCli({"bench", "step", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"), "--batch",
                       "1", "--precision", "bf16"});
    QCOMPARE(one.exitCode, 1);
    QVERIFY2(one.err.contains("--batch 1: X3D.BN_LIN5") && !one.err.contains("frame #"),
             qPrintable(one.err));
  }
};

QTEST_GUILESS_MAIN(TestCliBench)
#include "tst_clibench.moc"
