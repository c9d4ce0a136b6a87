#include "ConfusionHeatMap.h"

#include <qcustomplot.h>
#include <QEvent>
#include <QFileInfo>
#include <QFontMetrics>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <memory>

#include "metrics/ConfusionFigure.h"

namespace amp::widgets {
namespace {

// Class names on an axis: every k-th class, k chosen so that the names' line height fits the
// axis's pixels (at 400 classes in 600 pixels: every 34th; zoomed in: every one).
class ClassTicker : public QCPAxisTicker {
 public:
  ClassTicker(QCPAxis* axis, const QStringList* names) : axis_(axis), names_(names) {}

 protected:
  double getTickStep(const QCPRange& range) override {
    const bool vertical = axis_->orientation() == Qt::Vertical;
    const int pixels = vertical ? axis_->axisRect()->height() : axis_->axisRect()->width();
    const int line = QFontMetrics(axis_->tickLabelFont()).height() + 2;
    const double fit = std::max(1.0, static_cast<double>(pixels) / line);
    return std::max(1.0, std::ceil(range.size() / fit));
  }
  int getSubTickCount(double) override { return 0; }
  QString getTickLabel(double tick, const QLocale&, QChar, int) override {
    const auto i = static_cast<int>(std::lround(tick));
    if (i < 0 || i >= names_->size() || std::abs(tick - i) > 1e-6) return {};
    const QString& n = (*names_)[i];
    return n.size() > 24 ? n.left(23) + QChar(0x2026) : n;
  }

 private:
  QCPAxis* axis_;
  const QStringList* names_;
};

QCPColorGradient bluesGradient() {
  QCPColorGradient g;
  g.clearColorStops();
  for (int i = 0; i <= 8; ++i) {
    const auto c = metrics::bluesColour(i / 8.0);
    g.setColorStopAt(i / 8.0, QColor(c[0], c[1], c[2]));
  }
  return g;
}

}  // namespace

ConfusionHeatMap::ConfusionHeatMap(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumSize(320, 280);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  map_->setGradient(bluesGradient());
  map_->setDataRange(QCPRange(0, 1));  // a share of the true class: comparable between runs
  map_->setInterpolate(false);
  auto* scale = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(0, 1, scale);
  scale->setGradient(map_->gradient());
  scale->setDataRange(QCPRange(0, 1));
  scale->axis()->setLabel(tr("Share of the true class"));
  map_->setColorScale(scale);
  auto* group = new QCPMarginGroup(plot_);
  plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  plot_->yAxis->setRangeReversed(true);  // the first class at the top, as PySlowFast's figure
  plot_->xAxis->setLabel(tr("Predicted class"));
  plot_->yAxis->setLabel(tr("True class"));
  plot_->xAxis->setTickLabelRotation(-90);  // upright names take a line each, as on the y axis
  for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
    a->setTicker(QSharedPointer<QCPAxisTicker>(new ClassTicker(a, &names_)));
    a->grid()->setVisible(false);
    QFont f = a->tickLabelFont();
    f.setPointSizeF(std::max(7.0, f.pointSizeF() - 1));
    a->setTickLabelFont(f);
  }
  selection_ = new QCPItemRect(plot_);
  selection_->setPen(QPen(QColor(230, 60, 30), 2));
  selection_->setBrush(Qt::NoBrush);
  selection_->setVisible(false);
  connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          &ConfusionHeatMap::rangesChanged);
  connect(plot_->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          &ConfusionHeatMap::rangesChanged);
  plot_->installEventFilter(this);
  plot_->setMouseTracking(true);
}

void ConfusionHeatMap::setMatrix(const QStringList& names, const std::vector<double>& rates,
                                 const std::vector<std::int64_t>& counts) {
  names_ = names;
  const int n = classes();
  rates_ = rates;
  counts_ = counts;
  rates_.resize(static_cast<std::size_t>(n) * n, 0.0);
  counts_.resize(static_cast<std::size_t>(n) * n, 0);
  map_->data()->setSize(std::max(n, 1), std::max(n, 1));
  map_->data()->setRange(QCPRange(0, std::max(n - 1, 0)), QCPRange(0, std::max(n - 1, 0)));
  map_->data()->fill(0);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      map_->data()->setCell(c, r, rates_[static_cast<std::size_t>(r) * n + c]);
  selection_->setVisible(false);
  resetView();
}

void ConfusionHeatMap::resetView() {
  const int n = std::max(classes(), 1);
  adjusting_ = true;
  plot_->xAxis->setRange(-0.5, n - 0.5);
  plot_->yAxis->setRange(-0.5, n - 0.5);
  adjusting_ = false;
  rangesChanged();
}

void ConfusionHeatMap::focusCell(int row, int col, int span) {
  const int n = classes();
  if (row < 0 || col < 0 || row >= n || col >= n) return;
  span = std::clamp(span, 1, n);
  // `span` whole cells with (row, col) in the middle, inside the matrix.
  const auto first = [&](int at) { return std::clamp(at - span / 2, 0, n - span) - 0.5; };
  adjusting_ = true;
  plot_->xAxis->setRange(first(col), first(col) + span);
  plot_->yAxis->setRange(first(row), first(row) + span);
  adjusting_ = false;
  rangesChanged();
}

