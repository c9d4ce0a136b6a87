#pragma once
// One ampstudio-cli call in a child process for a studio panel (the precision audit, predict):
// the call has its own model copy, RNG and thread pool, so a training run of the studio is not
// disturbed, and beside one it runs at lower CPU priority (nice 10). The panel gets one signal
// with everything the call printed; Cancel kills it at once.
#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QStringList>

#include <memory>

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
  };

  explicit CliJob(QObject* parent = nullptr);
  ~CliJob() override;  ///< kills a call still running

  /// ampstudio-cli (default: LaunchedRun::findCli()).
  void setProgram(const QString& cli) { program_ = cli; }
  const QString& program() const { return program_; }
  /// Whether the program exists and is executable.
  bool programFound() const;
  /// Starts `program args`; `yieldCores` runs it at nice 10. False while a call runs.
  bool start(const QStringList& args, bool yieldCores);
  void cancel();  ///< finished() follows with cancelled set
  bool busy() const { return process_ && process_->state() != QProcess::NotRunning; }
  qint64 processId() const { return process_ ? process_->processId() : 0; }
  qint64 elapsedMs() const { return elapsed_.isValid() ? elapsed_.elapsed() : 0; }
  const QStringList& lastArguments() const { return lastArgs_; }

 signals:
  void finished(const amp::widgets::CliJob::Result& result);

 private:
  void onFinished(int exitCode, QProcess::ExitStatus status);

  QString program_;
  std::unique_ptr<QProcess> process_;
  QStringList lastArgs_;
  QElapsedTimer elapsed_;
  bool cancelled_ = false;
};

}  // namespace amp::widgets
