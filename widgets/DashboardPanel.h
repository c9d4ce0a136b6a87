#pragma once
// The live dashboard of one run: loss, accuracy, memory, loss scale (log2, with skipped steps
// and backoffs marked), learning rate, grad norm, throughput and iteration time, plus the run's
// messages. Fed with metric events (from the engine through TrainingController, or from a
// metrics.jsonl another process is writing); it replots at most once per appendEvents call.
#include <QWidget>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "runlog/MetricsReader.h"
#include "runlog/RunRecord.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QSlider;
class QTimer;

namespace amp::widgets {

class MetricChart;

class DashboardPanel : public QWidget {
  Q_OBJECT
 public:
  enum class XAxis { Step, Epoch, Time };

  explicit DashboardPanel(QWidget* parent = nullptr);
  ~DashboardPanel() override;

  /// Starts showing a new run (clears the charts).
  void beginRun(const QString& title);
  /// Adds events and updates the charts once.
  void appendEvents(const std::vector<runlog::MetricEvent>& events);
  /// "Running", "Finished", "Failed: ..." in the header; `error` is shown in full when failed.
  void setRunState(const QString& state, const QString& error = {});

  /// The run is multi-label (DATA.MULTI_LABEL; run.json's multi_label): the accuracy chart shows
  /// mean average precision before a `map` value arrives. beginRun() forgets it; a val or test
  /// event with `map` says it too.
  void setMultiLabel(bool on);

  /// Shows a run directory, following its metrics.jsonl while its run.json says running.
  bool openRunDirectory(const QString& dir, QString* error);
  QString followedDirectory() const { return followedDir_; }

  void setXAxis(XAxis axis);
  XAxis xAxis() const { return xAxis_; }
  void setSmoothing(double alpha);  ///< EMA weight of the past, 0 (none) .. 0.999
  double smoothing() const { return smoothing_; }
  void setLogY(bool on);

  const runlog::RunRecord& record() const { return record_; }
  const std::vector<MetricChart*>& charts() const { return charts_; }
  /// The chart with this id ("loss", "accuracy", "memory", "loss_scale", "learning_rate",
  /// "gradient_norm", "throughput", "iteration_time"); nullptr for another.
  MetricChart* chart(const QString& id) const;
  /// True while the "accuracy" chart shows mean average precision: the run is multi-label (its
  /// run.json says so, or a val or test event brought `map`).
  bool showsMeanAveragePrecision() const { return showsMap_; }
  QListWidget* messages() const { return messages_; }
  /// What the message list calls an event of the metrics log ("precise_bn": "Precise BN").
  static QString eventTitle(const std::string& name);
  QString stateText() const;

  /// Writes the run's metrics as CSV. False with `error`.
  bool exportCsv(const QString& path, QString* error) const;
  /// Every chart as PNG or PDF files (by suffix) into `folder`. Returns the paths written.
  QStringList exportCharts(const QString& folder, const QString& suffix) const;

 signals:
  void followingChanged(bool on);

 private:
  struct Binding;
  void buildCharts();
  void rebuild();  ///< every chart from the record (axis, smoothing or data removed)
  void updateCharts();
  void addNotable(const runlog::MetricEvent& e);
  void showMultiLabel(bool multiLabel);  ///< the accuracy chart (mAP) and the loss's axis
  struct Repeated {
    QListWidgetItem* item = nullptr;  ///< the message's one row in the list
    int count = 0;
    std::int64_t firstStep = 0;
  };
  std::map<QString, Repeated> repeated_;  ///< by event name and message
  double xOf(const runlog::MetricEvent& e) const;
  void pollFollowed();

  runlog::RunRecord record_;
  std::vector<MetricChart*> charts_;
  std::vector<std::unique_ptr<Binding>> bindings_;
  int backoffSeries_ = -1;        ///< loss scale chart: the backoff events' markers
  int decodeFailureSeries_ = -1;  ///< loss chart: the decode failures' markers
  std::size_t notableDone_ = 0;
  std::size_t scaleChecked_ = 0;  ///< train loss_scale points looked at for the note
  bool scaleVaries_ = false;      ///< some step had a loss scale other than 1
  std::uint64_t generation_ = 0;
  bool multiLabelSaid_ = false;  ///< setMultiLabel: run.json or the config says so
  bool showsMap_ = false;        ///< the accuracy chart is titled mAP
  XAxis xAxis_ = XAxis::Step;
  double smoothing_ = 0.9;
  bool logY_ = false;
  QLabel* title_;
  QLabel* state_;
  QComboBox* xCombo_;
  QCheckBox* logCheck_;
  QCheckBox* followCheck_;
  QSlider* smoothSlider_;
  QLabel* smoothLabel_;
  QListWidget* messages_;
  QString followedDir_;
  std::unique_ptr<runlog::MetricsReader> reader_;
  QTimer* followTimer_;
  int followTicks_ = 0;
};

}  // namespace amp::widgets
