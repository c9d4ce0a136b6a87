#include "PredictPanel.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QTableWidget>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include "system/DeviceInfo.h"

namespace amp::widgets {

namespace {
const QColor kError("#d62728");
const QColor kWarning("#b35c00");  // dark orange: readable on the light window

QString csvField(QString s) {
  if (s.contains(',') || s.contains('"') || s.contains('\n'))
    s = '"' + s.replace('"', "\"\"") + '"';
  return s;
}

QString percent(double p) {
  return QStringLiteral("%1 %").arg(100.0 * p, 0, 'f', 1);
}
}  // namespace

PredictPanel::PredictPanel(QWidget* parent)
    : QWidget(parent),
      job_(new CliJob(this)),
      config_(new QLineEdit),
      checkpoint_(new QLineEdit),
      labels_(new QLineEdit),
      boxes_(new QLineEdit),
      output_(new QLineEdit),
      videos_(new QListWidget),
      predictButton_(new QPushButton(tr("Predict"))),
      cancelButton_(new QPushButton(tr("Cancel"))),
      exportButton_(new QPushButton(tr("Export CSV…"))),
      status_(new QLabel),
      table_(new QTableWidget(0, ColumnCount)) {
  config_->setPlaceholderText(tr("the config in the editor"));
  checkpoint_->setPlaceholderText(tr("TEST.CHECKPOINT_FILE_PATH, else the newest in OUTPUT_DIR"));
  labels_->setPlaceholderText(tr("DEMO.LABEL_FILE_PATH, else class numbers"));
  config_->setToolTip(
      tr("The PySlowFast YAML config of the model (its TEST.* keys set the views per video)"));
  labels_->setToolTip(
      tr("Class names: PySlowFast's demo JSON ({\"name\": index}) or one name per line"));
  boxes_->setPlaceholderText(tr("detection configs: DEMO.PREDS_BOXES"));
  boxes_->setToolTip(
      tr("Person boxes of the inputs' keyframes, an AVA CSV "
         "(video,second,x1,y1,x2,y2,action,score); each box's actions are predicted"));
  output_->setPlaceholderText(tr("detection configs: DEMO.OUTPUT_FILE, else no video"));
  output_->setToolTip(tr("Write the input again with each box and its actions drawn (one input)"));
  auto browse = [this](QLineEdit* edit, const QString& title, const QString& filter) {
    auto* b = new QPushButton(tr("Browse…"));
    connect(b, &QPushButton::clicked, this, [this, edit, title, filter] {
      const QString path =
          QFileDialog::getOpenFileName(this, title, QFileInfo(edit->text()).path(), filter);
      if (!path.isEmpty()) edit->setText(path);
    });
    return b;
  };
  auto* form = new QGridLayout;
  form->addWidget(new QLabel(tr("Config")), 0, 0);
  form->addWidget(config_, 0, 1);
  form->addWidget(
      browse(config_, tr("Config of the model"), tr("PySlowFast configs (*.yaml *.yml)")), 0, 2);
  form->addWidget(new QLabel(tr("Checkpoint")), 1, 0);
  form->addWidget(checkpoint_, 1, 1);
  form->addWidget(browse(checkpoint_, tr("Checkpoint"),
                         tr("Checkpoints (*.pyth *.pth *.pt *.pkl);;All files (*)")),
                  1, 2);
  form->addWidget(new QLabel(tr("Class names")), 2, 0);
  form->addWidget(labels_, 2, 1);
  form->addWidget(
      browse(labels_, tr("Class names"), tr("Class names (*.json *.txt);;All files (*)")), 2, 2);

  form->addWidget(new QLabel(tr("Boxes")), 3, 0);
  form->addWidget(boxes_, 3, 1);
  form->addWidget(browse(boxes_, tr("Person boxes"), tr("AVA box files (*.csv);;All files (*)")), 3,
                  2);
  auto* saveVideo = new QPushButton(tr("Browse…"));
  connect(saveVideo, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Video with boxes"), output_->text(),
                                                      tr("Videos (*.mp4 *.mkv)"));
    if (!path.isEmpty()) output_->setText(path);
  });
  form->addWidget(new QLabel(tr("Write video")), 4, 0);
  form->addWidget(output_, 4, 1);
  form->addWidget(saveVideo, 4, 2);

  videos_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  videos_->setMaximumHeight(110);
  auto* add = new QPushButton(tr("Add Videos…"));
  auto* addFolder = new QPushButton(tr("Add Frame Folder…"));
  addFolder->setToolTip(tr("Detection configs: a folder of one video's JPEG frames (DEMO.FPS)"));
  connect(addFolder, &QPushButton::clicked, this,
          [this] { addVideos({QFileDialog::getExistingDirectory(this, tr("Folder of frames"))}); });
  auto* remove = new QPushButton(tr("Remove"));
  auto* clear = new QPushButton(tr("Clear"));
  connect(add, &QPushButton::clicked, this, [this] {
    addVideos(QFileDialog::getOpenFileNames(
        this, tr("Videos to classify"), QString(),
        tr("Videos (*.mp4 *.avi *.mkv *.webm *.mov *.m4v);;All files (*)")));
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    qDeleteAll(videos_->selectedItems());
    updateButtons();
  });
  connect(clear, &QPushButton::clicked, this, &PredictPanel::clearVideos);
  auto* videoButtons = new QVBoxLayout;
  videoButtons->addWidget(add);
  videoButtons->addWidget(addFolder);
  videoButtons->addWidget(remove);
  videoButtons->addWidget(clear);
  videoButtons->addStretch();
  form->addWidget(new QLabel(tr("Videos")), 5, 0, Qt::AlignTop);
  form->addWidget(videos_, 5, 1);
  form->addLayout(videoButtons, 5, 2);
  form->setColumnStretch(1, 1);

  auto* actions = new QHBoxLayout;
  actions->addWidget(predictButton_);
  actions->addWidget(cancelButton_);
  actions->addWidget(exportButton_);
  actions->addStretch();
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  table_->setHorizontalHeaderLabels(
      {tr("Video"), tr("Top class"), tr("Probability"), tr("Top 5"), tr("Views"), tr("Seconds")});
  table_->horizontalHeader()->setSectionResizeMode(Top5, QHeaderView::Stretch);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setWordWrap(false);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(actions);
  layout->addWidget(status_);
  layout->addWidget(table_, 1);

  connect(predictButton_, &QPushButton::clicked, this, &PredictPanel::predict);
  connect(cancelButton_, &QPushButton::clicked, this, &PredictPanel::cancel);
  connect(exportButton_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export predictions"),
                                                      "predictions.csv", tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    if (const QString why = exportCsv(path); !why.isEmpty())
      QMessageBox::warning(this, tr("Export failed"), why);
  });
  connect(job_, &CliJob::progress, this, [this](const QString& text) { setStatus(text); });
  connect(job_, &CliJob::finished, this, &PredictPanel::onFinished);
  setStatus(
      tr("Pick a run in the run list (right click: Predict with Its Newest Checkpoint), or a "
         "config and a checkpoint, "
         "then add videos."));
  updateButtons();
}

