#include "CliJob.h"

#include <QFileInfo>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "LaunchedRun.h"
#include "checkpoint/ImportedRun.h"
#include "configfile/ConfigLoader.h"
#include "configfile/ConfigWriter.h"
#include "runlog/CheckpointFiles.h"

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

nlohmann::json CliJob::Result::json() const {
  return nlohmann::json::parse(out.constData(), out.constData() + out.size(), nullptr, false);
}

CliJob::CliJob(QObject* parent) : QObject(parent), program_(LaunchedRun::findCli()) {
  ticker_.setInterval(1000);
  connect(&ticker_, &QTimer::timeout, this, &CliJob::tick);
}

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

QString CliJob::programMissing(const QString& caller) const {
  if (programFound()) return {};
  return tr("%1 runs ampstudio-cli, which was not found beside the studio (set AMPSTUDIO_CLI to "
            "its path).")
      .arg(caller);
}

QStringList CliJob::threadArgs() const {
  if (!trainingActive_) return {};
  return {"--threads", "1"};
}

QString CliJob::writeConfig(const config::Config& config, const QString& fileName, QString* error) {
  if (!scratch_.isValid()) {
    *error = tr("Cannot create a temporary folder: %1").arg(scratch_.errorString());
    return {};
  }
  const QString path = scratch_.filePath(fileName);
  if (std::string why; !config::saveConfigFile(config, path.toStdString(), &why)) {
    *error = QString::fromStdString(why);
    return {};
  }
  return path;
}

QString CliJob::runConfig(const QString& runDir, QString* checkpoint, QString* error) {
  if (!scratch_.isValid()) {
    *error = tr("Cannot create a temporary folder: %1").arg(scratch_.errorString());
    return {};
  }
  std::string why;
  const QString cfg = QString::fromStdString(
      checkpoint::runConfigFile(runDir.toStdString(), scratch_.path().toStdString(), &why));
  if (cfg.isEmpty()) {
    *error = QString::fromStdString(why);
    return {};
  }
  // A run with a TASK names its checkpoints after it (ssl_eval_k400_checkpoint_epoch_*.pyth).
  const auto loaded = config::ConfigLoader().loadFile(cfg.toStdString());
  const std::string task = loaded.ok() ? loaded.config.getString("TASK") : std::string();
  *checkpoint = QString::fromStdString(runlog::latestCheckpointFile(runDir.toStdString(), task));
  return cfg;
}

bool CliJob::start(const QStringList& args, const QString& running) {
  if (busy()) return false;
  lastArgs_ = args;
  cancelled_ = false;
  running_ = running;
  // Said before the process starts: a program that cannot start reports at once, and that
  // message must stay.
  emit progress(running_);
  process_ = std::make_unique<QProcess>();
  process_->setProgram(program_);
  process_->setArguments(args);
  if (trainingActive_) process_->setChildProcessModifier([] { (void)::nice(10); });
  connect(process_.get(), &QProcess::finished, this, &CliJob::onFinished);
  connect(process_.get(), &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) onFinished(-1, QProcess::CrashExit);
  });
  elapsed_.start();
  ticker_.start();
  process_->start();
  return true;
}

void CliJob::cancel() {
  if (!busy()) return;
  cancelled_ = true;
  process_->kill();  // onFinished reports it
}

void CliJob::tick() {
  emit progress(tr("%1 %2 s%3")
                    .arg(running_, QString::number(elapsedMs() / 1000),
                         trainingActive_
                             ? tr(" (beside the training run: lower priority, one thread)")
                             : QString()));
}

void CliJob::onFinished(int exitCode, QProcess::ExitStatus status) {
  ticker_.stop();
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
