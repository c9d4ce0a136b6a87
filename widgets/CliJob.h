#pragma once
// One ampstudio-cli call in a child process for a studio panel (the precision audit, predict):
// the call has its own model copy, RNG and thread pool, so a training run of the studio is not
// disturbed, and beside one it runs at lower CPU priority (nice 10) on one thread. The job owns
// what every such panel needs around the call, so the panels only build their arguments and
// read their report: the config files the call reads (a scratch folder), the status line while
// it runs, the parsed JSON it printed, and why it failed. Cancel kills the call at once.
//
//   auto* job = new CliJob(this);
//   connect(job, &CliJob::progress, status, &QLabel::setText);   // "Predicting a.mp4 … 3 s"
//   connect(job, &CliJob::finished, this, [](const CliJob::Result& r) {
//     if (r.ok()) show(r.json()); else say(r.failure());
//   });
//   if (const QString why = job->programMissing(tr("Predict")); !why.isEmpty()) return say(why);
//   QString error;
//   const QString cfg = job->writeConfig(config, "editor-config.yaml", &error);
//   job->start(QStringList{"predict", "--json", "--cfg", cfg} + job->threadArgs(),
//              tr("Predicting %1 …").arg(video));
#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>

#include <nlohmann/json_fwd.hpp>

namespace amp::config {
class Config;
}

namespace amp::widgets {

class CliJob : public QObject {
  Q_OBJECT
 public:
  struct Result {
    bool cancelled = false;
    QString startError;  ///< why the program could not start ("" when it ran)
    bool crashed = false;
    int exitCode = -1;
    QByteArray out;  ///< stdout
    QString err;     ///< stderr, trimmed
    bool ok() const { return !cancelled && startError.isEmpty() && !crashed && exitCode == 0; }
    /// What went wrong, for a status line: the start error, or the last `lines` lines of stderr
    /// (the CLI names the key, file or device there), or the exit code.
    QString failure(int lines = 6) const;
    /// stdout as the JSON a `--json` call prints; is_discarded() when it is none (a call that
    /// failed before printing, or printed a half).
    nlohmann::json json() const;
  };

  explicit CliJob(QObject* parent = nullptr);
  ~CliJob() override;  ///< kills a call still running

  /// ampstudio-cli (default: LaunchedRun::findCli()).
  void setProgram(const QString& cli) { program_ = cli; }
  const QString& program() const { return program_; }
  /// Whether the program exists and is executable.
  bool programFound() const;
  /// "" when the program is found; else the status line saying so, `caller` (e.g. "The audit")
  /// being what runs it.
  QString programMissing(const QString& caller) const;

  /// A training run of this studio is active: calls started now yield the cores to it.
  void setTrainingActive(bool on) { trainingActive_ = on; }
  bool trainingActive() const { return trainingActive_; }
  /// The CLI's options that keep a call on one thread beside a training run ("--threads 1"), or
  /// none; each panel puts them where its command's usage has them.
  QStringList threadArgs() const;

  /// Writes `config` (the editor's, unsaved edits included) as `fileName` in the job's scratch
  /// folder for the call to read; its path, or "" and `error`.
  QString writeConfig(const config::Config& config, const QString& fileName, QString* error);
  /// The config file of the run in `runDir` (its config.yaml, or a PySlowFast run's from its
  /// newest checkpoint, written to the scratch folder), or "" and `error`; `checkpoint` gets its
  /// newest checkpoint ("" for none).
  QString runConfig(const QString& runDir, QString* checkpoint, QString* error);

  /// Starts `program args`, at nice 10 while a training run is active. `running` (e.g. "Auditing
  /// x …") goes to progress() at once and every second after with the seconds so far. False
  /// while a call runs.
  bool start(const QStringList& args, const QString& running);
  void cancel();  ///< finished() follows with cancelled set
  bool busy() const { return process_ && process_->state() != QProcess::NotRunning; }
  qint64 processId() const { return process_ ? process_->processId() : 0; }
  qint64 elapsedMs() const { return elapsed_.isValid() ? elapsed_.elapsed() : 0; }
  const QStringList& lastArguments() const { return lastArgs_; }

 signals:
  /// The status line while a call runs.
  void progress(const QString& status);
  void finished(const amp::widgets::CliJob::Result& result);

 private:
  void onFinished(int exitCode, QProcess::ExitStatus status);
  void tick();

  QString program_;
  std::unique_ptr<QProcess> process_;
  QStringList lastArgs_;
  QElapsedTimer elapsed_;
  bool cancelled_ = false;
  bool trainingActive_ = false;
  QString running_;  ///< the status line of the call in progress, without its seconds
  QTimer ticker_;
  QTemporaryDir scratch_;  ///< config files the calls read; removed with the job
};

}  // namespace amp::widgets
