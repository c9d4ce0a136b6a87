#include "ParallelCoordinates.h"

#include <qcustomplot.h>

#include <QMouseEvent>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace amp::widgets {

namespace {

constexpr double kAxisGrab = 0.2;  // how far from an axis (in axis spacings) a drag brushes it

QString shortNumber(double v) {
  return QString::number(v, 'g', 4);
}

}  // namespace

ParallelCoordinates::ParallelCoordinates(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  // The axes are drawn as items; QCustomPlot's own only place them.
  plot_->xAxis->setVisible(false);
  plot_->yAxis->setVisible(false);
  plot_->yAxis->setRange(-0.06, 1.06);
  plot_->axisRect()->setAutoMargins(QCP::msLeft | QCP::msRight | QCP::msBottom);
  plot_->axisRect()->setMargins(QMargins(0, 26, 0, 0));  // the axis titles above
  plot_->setToolTip(tr("Drag along an axis to select the runs in a range; click an axis to clear"));
  connect(plot_, &QCustomPlot::mousePress, this, &ParallelCoordinates::mousePress);
  connect(plot_, &QCustomPlot::mouseMove, this, &ParallelCoordinates::mouseMove);
  connect(plot_, &QCustomPlot::mouseRelease, this, &ParallelCoordinates::mouseRelease);
}

