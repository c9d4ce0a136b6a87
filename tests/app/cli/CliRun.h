#pragma once
// Runs ampstudio-cli for the CLI suites: its exit code (or that it crashed), stdout and stderr.
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

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

}  // namespace amp::testing