bool PredictPanel::useRun(const QString& runDir) {
  QString newest, error;
  const QString cfg = job_->runConfig(runDir, &newest, &error);
  if (cfg.isEmpty()) {
    setStatus(error, true);
    return false;
  }
  config_->setText(cfg);
  checkpoint_->setText(newest);
  setStatus(newest.isEmpty()
                ? tr("Run %1 has no checkpoint yet: predictions would use an untrained model.")
                      .arg(QFileInfo(runDir).fileName())
                : tr("Run %1, %2: add videos, then Predict.")
                      .arg(QFileInfo(runDir).fileName(), QFileInfo(newest).fileName()),
            newest.isEmpty());
  return true;
}

void PredictPanel::addVideos(const QStringList& paths) {
  for (const QString& p : paths)
    if (!p.isEmpty() && videos_->findItems(p, Qt::MatchExactly).isEmpty()) videos_->addItem(p);
  updateButtons();
}

void PredictPanel::clearVideos() {
  videos_->clear();
  updateButtons();
}

QStringList PredictPanel::videos() const {
  QStringList out;
  for (int i = 0; i < videos_->count(); ++i) out << videos_->item(i)->text();
  return out;
}

void PredictPanel::cancel() {
  job_->cancel();
}

void PredictPanel::predict() {
  if (busy()) return;
  if (const QString why = job_->programMissing(tr("Predict")); !why.isEmpty()) {
    setStatus(why, true);
    return;
  }
  if (videos_->count() == 0) {
    setStatus(tr("Add the videos to classify first."), true);
    return;
  }
  QString cfgPath = config_->text().trimmed();
  if (cfgPath.isEmpty()) {  // the editor's config as it is, unsaved edits included
    const auto cfg = source_ ? source_() : std::nullopt;
    if (!cfg) {
      setStatus(tr("The config has errors: fix them in the Config tab, or choose a config file."),
                true);
      return;
    }
    QString error;
    cfgPath = job_->writeConfig(*cfg, "editor-config.yaml", &error);
    if (cfgPath.isEmpty()) {
      setStatus(error, true);
      return;
    }
  }
  QStringList args = QStringList{"predict", "--json", "--cfg", cfgPath} + job_->threadArgs();
  if (!checkpoint_->text().trimmed().isEmpty())
    args << "--checkpoint" << checkpoint_->text().trimmed();
  if (!labels_->text().trimmed().isEmpty()) args << "--labels" << labels_->text().trimmed();
  if (!boxes_->text().trimmed().isEmpty()) args << "--boxes" << boxes_->text().trimmed();
  if (!output_->text().trimmed().isEmpty()) args << "--output" << output_->text().trimmed();
  args << videos();
  // The model runs on this machine: without a CUDA device, on its CPU whatever NUM_GPUS the
  // config was trained with.
  if (!cudaPresent_) cudaPresent_ = !system::probeDevices().cuda_devices.empty();
  if (!*cudaPresent_)
    args << "NUM_GPUS"
         << "0";
  what_ = videos_->count() == 1 ? QFileInfo(videos_->item(0)->text()).fileName()
                                : tr("%1 videos").arg(videos_->count());
  job_->start(args, tr("Predicting %1 …").arg(what_));
  updateButtons();
}

