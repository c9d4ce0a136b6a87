#pragma once
// The runs under a folder (including ones a CLI process is still writing), refreshed
// periodically: name, status, model, precision, start time, duration.
#include <QTimer>
#include <QWidget>

class QLabel;
class QTableWidget;

namespace amp::widgets {

class RunListPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunListPanel(QWidget* parent = nullptr);
  void setRunsFolder(const QString& folder);
  QString runsFolder() const { return folder_; }
  QTableWidget* table() const { return table_; }

 public slots:
  void refresh();

 signals:
  void runActivated(const QString& runDir);

 private:
  QString folder_;
  QLabel* header_;
  QTableWidget* table_;
  QTimer timer_;
};

}  // namespace amp::widgets
