#include "LaunchedRun.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <signal.h>

#include <cmath>

#include "configfile/ConfigWriter.h"
#include "runlog/RunDirectory.h"

namespace amp::widgets {

LaunchedRun::LaunchedRun(QString cliPath, config::Config cfg, QString configSource)
    : cliPath_(std::move(cliPath)), cfg_(std::move(cfg)), configSource_(std::move(configSource)) {
  runDir_ = QString::fromStdString(cfg_.getString("OUTPUT_DIR"));
}

LaunchedRun::~LaunchedRun() {
  if (process_ && process_->state() != QProcess::NotRunning) {
    stop();
    if (!process_->waitForFinished(60000)) process_->kill();
    process_->waitForFinished();
  }
}

QString LaunchedRun::findCli() {
  if (const QByteArray env = qgetenv("AMPSTUDIO_CLI"); !env.isEmpty())
    return QString::fromLocal8Bit(env);
  const QString dir = QCoreApplication::applicationDirPath();
  for (const QString& candidate :
       {dir + "/ampstudio-cli", dir + "/../cli/ampstudio-cli", dir + "/../app/cli/ampstudio-cli"})
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
  return {};
}

bool LaunchedRun::start(QString* error) {
  if (cliPath_.isEmpty() || !QFileInfo(cliPath_).isExecutable()) {
    if (error)
      *error = QStringLiteral(
          "multi-process training runs ampstudio-cli, which was not found beside the studio "
          "(set AMPSTUDIO_CLI to its path)");
    return false;
  }
  runlog::RunDirectory dir(runDir_.toStdString());
  if (std::string why; !dir.ensureExists(&why)) {
    if (error) *error = QString::fromStdString("OUTPUT_DIR: " + why);
    return false;
  }
  if (!scratch_.isValid()) {
    if (error)
      *error = QStringLiteral("cannot create a temporary folder: ") + scratch_.errorString();
    return false;
  }
  // The launcher trains from a file: the resolved config.
  const QString configPath = scratch_.filePath("config.yaml");
  if (std::string why; !config::saveConfigFile(cfg_, configPath.toStdString(), &why)) {
    if (error) *error = QString::fromStdString(why);
    return false;
  }
  reader_ = std::make_unique<runlog::MetricsReader>(dir.metricsPath());
  reader_->poll();  // a resumed run's history is already shown; follow from here
  process_ = std::make_unique<QProcess>();
  // Progress goes to the run's log.txt and metrics; a pipe nobody reads would stall rank 0.
  process_->setStandardOutputFile(QProcess::nullDevice());
  process_->setStandardErrorFile(scratch_.filePath("launcher.err"));
  // The ranks meet through a fresh file: no port to choose or collide on.
  QStringList args = {"train", "--cfg", configPath, "--init-method",
                      "file://" + scratch_.filePath("rendezvous")};
  if (!configSource_.isEmpty()) args << "--source" << configSource_;
  launchedAt_ = runlog::unixTimeNow();
  process_->start(cliPath_, args);
  if (!process_->waitForStarted(10000)) {
    if (error) *error = "cannot start " + cliPath_ + ": " + process_->errorString();
    return false;
  }
  progress_.max_epoch = static_cast<int>(cfg_.getInt("SOLVER.MAX_EPOCH"));
  state_ = train::TrainerState::Running;
  return true;
}

void LaunchedRun::signalLauncher(int sig) {
  if (process_ && process_->state() == QProcess::Running)
    ::kill(static_cast<pid_t>(process_->processId()), sig);
}

void LaunchedRun::pause() {
  signalLauncher(SIGUSR1);
  if (state_ == train::TrainerState::Running) state_ = train::TrainerState::Paused;
}

void LaunchedRun::resume() {
  signalLauncher(SIGUSR2);
  if (state_ == train::TrainerState::Paused) state_ = train::TrainerState::Running;
}

void LaunchedRun::stop() {
  signalLauncher(SIGINT);
}

void LaunchedRun::wait() {
  if (process_) process_->waitForFinished(-1);
}

std::vector<runlog::MetricEvent> LaunchedRun::poll() {
  if (!reader_) return {};
  const bool ended =
      process_ && process_->state() == QProcess::NotRunning &&
      (state_ == train::TrainerState::Running || state_ == train::TrainerState::Paused);
  auto events = ended ? reader_->pollFinal() : reader_->poll();
  for (const auto& e : events) {
    if (e.kind == runlog::kind::kEvent &&
        e.name == "shape_change") {  // multigrid: this phase's pace, the run's steps
      progress_.steps_per_epoch =
          static_cast<std::int64_t>(e.value("iterations_per_epoch").value_or(0));
      progress_.total_steps = static_cast<std::int64_t>(e.value("run_steps").value_or(0));
      multigrid_ = true;
      continue;
    }
    if (e.kind != runlog::kind::kTrain) continue;
    progress_.step = e.step;
    progress_.epoch = static_cast<int>(std::ceil(e.epoch - 1e-9)) - 1;
    if (e.epoch > 0 && progress_.steps_per_epoch == 0 && !multigrid_ &&
        std::abs(e.epoch - std::round(e.epoch)) < 1e-9)
      progress_.steps_per_epoch =
          static_cast<std::int64_t>(std::llround(static_cast<double>(e.step) / e.epoch));
    progress_.last_loss = e.value("loss").value_or(progress_.last_loss);
  }
  if (ended) finish();
  return events;
}

void LaunchedRun::finish() {
  std::string why;
  auto meta = runlog::RunDirectory(runDir_.toStdString()).readMetadata(&why);
  if (meta && meta->startedAt < launchedAt_ - 1.0)
    meta.reset();  // the folder's earlier run: this one never started
  const int code = process_->exitStatus() == QProcess::NormalExit ? process_->exitCode() : -1;
  if (meta && meta->status == runlog::RunStatus::Finished && code == 0) {
    state_ = train::TrainerState::Finished;
  } else if (meta && meta->status == runlog::RunStatus::Stopped) {
    state_ = train::TrainerState::Stopped;
  } else {
    state_ = train::TrainerState::Failed;
    // The run's own reason first; else what the launcher said (e.g. a rank that never started).
    QFile err(scratch_.filePath("launcher.err"));
    const QString said =
        err.open(QIODevice::ReadOnly) ? QString::fromUtf8(err.readAll()).trimmed() : QString();
    error_ = meta && !meta->error.empty() ? QString::fromStdString(meta->error) : said;
    if (error_.isEmpty())
      error_ = QStringLiteral("ampstudio-cli train ended with code %1").arg(code);
  }
}

}  // namespace amp::widgets
