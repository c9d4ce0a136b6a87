#pragma once
// The side legend of a panel of charts: once there are more curves than an in-plot legend can
// hold readably (about six), the names leave the plots for one list beside them, shared by every
// chart: a colour swatch and name per run or group, a checkbox that shows or hides its curves on
// all charts, a filter box (a sweep of 100 runs: type "lr=0.1" or "bf16"), All / None for the
// entries the filter leaves, and hovering an entry emphasises its curves (hovered(entry)).
#include <QColor>
#include <QString>
#include <QWidget>
#include <vector>

class QLineEdit;
class QListWidget;
class QListWidgetItem;
class QLabel;

namespace amp::widgets {

///   auto* legend = new CurveLegend;
///   legend->setEntries({{"BASE_LR=0.1", "5 runs", color0}, {"BASE_LR=0.05", "5 runs", color1}});
///   connect(legend, &CurveLegend::visibilityChanged, this, [](int entry, bool on) { ... });
///   connect(legend, &CurveLegend::hovered, this, [](int entry) { /* -1: none */ });
class CurveLegend : public QWidget {
  Q_OBJECT
 public:
  struct Entry {
    QString name;
    QString detail;  ///< in the tooltip after the name ("5 runs")
    QColor color;
    bool visible = true;
  };
  explicit CurveLegend(QWidget* parent = nullptr);

  /// Replaces the entries (the filter text stays and applies to them).
  void setEntries(const std::vector<Entry>& entries);
  int count() const { return static_cast<int>(entries_.size()); }
  const Entry& entry(int i) const { return entries_.at(static_cast<std::size_t>(i)); }
  bool entryVisible(int i) const { return entry(i).visible; }
  /// Checks or unchecks an entry as a click would (emits visibilityChanged when it changes).
  void setEntryVisible(int i, bool on);
  /// Whether the filter leaves the entry in the list.
  bool entryListed(int i) const;
  /// Shows or hides every entry the filter leaves (the All / None buttons).
  void setListedVisible(bool on);
  QLineEdit* filterBox() const { return filter_; }
  QListWidget* list() const { return list_; }

 signals:
  void visibilityChanged(int entry, bool visible);
  /// The mouse is over this entry (-1: over none).
  void hovered(int entry);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void applyFilter();
  void updateCount();

  std::vector<Entry> entries_;
  QLineEdit* filter_;
  QListWidget* list_;
  QLabel* shown_;
  int hovered_ = -1;
  bool filling_ = false;  ///< setEntries is filling the list: no itemChanged signals out
};

}  // namespace amp::widgets
