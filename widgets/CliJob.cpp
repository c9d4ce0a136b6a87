#include "CliJob.h"

#include <QFileInfo>

#include <unistd.h>

#include "LaunchedRun.h"

namespace amp::widgets {

QString CliJob::Result::failure(int lines) const {
  if (cancelled) return QObject::tr("cancelled");
  if (!startError.isEmpty()) return startError;
  QStringList tail = err.split('\n', Qt::SkipEmptyParts);
  while (tail.size() > lines) tail.removeFirst();
  if (!tail.isEmpty()) return tail.join('\n');
  return crashed ? QObject::tr("ampstudio-cli crashed")
                 : QObject::tr("ampstudio-cli ended with code %1").arg(exitCode);
}

CliJob::CliJob(QObject* parent) : QObject(parent), program_(LaunchedRun::findCli()) {}

CliJob::~CliJob() {
  if (busy()) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(5000);
  }
}

bool CliJob::programFound() const {
  return !program_.isEmpty() && QFileInfo(program_).isExecutable();
}

bool CliJob::start(const QStringList& args, bool yieldCores) {
  if (busy()) return false;
  lastArgs_ = args;
  cancelled_ = false;
  process_ = std::make_unique<QProcess>();
  process_->setProgram(program_);
  process_->setArguments(args);
  if (yieldCores) process_->setChildProcessModifier([] { (void)::nice(10); });
  connect(process_.get(), &QProcess::finished, this, &CliJob::onFinished);
  connect(process_.get(), &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) onFinished(-1, QProcess::CrashExit);
  });
  elapsed_.start();
  process_->start();
  return true;
}

void CliJob::cancel() {
  if (!busy()) return;
  cancelled_ = true;
  process_->kill();  // onFinished reports it
}

void CliJob::onFinished(int exitCode, QProcess::ExitStatus status) {
  Result r;
  r.cancelled = cancelled_;
  r.startError = process_->error() == QProcess::FailedToStart
                     ? program_ + ": " + process_->errorString()
                     : QString();
  r.crashed = status != QProcess::NormalExit;
  r.exitCode = exitCode;
  r.out = process_->readAllStandardOutput();
  r.err = QString::fromUtf8(process_->readAllStandardError()).trimmed();
  // Released after this slot returns (deleting a QProcess inside its own signal is not allowed).
  process_.release()->deleteLater();
  emit finished(r);
}

}  // namespace amp::widgets