void ParallelCoordinates::setTable(const runlog::HParamTable& table,
                                   const std::vector<QColor>& colours, int metric) {
  axes_.clear();
  brushes_.clear();
  marked_.clear();
  colours_ = colours;
  const int runs = table.runCount();
  auto addAxis = [&](const QString& title, bool log,
                     const std::function<std::optional<double>(int)>& number,
                     const std::function<QString(int)>& text) {
    Axis a;
    a.title = title;
    a.log = log;
    a.at.resize(static_cast<std::size_t>(runs));
    bool numeric = true;
    double lo = INFINITY, hi = -INFINITY;
    for (int r = 0; r < runs; ++r) {
      if (text(r).isEmpty()) continue;
      const auto v = number(r);
      if (!v) {
        numeric = false;
        if (!a.categories.contains(text(r))) a.categories << text(r);
        continue;
      }
      const double x = log ? std::log10(*v) : *v;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    if (numeric && lo <= hi) {
      a.categories.clear();
      a.lo = lo;
      a.hi = hi;
      for (int r = 0; r < runs; ++r)
        if (const auto v = number(r)) {
          const double x = log ? std::log10(*v) : *v;
          a.at[static_cast<std::size_t>(r)] = hi > lo ? (x - lo) / (hi - lo) : 0.5;
        }
    } else if (!numeric) {
      a.log = false;
      a.categories.sort();
      for (int r = 0; r < runs; ++r)
        if (const int k = a.categories.indexOf(text(r)); k >= 0)
          a.at[static_cast<std::size_t>(r)] =
              a.categories.size() > 1 ? static_cast<double>(k) / (a.categories.size() - 1) : 0.5;
    }
    axes_.push_back(std::move(a));
  };
  for (int k = 0; k < static_cast<int>(table.keys().size()); ++k)
    addAxis(
        QString::fromStdString(table.keys()[static_cast<std::size_t>(k)]), table.logScaleKey(k),
        [&](int r) { return table.numericKey(k) ? table.number(r, k) : std::nullopt; },
        [&](int r) { return QString::fromStdString(table.value(r, k)); });
  if (metric >= 0 && metric < static_cast<int>(table.metrics().size())) {
    const auto& m = table.metrics()[static_cast<std::size_t>(metric)];
    addAxis(
        QString::fromStdString(m.title) +
            (m.unit.empty() ? "" : " (" + QString::fromStdString(m.unit) + ")"),
        false, [&](int r) { return table.metricValue(r, metric); },
        [&](int r) { return table.metricValue(r, metric) ? QStringLiteral("v") : QString(); });
  }
  rebuild();
}

std::optional<double> ParallelCoordinates::position(int run, int axis) const {
  return axes_[static_cast<std::size_t>(axis)].at[static_cast<std::size_t>(run)];
}

void ParallelCoordinates::rebuild() {
  plot_->clearPlottables();
  plot_->clearItems();
  curves_.clear();
  brushItems_.clear();
  const int n = axisCount();
  plot_->xAxis->setRange(-0.5, std::max(1, n) - 0.5);
  for (int i = 0; i < n; ++i) {
    const Axis& a = axes_[static_cast<std::size_t>(i)];
    auto* line = new QCPItemLine(plot_);
    line->start->setCoords(i, 0);
    line->end->setCoords(i, 1);
    line->setPen(QPen(palette().color(QPalette::WindowText), 1.5));
    auto* title = new QCPItemText(plot_);
    title->position->setCoords(i, 1.0);
    title->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    title->setPadding(QMargins(0, 0, 0, 6));
    title->setClipToAxisRect(false);  // a long key may reach past the plot's side
    title->setText(a.title);
    title->setFont(QFont(font().family(), font().pointSize() - 1, QFont::Bold));
    auto label = [&](double y, const QString& text) {
      auto* t = new QCPItemText(plot_);
      t->position->setCoords(i, y);
      t->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
      t->setPadding(QMargins(4, 0, 0, 0));
      t->setText(text);
      t->setColor(palette().color(QPalette::PlaceholderText));
    };
    if (!a.categories.isEmpty()) {
      for (int k = 0; k < a.categories.size(); ++k)
        label(a.categories.size() > 1 ? static_cast<double>(k) / (a.categories.size() - 1) : 0.5,
              a.categories[k]);
    } else {
      auto shown = [&](double x) { return shortNumber(a.log ? std::pow(10.0, x) : x); };
      label(0, shown(a.lo));
      if (a.hi > a.lo) label(1, shown(a.hi));
    }
  }
  const int runs = axes_.empty() ? 0 : static_cast<int>(axes_.front().at.size());
  for (int r = 0; r < runs; ++r) {
    auto* curve = new QCPCurve(plot_->xAxis, plot_->yAxis);
    QVector<double> xs, ys;
    for (int i = 0; i < n; ++i) {
      xs << i;
      const auto y = position(r, i);
      ys << (y ? *y : std::numeric_limits<double>::quiet_NaN());  // a gap where it has none
    }
    curve->setData(xs, ys);
    curves_.push_back(curve);
  }
  recolour();
}

QList<int> ParallelCoordinates::selectedRuns() const {
  QList<int> out;
  const int runs = static_cast<int>(curves_.size());
  for (int r = 0; r < runs; ++r) {
    bool in = brushes_.empty() ? (marked_.isEmpty() || marked_.contains(r)) : true;
    for (const auto& [axis, range] : brushes_) {
      const auto y = position(r, axis);
      in = in && y && *y >= range.first - 1e-9 && *y <= range.second + 1e-9;
    }
    if (in) out << r;
  }
  return out;
}

void ParallelCoordinates::recolour() {
  const QList<int> in = selectedRuns();
  const bool all = in.size() == static_cast<int>(curves_.size());
  for (std::size_t r = 0; r < curves_.size(); ++r) {
    const bool on = all || in.contains(static_cast<int>(r));
    QColor c = r < colours_.size() ? colours_[r] : QColor(Qt::darkGray);
    if (!on) c = QColor(200, 200, 200, 120);
    curves_[r]->setPen(QPen(c, on && !all ? 2.2 : 1.4));
    curves_[r]->setLayer(on ? "main" : "background");
  }
  for (auto& [axis, item] : brushItems_) plot_->removeItem(item);
  brushItems_.clear();
  for (const auto& [axis, range] : brushes_) {
    auto* rect = new QCPItemRect(plot_);
    rect->topLeft->setCoords(axis - 0.06, range.second);
    rect->bottomRight->setCoords(axis + 0.06, range.first);
    rect->setPen(QPen(QColor(40, 40, 40), 1));
    rect->setBrush(QColor(255, 200, 0, 90));
    brushItems_[axis] = rect;
  }
  plot_->replot();
}

void ParallelCoordinates::setBrush(int axis, double lo, double hi) {
  if (axis < 0 || axis >= axisCount()) return;
  brushes_[axis] = {std::clamp(std::min(lo, hi), 0.0, 1.0), std::clamp(std::max(lo, hi), 0.0, 1.0)};
  marked_.clear();
  recolour();
  emit selectionChanged(selectedRuns());
}

void ParallelCoordinates::clearBrush(int axis) {
  if (brushes_.erase(axis) == 0) return;
  recolour();
  emit selectionChanged(selectedRuns());
}

void ParallelCoordinates::clearBrushes() {
  brushes_.clear();
  recolour();
}

void ParallelCoordinates::showSelection(const QList<int>& runs) {
  brushes_.clear();
  marked_ = runs;
  recolour();
}

int ParallelCoordinates::axisNear(double x) const {
  const int i = static_cast<int>(std::lround(x));
  return i >= 0 && i < axisCount() && std::abs(x - i) <= kAxisGrab ? i : -1;
}

void ParallelCoordinates::mousePress(QMouseEvent* e) {
  const double x = plot_->xAxis->pixelToCoord(e->position().x());
  dragAxis_ = axisNear(x);
  dragFrom_ = plot_->yAxis->pixelToCoord(e->position().y());
  dragged_ = false;
}

void ParallelCoordinates::mouseMove(QMouseEvent* e) {
  if (dragAxis_ < 0 || !(e->buttons() & Qt::LeftButton)) return;
  const double y = plot_->yAxis->pixelToCoord(e->position().y());
  if (!dragged_ &&
      std::abs(plot_->yAxis->coordToPixel(y) - plot_->yAxis->coordToPixel(dragFrom_)) < 4)
    return;
  dragged_ = true;
  brushes_[dragAxis_] = {std::clamp(std::min(dragFrom_, y), 0.0, 1.0),
                         std::clamp(std::max(dragFrom_, y), 0.0, 1.0)};
  marked_.clear();
  recolour();
}

void ParallelCoordinates::mouseRelease(QMouseEvent*) {
  if (dragAxis_ < 0) return;
  if (dragged_)
    emit selectionChanged(selectedRuns());
  else
    clearBrush(dragAxis_);
  dragAxis_ = -1;
}

}  // namespace amp::widgets
