#pragma once
// The Analysis tab's confusion matrix: a QCustomPlot colour map of each true class's (row's)
// shares of predictions, matplotlib's Blues as PySlowFast's figure, class names on both axes.
// Readable at 400 classes: the axes name every k-th class so that names never overlap, and the
// wheel zooms (the drag pans) into the cells until every name and, when few enough are shown,
// every cell's share is printed. A click on a cell says which (true, predicted) pair it was; the
// hovered cell's counts are in the tooltip. The data is the caller's (rates and counts, row-major):
// the widget only draws it.
//
//   auto* map = new ConfusionHeatMap;
//   map->setMatrix({"walk", "run"}, {1.0, 0.0, 0.5, 0.5}, {4, 0, 2, 2});
//   connect(map, &ConfusionHeatMap::cellClicked, this, [](int row, int col) { ... });
//   map->exportTo("confusion.pdf");
#include <QPoint>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <vector>

class QCPColorMap;
class QCPItemRect;
class QCustomPlot;
class QMouseEvent;

namespace amp::widgets {

class ConfusionHeatMap : public QWidget {
  Q_OBJECT
 public:
  /// Cells show their share as text when at most this many classes are in view.
  static constexpr int kMaxCellTexts = 24;

  explicit ConfusionHeatMap(QWidget* parent = nullptr);

  /// `names.size()` classes; `rates` and `counts` are names.size()² row-major (rows: true class).
  void setMatrix(const QStringList& names, const std::vector<double>& rates,
                 const std::vector<std::int64_t>& counts);
  int classes() const { return static_cast<int>(names_.size()); }
  /// Marks cell (row, col) (-1: none) without telling the listeners.
  void selectCell(int row, int col);
  /// Shows all classes again (a double click does the same).
  void resetView();
  /// Zooms to `span` classes around (row, col): what a click on a list's pair shows.
  void focusCell(int row, int col, int span = 12);

  /// The cell under a widget position, or {-1, -1}.
  std::pair<int, int> cellAt(const QPoint& pos) const;
  /// The axes' labels as drawn now (tests: how many names fit).
  int visibleNames() const;
  int cellTexts() const;  ///< shares printed in cells now
  bool exportTo(const QString& path, int width = 0, int height = 0);  ///< .png or .pdf by suffix
  QCustomPlot* plot() const { return plot_; }

 signals:
  void cellClicked(int row, int col);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void rangesChanged();
  void updateCellTexts();
  QCustomPlot* plot_;
  QCPColorMap* map_ = nullptr;
  QCPItemRect* selection_ = nullptr;
  QStringList names_;
  std::vector<double> rates_;
  std::vector<std::int64_t> counts_;
  bool adjusting_ = false;
  QPoint pressed_;  ///< where the mouse went down: a release near it is a click
};

}  // namespace amp::widgets