void PredictPanel::onFinished(const CliJob::Result& result) {
  updateButtons();
  if (result.cancelled) {
    setStatus(tr("Prediction of %1 cancelled.").arg(what_));
    emit finished(false);
    return;
  }
  // Exit code 1 with a report: some videos could not be read (each row says why).
  const auto j = result.json();
  if (!result.startError.isEmpty() || j.is_discarded() || !j.contains("videos") ||
      !j["videos"].is_array()) {
    setStatus(
        result.ok() ? tr("ampstudio-cli predict printed nothing I can read.") : result.failure(),
        true);
    emit finished(false);
    return;
  }
  json_ = result.out;
  table_->clearSpans();
  table_->setRowCount(0);
  std::vector<std::pair<int, QString>> failures;
  detection_ = j.value("detection", false);
  table_->setHorizontalHeaderLabels(
      detection_ ? QStringList{tr("Video · box"), tr("Top action"), tr("Probability"), tr("Top 5"),
                               tr("Second"), tr("Seconds")}
                 : QStringList{tr("Video"), tr("Top class"), tr("Probability"), tr("Top 5"),
                               tr("Views"), tr("Seconds")});
  const int boxes = detection_ ? showBoxes(j, failures) : 0;
  for (const auto& v : detection_ ? nlohmann::json::array() : j["videos"]) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    const QString path = QString::fromStdString(v.value("video", std::string()));
    auto* video = new QTableWidgetItem(QFileInfo(path).fileName());
    video->setToolTip(path);
    table_->setItem(row, Video, video);
    const std::string error = v.value("error", std::string());
    if (!error.empty()) {
      failures.emplace_back(row, QString::fromStdString(error));
      continue;
    }
    QStringList top5;
    const auto top = v.value("top", nlohmann::json::array());
    for (std::size_t k = 0; k < top.size(); ++k) {
      const std::string name = top[k].value("name", std::string());
      const QString label = name.empty() ? tr("class %1").arg(top[k].value("class", -1))
                                         : QString::fromStdString(name);
      const double p = top[k].value("probability", 0.0);
      if (k == 0) {
        auto* cls = new QTableWidgetItem(label);
        cls->setToolTip(tr("class %1").arg(top[k].value("class", -1)));
        table_->setItem(row, TopClass, cls);
        auto* prob = new QTableWidgetItem(percent(p));
        prob->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table_->setItem(row, Probability, prob);
      }
      top5 << QStringLiteral("%1 %2").arg(label, percent(p));
    }
    table_->setItem(row, Top5, new QTableWidgetItem(top5.join(QStringLiteral(" · "))));
    auto* views = new QTableWidgetItem(QString::number(v.value("views", 0)));
    views->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(row, Views, views);
    auto* secs = new QTableWidgetItem(QString::number(v.value("seconds", 0.0), 'f', 2));
    secs->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(row, Seconds, secs);
  }
  for (int c : {int(Video), int(TopClass), int(Probability), int(Views), int(Seconds)})
    table_->resizeColumnToContents(c);
  // Why a video failed spans the row's other columns (after sizing them: a long reason would
  // widen the class column).
  for (const auto& [row, error] : failures) {
    auto* why = new QTableWidgetItem(tr("cannot predict: %1").arg(error));
    why->setForeground(kError);
    why->setToolTip(error);
    table_->setItem(row, TopClass, why);
    table_->setSpan(row, TopClass, 1, ColumnCount - TopClass);
  }
  const int failed = static_cast<int>(failures.size());
  if (detection_) {
    const int inputs = static_cast<int>(j["videos"].size());
    QString text = tr("Predicted the actions of %n box(es)", nullptr, boxes) +
                   tr(" of %1 in %2 s").arg(what_).arg(job_->elapsedMs() / 1000.0, 0, 'f', 1);
    for (const auto& v : j["videos"])
      if (v.contains("output"))
        text += tr("; wrote %1").arg(QString::fromStdString(v.value("output", std::string())));
    if (failed) text += tr("; %1 of %2 inputs failed (see their rows)").arg(failed).arg(inputs);
    setStatus(text + ".", failed == inputs, failed > 0 && failed < inputs);
    updateButtons();
    emit finished(true);
    return;
  }
  const int n = table_->rowCount();
  setStatus(failed == 0
                ? tr("Predicted %1 in %2 s.").arg(what_).arg(job_->elapsedMs() / 1000.0, 0, 'f', 1)
                : tr("Predicted %1 of %2 videos in %3 s; %4 could not be read (see their rows).")
                      .arg(n - failed)
                      .arg(n)
                      .arg(job_->elapsedMs() / 1000.0, 0, 'f', 1)
                      .arg(failed),
            failed == n, failed > 0 && failed < n);  // some predicted: a warning, not an error
  updateButtons();
  emit finished(true);
}

