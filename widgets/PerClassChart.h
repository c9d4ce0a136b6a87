#pragma once
// The Per class tab's bar chart: for the classes at the top of the table (as sorted and
// filtered), each run's AP difference from the baseline in percentage points, one bar colour per
// run, so the classes a change of precision moved most stand out at a glance.
//
//   auto* chart = new PerClassChart;
//   chart->showBars({"12 stand", "1 bend/bow"},
//                   {{"amp", Qt::red, {-30.0, 5.0}}});  // points; NaN: no bar
//   chart->barCount();  // 2
#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

class QCPBarsGroup;
class QCustomPlot;

namespace amp::widgets {

class PerClassChart : public QWidget {
  Q_OBJECT
 public:
  /// The classes the chart shows at most: more bars than this are unreadable at a tab's size.
  static constexpr int kMaxClasses = 30;
  struct Bars {
    QString run;
    QColor color;
    std::vector<double> points;  ///< per class, in `classes` order; NaN draws no bar
  };
  explicit PerClassChart(QWidget* parent = nullptr);
  /// Draws `bars` over `classes` (the first kMaxClasses of them), left to right.
  void showBars(const QStringList& classes, const std::vector<Bars>& bars);
  /// Bars drawn, over all runs (tests).
  int barCount() const;
  /// What the differences are of: "AP" (multi-label, AVA) or "Top-1" (single-label accuracy).
  void setMetric(const QString& metric);
  QCustomPlot* plot() const { return plot_; }

 private:
  QCustomPlot* plot_;
  QCPBarsGroup* group_;  ///< puts the runs' bars of a class side by side
};

}  // namespace amp::widgets