void ConfusionHeatMap::selectCell(int row, int col) {
  const int n = classes();
  const bool on = row >= 0 && col >= 0 && row < n && col < n;
  selection_->setVisible(on);
  if (on) {
    selection_->topLeft->setCoords(col - 0.5, row - 0.5);
    selection_->bottomRight->setCoords(col + 0.5, row + 0.5);
  }
  plot_->replot();
}

// Keeps the view inside the matrix (a pan cannot lose it) and refreshes the cells' texts.
void ConfusionHeatMap::rangesChanged() {
  if (adjusting_) return;
  adjusting_ = true;
  const double lo = -0.5, hi = std::max(classes(), 1) - 0.5;
  for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
    QCPRange r = a->range();
    const double size = std::min(std::max(r.size(), 1.0), hi - lo);
    if (r.lower < lo) r = QCPRange(lo, lo + size);
    if (r.upper > hi) r = QCPRange(hi - size, hi);
    if (r.size() < 1.0) r = QCPRange(r.center() - 0.5, r.center() + 0.5);
    a->setRange(r);
  }
  adjusting_ = false;
  updateCellTexts();
  plot_->replot();
}

void ConfusionHeatMap::updateCellTexts() {
  for (int i = plot_->itemCount() - 1; i >= 0; --i)
    if (auto* t = qobject_cast<QCPItemText*>(plot_->item(i))) plot_->removeItem(t);
  const int n = classes();
  const QCPRange x = plot_->xAxis->range(), y = plot_->yAxis->range();
  const int c0 = std::max(0, static_cast<int>(std::ceil(x.lower))),
            c1 = std::min(n - 1, static_cast<int>(std::floor(x.upper)));
  const int r0 = std::max(0, static_cast<int>(std::ceil(y.lower))),
            r1 = std::min(n - 1, static_cast<int>(std::floor(y.upper)));
  if (c1 - c0 + 1 > kMaxCellTexts || r1 - r0 + 1 > kMaxCellTexts) return;
  QFont font = plot_->xAxis->tickLabelFont();
  for (int r = r0; r <= r1; ++r)
    for (int c = c0; c <= c1; ++c) {
      const double v = rates_[static_cast<std::size_t>(r) * n + c];
      auto* t = new QCPItemText(plot_);
      t->position->setCoords(c, r);
      t->setFont(font);
      // As plot_confusion_matrix: two decimals, "." for an empty cell, white on dark cells.
      t->setText(v != 0 ? QString::number(v, 'f', 2) : QStringLiteral("."));
      t->setColor(v > 0.5 ? Qt::white : Qt::black);
      t->setSelectable(false);
    }
}

int ConfusionHeatMap::cellTexts() const {
  int n = 0;
  for (int i = 0; i < plot_->itemCount(); ++i)
    n += qobject_cast<QCPItemText*>(plot_->item(i)) ? 1 : 0;
  return n;
}

int ConfusionHeatMap::visibleNames() const {
  // What the ticker draws: the tick labels of the vertical axis within the range.
  const auto labels = plot_->yAxis->tickVectorLabels();
  return static_cast<int>(
      std::count_if(labels.begin(), labels.end(), [](const QString& s) { return !s.isEmpty(); }));
}

std::pair<int, int> ConfusionHeatMap::cellAt(const QPoint& pos) const {
  if (!plot_->axisRect()->rect().contains(pos)) return {-1, -1};
  const int col = static_cast<int>(std::lround(plot_->xAxis->pixelToCoord(pos.x())));
  const int row = static_cast<int>(std::lround(plot_->yAxis->pixelToCoord(pos.y())));
  if (row < 0 || col < 0 || row >= classes() || col >= classes()) return {-1, -1};
  return {row, col};
}

bool ConfusionHeatMap::eventFilter(QObject* watched, QEvent* event) {
  if (watched == plot_) {
    if (event->type() == QEvent::MouseButtonPress) {
      pressed_ = static_cast<QMouseEvent*>(event)->pos();
    } else if (event->type() == QEvent::MouseButtonRelease) {
      const QPoint at = static_cast<QMouseEvent*>(event)->pos();
      if ((at - pressed_).manhattanLength() <= 4) {  // a click, not the end of a drag
        const auto [row, col] = cellAt(at);
        if (row >= 0) {
          selectCell(row, col);
          emit cellClicked(row, col);
        }
      }
    } else if (event->type() == QEvent::MouseButtonDblClick) {
      resetView();
    } else if (event->type() == QEvent::MouseMove) {
      auto* me = static_cast<QMouseEvent*>(event);
      const auto [row, col] = cellAt(me->pos());
      if (row >= 0) {
        const auto i = static_cast<std::size_t>(row) * classes() + col;
        QToolTip::showText(me->globalPosition().toPoint(),
                           tr("true %1 → predicted %2\n%3 samples, %4% of the class")
                               .arg(names_[row], names_[col])
                               .arg(counts_[i])
                               .arg(rates_[i] * 100.0, 0, 'f', 1),
                           plot_);
      }
    }
  }
  return QWidget::eventFilter(watched, event);
}

bool ConfusionHeatMap::exportTo(const QString& path, int width, int height) {
  return QFileInfo(path).suffix().compare("pdf", Qt::CaseInsensitive) == 0
             ? plot_->savePdf(path, width, height)
             : plot_->savePng(path, width, height, 2.0);
}

}  // namespace amp::widgets