int PredictPanel::showBoxes(const nlohmann::json& j,
                            std::vector<std::pair<int, QString>>& failures) {
  int boxes = 0;
  auto right = [](const QString& text) {
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
  };
  for (const auto& v : j["videos"]) {
    const QString path = QString::fromStdString(v.value("video", std::string()));
    const QString name = QFileInfo(path).fileName();
    if (v.contains("error") && !v.contains("keyframes")) {
      const int row = table_->rowCount();
      table_->insertRow(row);
      table_->setItem(row, Video, new QTableWidgetItem(name));
      failures.emplace_back(row, QString::fromStdString(v.value("error", std::string())));
      continue;
    }
    for (const auto& k : v.value("keyframes", nlohmann::json::array())) {
      int index = 0;
      for (const auto& b : k.value("boxes", nlohmann::json::array())) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        ++boxes;
        const auto box = b.value("box", std::vector<double>(4, 0.0));
        auto* video = new QTableWidgetItem(tr("%1 · box %2").arg(name).arg(++index));
        video->setToolTip(tr("%1\nbox x1 %2, y1 %3, x2 %4, y2 %5 (fractions of the frame)")
                              .arg(path)
                              .arg(box[0], 0, 'f', 3)
                              .arg(box[1], 0, 'f', 3)
                              .arg(box[2], 0, 'f', 3)
                              .arg(box[3], 0, 'f', 3));
        table_->setItem(row, Video, video);
        QStringList top5;
        const auto top = b.value("top", nlohmann::json::array());
        for (std::size_t t = 0; t < top.size(); ++t) {
          const std::string n = top[t].value("name", std::string());
          const QString label = n.empty() ? tr("action %1").arg(top[t].value("action", -1))
                                          : QString::fromStdString(n);
          const double p = top[t].value("probability", 0.0);
          if (t == 0) {
            table_->setItem(row, TopClass, new QTableWidgetItem(label));
            table_->setItem(row, Probability, right(percent(p)));
          }
          top5 << QStringLiteral("%1 %2").arg(label, percent(p));
        }
        table_->setItem(row, Top5, new QTableWidgetItem(top5.join(QStringLiteral(" · "))));
        table_->setItem(row, Views, right(QString::number(k.value("second", 0))));
        table_->setItem(row, Seconds, right(QString::number(v.value("seconds", 0.0), 'f', 2)));
      }
    }
  }
  return boxes;
}

