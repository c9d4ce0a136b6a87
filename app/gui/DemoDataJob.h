#pragma once
// Writes the demo dataset (data::generateDemoData) on Qt's thread pool while the studio's event
// loop goes on, reporting progress and the outcome as signals. Seconds of video encoding must
// neither freeze the window nor run inside a nested event loop, where a closed window or a
// second request re-enters code that is still on the stack.
//
//   auto* job = new DemoDataJob(window);
//   connect(job, &DemoDataJob::progressed, dialog, &QProgressDialog::setValue);
//   connect(job, &DemoDataJob::finished, window, [=](bool ok) { ok ? train() : warn(job->error());
//   }); if (!DemoDataJob::isCurrent(dir)) job->start(dir);
//
// Deleting the job (its window closed) does not wait: the write finishes on its pool thread,
// which touches nothing but its own copies, and its outcome is dropped. QCoreApplication waits
// for the pool before the process ends, so the files are complete either way.
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <string>

#include "data/DemoDataGenerator.h"

namespace amp::gui {

class DemoDataJob : public QObject {
  Q_OBJECT
 public:
  explicit DemoDataJob(QObject* parent = nullptr);

  /// True when `dir` holds a demo dataset of `format` written by this generator version.
  static bool isCurrent(const QString& dir, data::DemoFormat format = data::DemoFormat::Kinetics);

  /// Empties `dir` and starts writing the dataset there in `format` (`clipsPerClass` training
  /// clips per class; tests take fewer). False, changing nothing, while a write is running.
  bool start(const QString& dir, int clipsPerClass = data::DemoDataOptions{}.clips_per_class,
             data::DemoFormat format = data::DemoFormat::Kinetics);
  /// From start() until `finished` is emitted (not until the pool thread returns: its outcome
  /// is not ours until the signal says so).
  bool isRunning() const { return running_; }

  /// The folder of the last start, and the outcome of the last finished write.
  QString dir() const { return dir_; }
  QString error() const { return QString::fromStdString(result_.error); }
  const data::DemoDataSummary& summary() const { return result_.summary; }

 signals:
  void progressed(int percent);
  /// The write ended; false with error() when it failed.
  void finished(bool ok);

 private:
  struct Result {
    bool ok = false;
    std::string error;
    data::DemoDataSummary summary;
  };
  QFutureWatcher<Result> watcher_;
  Result result_;
  QString dir_;
  bool running_ = false;
};

}  // namespace amp::gui
