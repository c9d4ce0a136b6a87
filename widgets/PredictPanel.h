#pragma once
// The studio's Predict tab: classify videos with a checkpoint, as `ampstudio-cli predict` does
// (the multi-view test protocol on each video: TEST.NUM_ENSEMBLE_VIEWS x TEST.NUM_SPATIAL_CROPS
// views combined by DATA.ENSEMBLE_METHOD), showing each video's top-5 classes with their names
// and probabilities and the time it took. The model comes from a config file and a checkpoint:
// a run of the run list (its config, a PySlowFast run's from its checkpoint, and its newest
// checkpoint), or the config in the editor. Runs as `ampstudio-cli predict --json` in a child
// process (CliJob), so a training run is not disturbed. With a detection (AVA) config it lists
// the actions of every person box of a boxes CSV (DEMO.PREDS_BOXES), one row a box, and can write
// the input again with the boxes and their actions drawn (PySlowFast's AVA demo with precomputed
// boxes); inputs may then be folders of frames too. With "Write video" it runs `ampstudio-cli demo`
// on one input instead: the classes of each window sliding over it (a row a window), written into
// the video, which "Play Video…" shows (widgets/VideoPlayer).
#include <QPointer>
#include <QWidget>

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "CliJob.h"
#include "VideoPlayer.h"
#include "config/Config.h"

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTableWidget;

namespace amp::widgets {
class PredictionTable;
}  // namespace amp::widgets

namespace amp::widgets {

class PredictPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PredictPanel(QWidget* parent = nullptr);

  /// Where the editor's config comes from (used when the config field is empty); nullopt: errors.
  void setConfigSource(std::function<std::optional<config::Config>()> source) {
    source_ = std::move(source);
  }
  void setCliPath(const QString& path) { job_->setProgram(path); }
  /// A training run of this studio is active: predictions started now run at nice 10 on one thread.
  void setTrainingActive(bool on) { job_->setTrainingActive(on); }

  /// Takes a run's model: its config (a PySlowFast run's from its newest checkpoint) and its
  /// newest checkpoint. False (and the reason in the status line) when the run has no config.
  bool useRun(const QString& runDir);
  void addVideos(const QStringList& paths);
  void clearVideos();
  QStringList videos() const;
  /// Starts the prediction of every listed video.
  void predict();
  void cancel();
  bool busy() const { return job_->busy(); }
  /// Writes the results as CSV (PredictionTable::exportCsv).
  QString exportCsv(const QString& path) const;
  /// Opens a player on the video the last demo wrote (none: nothing happens).
  void playVideo();
  /// The videos the last prediction wrote; the player playVideo() opened last (may be gone).
  const QStringList& writtenVideos() const { return outputs_; }
  VideoPlayer* lastPlayer() const { return player_; }

  QLineEdit* configEdit() const { return config_; }
  QLineEdit* checkpointEdit() const { return checkpoint_; }
  QLineEdit* labelsEdit() const { return labels_; }
  /// Detection configs: the person boxes (AVA CSV) and the video to write ("" none).
  QLineEdit* boxesEdit() const { return boxes_; }
  QLineEdit* outputEdit() const { return output_; }
  /// Whether the last result was a detection config's (one row a box).
  bool detectionResult() const;
  QTableWidget* table() const;
  QLabel* status() const { return status_; }
  const QStringList& lastArguments() const { return job_->lastArguments(); }
  qint64 processId() const { return job_->processId(); }

 signals:
  /// A prediction ended: shown (ok; some videos may have failed, each says why), failed or
  /// cancelled.
  void finished(bool ok);

 private:
  void onFinished(const CliJob::Result& result);
  void setStatus(const QString& text, bool error = false, bool warning = false);
  void updateButtons();

  std::function<std::optional<config::Config>()> source_;
  CliJob* job_;
  QLineEdit* config_;
  QLineEdit* checkpoint_;
  QLineEdit* labels_;
  QLineEdit* boxes_;
  QLineEdit* output_;
  QListWidget* videos_;
  QPushButton* predictButton_;
  QPushButton* cancelButton_;
  QPushButton* exportButton_;
  QPushButton* playButton_;
  QLabel* status_;
  PredictionTable* table_;
  QString what_;
  QStringList outputs_;
  QPointer<VideoPlayer> player_;
  std::optional<bool> cudaPresent_;
};

}  // namespace amp::widgets