QString PredictPanel::exportCsv(const QString& path) const {
  const auto j =
      nlohmann::json::parse(json_.constData(), json_.constData() + json_.size(), nullptr, false);
  if (j.is_discarded()) return tr("Nothing predicted yet.");
  QString text = detection_ ? "video,second,box,x1,y1,x2,y2,rank,action,name,probability\n"
                            : "video,rank,class,name,probability,views,seconds,error\n";
  for (const auto& v :
       detection_ ? j.value("videos", nlohmann::json::array()) : nlohmann::json::array())
    for (const auto& k : v.value("keyframes", nlohmann::json::array())) {
      int index = 0;
      for (const auto& b : k.value("boxes", nlohmann::json::array())) {
        const auto box = b.value("box", std::vector<double>(4, 0.0));
        ++index;
        int rank = 1;
        for (const auto& t : b.value("top", nlohmann::json::array()))
          text += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,")
                      .arg(csvField(QString::fromStdString(v.value("video", std::string()))))
                      .arg(k.value("second", 0))
                      .arg(index)
                      .arg(box[0], 0, 'g', 6)
                      .arg(box[1], 0, 'g', 6)
                      .arg(box[2], 0, 'g', 6)
                      .arg(box[3], 0, 'g', 6)
                      .arg(rank++)
                      .arg(t.value("action", -1)) +
                  QStringLiteral("%1,%2\n")
                      .arg(csvField(QString::fromStdString(t.value("name", std::string()))))
                      .arg(t.value("probability", 0.0), 0, 'g', 8);
      }
    }
  for (const auto& v :
       detection_ ? nlohmann::json::array() : j.value("videos", nlohmann::json::array())) {
    const QString video = csvField(QString::fromStdString(v.value("video", std::string())));
    const QString tail =
        QStringLiteral("%1,%2").arg(v.value("views", 0)).arg(v.value("seconds", 0.0), 0, 'f', 3);
    if (v.contains("error")) {
      text +=
          QStringLiteral("%1,,,,,%2,%3\n")
              .arg(video, tail, csvField(QString::fromStdString(v.value("error", std::string()))));
      continue;
    }
    int rank = 1;
    for (const auto& t : v.value("top", nlohmann::json::array()))
      text += QStringLiteral("%1,%2,%3,%4,%5,%6,\n")
                  .arg(video)
                  .arg(rank++)
                  .arg(t.value("class", -1))
                  .arg(csvField(QString::fromStdString(t.value("name", std::string()))))
                  .arg(t.value("probability", 0.0), 0, 'g', 8)
                  .arg(tail);
  }
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) < 0 || !f.commit())
    return tr("%1: %2").arg(path, f.errorString());
  return {};
}

void PredictPanel::setStatus(const QString& text, bool error, bool warning) {
  status_->setText(text);
  status_->setStyleSheet(error     ? QStringLiteral("color: %1").arg(kError.name())
                         : warning ? QStringLiteral("color: %1").arg(kWarning.name())
                                   : QString());
}

void PredictPanel::updateButtons() {
  const bool running = busy();
  predictButton_->setEnabled(!running && videos_->count() > 0);
  cancelButton_->setEnabled(running);
  exportButton_->setEnabled(!running && !json_.isEmpty());
}

}  // namespace amp::widgets
