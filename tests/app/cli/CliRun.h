#pragma once
// Runs ampstudio-cli for the CLI suites: its exit code (or that it crashed), stdout and stderr;
// and what several suites run it on (the repository's configs, the demo dataset).
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QtGlobal>
#include <utility>

#include "support/Configs.h"

namespace amp::testing {

struct CliResult {
  int exitCode = -1;
  bool crashed = false;  ///< ended by a signal (or killed at the timeout)
  QString out, err;
};

struct CliOptions {
  int timeoutMs = 240000;  ///< then it is killed
  QString workDir;         ///< "" : the test's
  QStringList env;         ///< extra "NAME=value" entries
};

inline CliResult runCli(const QStringList& args, const CliOptions& options = {}) {
  QProcess p;
  if (!options.workDir.isEmpty()) p.setWorkingDirectory(options.workDir);
  if (!options.env.isEmpty()) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& kv : options.env) env.insert(kv.section('=', 0, 0), kv.section('=', 1));
    p.setProcessEnvironment(env);
  }
  p.start(AMPSTUDIO_CLI_PATH, args);
  if (!p.waitForFinished(options.timeoutMs)) {
    p.kill();
    p.waitForFinished();
  }
  return {p.exitCode(), p.exitStatus() == QProcess::CrashExit,
          QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

/// runCli for the suites that train over two processes on 2 cores: killed after 3 minutes.
inline CliResult runTrainingCli(const QStringList& args) {
  CliOptions o;
  o.timeoutMs = 180000;
  return runCli(args, o);
}

/// A config of the repository's configs/ folder, e.g. "demo/DEMO_X3D_TINY.yaml".
inline QString configFile(const char* rel) {
  return QString(AMPSTUDIO_SOURCE_DIR) + "/configs/" + rel;
}

/// values.<value> of every `kind` record ("val", "test" ...) of RUN/metrics.jsonl, in order.
inline QList<double> recordValues(const QString& run, const QString& kind, const QString& value) {
  QList<double> out;
  QFile f(run + "/metrics.jsonl");
  if (!f.open(QIODevice::ReadOnly)) return out;
  for (const QByteArray& line : f.readAll().split('\n')) {
    const QJsonObject o = QJsonDocument::fromJson(line).object();
    if (o.value("kind").toString() == kind) out << o.value("values")[value].toDouble(-1);
  }
  return out;
}

/// The run's last `per_class` line of `split` read with Qt's JSON (a second reader of the format):
/// its class count and the mean of its numeric class values (the "nan" of a class without an AP
/// left out, as get_map and AVA's nanmean leave it), which the evaluation's `map` must equal;
/// {0, -1} when the run has no such line.
inline std::pair<int, double> perClassMean(const QString& run, const QString& split) {
  std::pair<int, double> out{0, -1.0};
  QFile f(run + "/metrics.jsonl");
  if (!f.open(QIODevice::ReadOnly)) return out;
  for (const QByteArray& line : f.readAll().split('\n')) {
    const QJsonObject o = QJsonDocument::fromJson(line).object();
    if (o.value("kind").toString() != "per_class" || o.value("split").toString() != split) continue;
    const QJsonArray values = o.value("class_values").toArray();
    double sum = 0;
    int n = 0;
    for (const QJsonValue& v : values)
      if (v.isDouble()) sum += v.toDouble(), ++n;
    out = {static_cast<int>(o.value("classes").toArray().size()), n ? sum / n : -1.0};
  }
  return out;
}

/// KEY VALUE pairs for one epoch of `train` that changes nothing in the weights of `checkpoint`
/// (learning rate 0 from the first step, batch norms frozen, no test): its validation scores those
/// weights, so runs on different numbers of processes can be compared.
inline QStringList stillTrainingOverrides(const QString& checkpoint) {
  return {"TRAIN.CHECKPOINT_FILE_PATH",
          checkpoint,
          "TRAIN.CHECKPOINT_EPOCH_RESET",
          "True",
          "SOLVER.LR_POLICY",
          "steps_with_relative_lrs",
          "SOLVER.STEPS",
          "[0]",
          "SOLVER.LRS",
          "[1]",
          "SOLVER.BASE_LR",
          "0",
          "SOLVER.WARMUP_EPOCHS",
          "0",
          "MODEL.FROZEN_BN",
          "True",
          "SOLVER.MAX_EPOCH",
          "1",
          "TEST.ENABLE",
          "False"};
}

/// `ampstudio-cli train` on the demo config and the demo dataset in `data`, writing to `out`,
/// shrunk as testsupport::demoTraining(); a suite appends its own KEY VALUE pairs.
inline QStringList demoTrainArgs(const QString& out, const QString& data) {
  QStringList args{"train", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml")};
  args << "OUTPUT_DIR" << out << "DATA.PATH_TO_DATA_DIR" << data << "DATA.PATH_PREFIX" << data;
  for (const auto& v : testsupport::demoTraining()) args << QString::fromStdString(v);
  return args;
}

/// The demo dataset of 16 clips per split (2 per class, seed 5) the data, train and bench tests
/// use, written into `out`; false, with what the CLI said, when it was not.
inline bool makeDemoData(const QString& out) {
  auto made = runCli({"make-demo-data", "--out", out, "--clips-per-class", "2", "--seed", "5"});
  if (made.exitCode == 0 && made.out.contains("Wrote 16 train, 16 val, 16 test clips")) return true;
  qWarning("make-demo-data: %s%s", qPrintable(made.out), qPrintable(made.err));
  return false;
}

/// The fixture of the suites that run on the demo dataset: a temporary folder, and where in it
/// the suite's initTestCase has makeDemoData(data_) write the data.
class DemoDataSuite : public QObject {
 protected:
  QTemporaryDir dir_;
  QString data_ = dir_.path() + "/demo";
};

}  // namespace amp::testing
