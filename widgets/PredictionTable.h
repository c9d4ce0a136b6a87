#pragma once
// The Predict tab's results: what `ampstudio-cli predict --json` or `demo --json` printed, as
// rows. Three shapes: one row a video (its top class and the top 5 of the multi-view test), one
// row a person box (a detection config: the box's top actions at its keyframe), one row a demo
// window (the classes of each clip the demo slid over the video, with its time). A failed input
// keeps its row with the reason across the other columns. Exports what it shows as CSV.
//
//   auto* table = new PredictionTable;
//   const PredictionTable::Shown s = table->show(nlohmann::json::parse(out));
//   status->setText(tr("%1 rows, %2 failed").arg(s.rows).arg(s.failed));
//   table->exportCsv("predictions.csv");
#include <QStringList>
#include <QTableWidget>

#include <nlohmann/json.hpp>

namespace amp::widgets {

class PredictionTable : public QTableWidget {
  Q_OBJECT
 public:
  enum Column { Video, TopClass, Probability, Top5, Views, Seconds, ColumnCount };
  enum class Kind { Videos, Boxes, Windows };

  /// What show() put in the table.
  struct Shown {
    Kind kind = Kind::Videos;
    int rows = 0;
    int failed = 0;       ///< rows whose input could not be predicted
    int inputs = 0;       ///< videos (or frame folders) in the result
    QStringList outputs;  ///< videos the command wrote
  };

  explicit PredictionTable(QWidget* parent = nullptr);

  /// Replaces the rows with `j` (predict's or demo's JSON); nothing is shown for JSON of
  /// neither shape (rows 0).
  Shown show(const nlohmann::json& j);
  Kind kind() const { return kind_; }
  bool empty() const { return json_.is_null(); }
  /// The shown result as CSV; "" or why it failed (naming the file).
  QString exportCsv(const QString& path) const;

 private:
  void showVideos(const nlohmann::json& j, std::vector<std::pair<int, QString>>& failures);
  void showBoxes(const nlohmann::json& j, std::vector<std::pair<int, QString>>& failures);
  void showWindows(const nlohmann::json& j, std::vector<std::pair<int, QString>>& failures);
  /// The top-5 cells of `row` from a "top" list (class or action names).
  void showTop(int row, const nlohmann::json& top, const char* idKey, const QString& idText);
  QString videoCsv() const;
  QString boxCsv() const;
  QString windowCsv() const;

  nlohmann::json json_;
  Kind kind_ = Kind::Videos;
};

}  // namespace amp::widgets
