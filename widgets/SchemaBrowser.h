#pragma once
// Every config key by group, with type, default, allowed values and documentation; filterable.
#include <QWidget>

class QLineEdit;
class QTreeWidget;

namespace amp::widgets {

class SchemaBrowser : public QWidget {
  Q_OBJECT
 public:
  explicit SchemaBrowser(QWidget* parent = nullptr);
  /// Shows only keys whose name or documentation contains `text` (case-insensitive).
  void setFilter(const QString& text);
  /// Number of keys currently shown.
  int visibleKeyCount() const;
  QTreeWidget* tree() const { return tree_; }

 signals:
  void keyActivated(const QString& key);

 private:
  QLineEdit* filter_;
  QTreeWidget* tree_;
};

}  // namespace amp::widgets
