#include "PredictionTable.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QSaveFile>

namespace amp::widgets {

namespace {
const QColor kError("#d62728");

QString csvField(QString s) {
  if (s.contains(',') || s.contains('"') || s.contains('\n'))
    s = '"' + s.replace('"', "\"\"") + '"';
  return s;
}

QString percent(double p) {
  return QStringLiteral("%1 %").arg(100.0 * p, 0, 'f', 1);
}

QTableWidgetItem* right(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

QString text(const nlohmann::json& j, const char* key) {
  return QString::fromStdString(j.value(key, std::string()));
}
}  // namespace

PredictionTable::PredictionTable(QWidget* parent) : QTableWidget(0, ColumnCount, parent) {
  setHorizontalHeaderLabels(
      {tr("Video"), tr("Top class"), tr("Probability"), tr("Top 5"), tr("Views"), tr("Seconds")});
  horizontalHeader()->setSectionResizeMode(Top5, QHeaderView::Stretch);
  verticalHeader()->hide();
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setWordWrap(false);
}

PredictionTable::Shown PredictionTable::show(const nlohmann::json& j) {
  clearSpans();
  setRowCount(0);
  json_ = nullptr;
  Shown s;
  std::vector<std::pair<int, QString>> failures;
  if (j.is_object() && j.contains("windows") && j["windows"].is_array()) {
    kind_ = Kind::Windows;
    setHorizontalHeaderLabels({tr("Video · second"), tr("Top class"), tr("Probability"),
                               tr("Top 5"), tr("Frames"), tr("Drawn on")});
    showWindows(j, failures);
    s.inputs = 1;
    if (j.contains("output")) s.outputs << text(j, "output");
  } else if (j.is_object() && j.contains("error") && j.contains("input")) {
    kind_ = Kind::Windows;  // the demo could not run on its input
    insertRow(0);
    setItem(0, Video, new QTableWidgetItem(QFileInfo(text(j, "input")).fileName()));
    failures.emplace_back(0, text(j, "error"));
    s.inputs = 1;
  } else if (j.is_object() && j.contains("videos") && j["videos"].is_array()) {
    kind_ = j.value("detection", false) ? Kind::Boxes : Kind::Videos;
    setHorizontalHeaderLabels(
        kind_ == Kind::Boxes ? QStringList{tr("Video · box"), tr("Top action"), tr("Probability"),
                                           tr("Top 5"), tr("Second"), tr("Seconds")}
                             : QStringList{tr("Video"), tr("Top class"), tr("Probability"),
                                           tr("Top 5"), tr("Views"), tr("Seconds")});
    if (kind_ == Kind::Boxes)
      showBoxes(j, failures);
    else
      showVideos(j, failures);
    s.inputs = static_cast<int>(j["videos"].size());
    for (const auto& v : j["videos"])
      if (v.contains("output")) s.outputs << text(v, "output");
  } else {
    return s;
  }
  json_ = j;
  for (int c : {int(Video), int(TopClass), int(Probability), int(Views), int(Seconds)})
    resizeColumnToContents(c);
  // Why an input failed spans the row's other columns (after sizing them: a long reason would
  // widen the class column).
  for (const auto& [row, error] : failures) {
    auto* why = new QTableWidgetItem(tr("cannot predict: %1").arg(error));
    why->setForeground(kError);
    why->setToolTip(error);
    setItem(row, TopClass, why);
    setSpan(row, TopClass, 1, ColumnCount - TopClass);
  }
  s.kind = kind_;
  s.rows = rowCount();
  s.failed = static_cast<int>(failures.size());
  return s;
}

void PredictionTable::showTop(int row, const nlohmann::json& top, const char* idKey,
                              const QString& idText) {
  QStringList top5;
  for (std::size_t k = 0; k < top.size(); ++k) {
    const std::string name = top[k].value("name", std::string());
    const int id = top[k].value(idKey, -1);
    const QString label = name.empty() ? idText.arg(id) : QString::fromStdString(name);
    const double p = top[k].value("probability", 0.0);
    if (k == 0) {
      auto* cls = new QTableWidgetItem(label);
      cls->setToolTip(idText.arg(id));
      setItem(row, TopClass, cls);
      setItem(row, Probability, right(percent(p)));
    }
    top5 << QStringLiteral("%1 %2").arg(label, percent(p));
  }
  setItem(row, Top5, new QTableWidgetItem(top5.join(QStringLiteral(" · "))));
}

void PredictionTable::showVideos(const nlohmann::json& j,
                                 std::vector<std::pair<int, QString>>& failures) {
  for (const auto& v : j["videos"]) {
    const int row = rowCount();
    insertRow(row);
    const QString path = text(v, "video");
    auto* video = new QTableWidgetItem(QFileInfo(path).fileName());
    video->setToolTip(path);
    setItem(row, Video, video);
    if (v.contains("error")) {
      failures.emplace_back(row, text(v, "error"));
      continue;
    }
    showTop(row, v.value("top", nlohmann::json::array()), "class", tr("class %1"));
    setItem(row, Views, right(QString::number(v.value("views", 0))));
    setItem(row, Seconds, right(QString::number(v.value("seconds", 0.0), 'f', 2)));
  }
}

void PredictionTable::showBoxes(const nlohmann::json& j,
                                std::vector<std::pair<int, QString>>& failures) {
  for (const auto& v : j["videos"]) {
    const QString path = text(v, "video");
    const QString name = QFileInfo(path).fileName();
    if (v.contains("error") && !v.contains("keyframes")) {
      const int row = rowCount();
      insertRow(row);
      setItem(row, Video, new QTableWidgetItem(name));
      failures.emplace_back(row, text(v, "error"));
      continue;
    }
    for (const auto& k : v.value("keyframes", nlohmann::json::array())) {
      int index = 0;
      for (const auto& b : k.value("boxes", nlohmann::json::array())) {
        const int row = rowCount();
        insertRow(row);
        const auto box = b.value("box", std::vector<double>(4, 0.0));
        auto* video = new QTableWidgetItem(tr("%1 · box %2").arg(name).arg(++index));
        video->setToolTip(tr("%1\nbox x1 %2, y1 %3, x2 %4, y2 %5 (fractions of the frame)")
                              .arg(path)
                              .arg(box[0], 0, 'f', 3)
                              .arg(box[1], 0, 'f', 3)
                              .arg(box[2], 0, 'f', 3)
                              .arg(box[3], 0, 'f', 3));
        setItem(row, Video, video);
        showTop(row, b.value("top", nlohmann::json::array()), "action", tr("action %1"));
        setItem(row, Views, right(QString::number(k.value("second", 0))));
        setItem(row, Seconds, right(QString::number(v.value("seconds", 0.0), 'f', 2)));
      }
    }
  }
}

void PredictionTable::showWindows(const nlohmann::json& j,
                                  std::vector<std::pair<int, QString>>& failures) {
  const QString path = text(j, "input");
  const QString name = QFileInfo(path).fileName();
  for (const auto& w : j["windows"]) {
    const int row = rowCount();
    insertRow(row);
    auto* video =
        new QTableWidgetItem(tr("%1 · %2 s").arg(name).arg(w.value("second", 0.0), 0, 'f', 2));
    video->setToolTip(path);
    setItem(row, Video, video);
    setItem(row, Views,
            right(QStringLiteral("%1–%2").arg(w.value("first", 0)).arg(w.value("last", 0))));
    if (!w.value("predicted", true)) {
      setItem(row, TopClass, new QTableWidgetItem(tr("skipped (DEMO.NUM_CLIPS_SKIP)")));
      continue;
    }
    showTop(row, w.value("top", nlohmann::json::array()), "class", tr("class %1"));
    const auto draw = w.value("draw", std::vector<std::int64_t>{0, 0});
    setItem(row, Seconds, right(QStringLiteral("%1–%2").arg(draw[0]).arg(draw[1])));
  }
  (void)failures;  // a demo that ran has no failed window
}

QString PredictionTable::videoCsv() const {
  QString out = "video,rank,class,name,probability,views,seconds,error\n";
  for (const auto& v : json_.value("videos", nlohmann::json::array())) {
    const QString video = csvField(text(v, "video"));
    const QString tail =
        QStringLiteral("%1,%2").arg(v.value("views", 0)).arg(v.value("seconds", 0.0), 0, 'f', 3);
    if (v.contains("error")) {
      out += QStringLiteral("%1,,,,,%2,%3\n").arg(video, tail, csvField(text(v, "error")));
      continue;
    }
    int rank = 1;
    for (const auto& t : v.value("top", nlohmann::json::array()))
      out += QStringLiteral("%1,%2,%3,%4,%5,%6,\n")
                 .arg(video)
                 .arg(rank++)
                 .arg(t.value("class", -1))
                 .arg(csvField(text(t, "name")))
                 .arg(t.value("probability", 0.0), 0, 'g', 8)
                 .arg(tail);
  }
  return out;
}

QString PredictionTable::boxCsv() const {
  QString out = "video,second,box,x1,y1,x2,y2,rank,action,name,probability\n";
  for (const auto& v : json_.value("videos", nlohmann::json::array()))
    for (const auto& k : v.value("keyframes", nlohmann::json::array())) {
      int index = 0;
      for (const auto& b : k.value("boxes", nlohmann::json::array())) {
        const auto box = b.value("box", std::vector<double>(4, 0.0));
        ++index;
        int rank = 1;
        for (const auto& t : b.value("top", nlohmann::json::array()))
          out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,")
                     .arg(csvField(text(v, "video")))
                     .arg(k.value("second", 0))
                     .arg(index)
                     .arg(box[0], 0, 'g', 6)
                     .arg(box[1], 0, 'g', 6)
                     .arg(box[2], 0, 'g', 6)
                     .arg(box[3], 0, 'g', 6)
                     .arg(rank++)
                     .arg(t.value("action", -1)) +
                 QStringLiteral("%1,%2\n")
                     .arg(csvField(text(t, "name")))
                     .arg(t.value("probability", 0.0), 0, 'g', 8);
      }
    }
  return out;
}

QString PredictionTable::windowCsv() const {
  QString out = "video,first,last,second,rank,class,name,probability\n";
  const QString video = csvField(text(json_, "input"));
  for (const auto& w : json_.value("windows", nlohmann::json::array())) {
    int rank = 1;
    for (const auto& t : w.value("top", nlohmann::json::array()))
      out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8\n")
                 .arg(video)
                 .arg(w.value("first", 0))
                 .arg(w.value("last", 0))
                 .arg(w.value("second", 0.0), 0, 'f', 3)
                 .arg(rank++)
                 .arg(t.value("class", -1))
                 .arg(csvField(text(t, "name")))
                 .arg(t.value("probability", 0.0), 0, 'g', 8);
  }
  return out;
}

QString PredictionTable::exportCsv(const QString& path) const {
  if (json_.is_null()) return tr("Nothing predicted yet.");
  const QString out = kind_ == Kind::Boxes     ? boxCsv()
                      : kind_ == Kind::Windows ? windowCsv()
                                               : videoCsv();
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(out.toUtf8()) < 0 || !f.commit())
    return tr("%1: %2").arg(path, f.errorString());
  return {};
}

}  // namespace amp::widgets
