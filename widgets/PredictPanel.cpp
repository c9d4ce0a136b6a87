#include "PredictPanel.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include "PredictionTable.h"
#include "VideoPlayer.h"
#include "system/DeviceInfo.h"

namespace amp::widgets {

namespace {
const QColor kError("#d62728");
const QColor kWarning("#b35c00");  // dark orange: readable on the light window

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
      playButton_(new QPushButton(tr("Play Video…"))),
      status_(new QLabel),
      table_(new PredictionTable) {
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
  output_->setPlaceholderText(tr("DEMO.OUTPUT_FILE, else no video (one input: the demo)"));
  output_->setToolTip(
      tr("Run PySlowFast's demo on the one input and write it again with the predictions drawn: "
         "the classes of each window sliding over it (DEMO.BUFFER_SIZE, DEMO.CLIP_VIS_SIZE), or "
         "each person box and its actions with a detection config"));
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
    const QString path = QFileDialog::getSaveFileName(this, tr("Demo video"), output_->text(),
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
  actions->addWidget(playButton_);
  actions->addStretch();
  playButton_->setToolTip(tr("Watch the video the demo wrote"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

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
  connect(playButton_, &QPushButton::clicked, this, [this] { playVideo(); });
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
  // A video to write makes it the demo (one input); otherwise the multi-view prediction of each.
  const QString output = output_->text().trimmed();
  if (!output.isEmpty() && videos_->count() != 1) {
    setStatus(tr("Write video runs the demo on one input: keep one video, or clear Write video "
                 "to predict %1.")
                  .arg(videos_->count()),
              true);
    return;
  }
  QStringList args =
      QStringList{output.isEmpty() ? "predict" : "demo", "--json", "--cfg", cfgPath} +
      job_->threadArgs();
  if (!checkpoint_->text().trimmed().isEmpty())
    args << "--checkpoint" << checkpoint_->text().trimmed();
  if (!labels_->text().trimmed().isEmpty()) args << "--labels" << labels_->text().trimmed();
  if (!boxes_->text().trimmed().isEmpty()) args << "--boxes" << boxes_->text().trimmed();
  if (output.isEmpty())
    args << videos();
  else
    args << "--output" << output << "--input" << videos().front();
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
  // Exit code 1 with a report: some inputs could not be read (each row says why).
  const auto j = result.json();
  const PredictionTable::Shown shown =
      result.startError.isEmpty() && !j.is_discarded() ? table_->show(j) : PredictionTable::Shown{};
  if (shown.rows == 0 && shown.inputs == 0) {
    setStatus(result.ok() ? tr("ampstudio-cli printed nothing I can read.") : result.failure(),
              true);
    emit finished(false);
    return;
  }
  outputs_ = shown.outputs;
  const QString secs = QString::number(job_->elapsedMs() / 1000.0, 'f', 1);
  const int failed = shown.failed;
  QString text;
  if (shown.kind == PredictionTable::Kind::Boxes) {
    text = tr("Predicted the actions of %n box(es)", nullptr, shown.rows - failed) +
           tr(" of %1 in %2 s").arg(what_, secs);
    if (failed)
      text += tr("; %1 of %2 inputs failed (see their rows)").arg(failed).arg(shown.inputs);
  } else if (shown.kind == PredictionTable::Kind::Windows) {
    text = failed
               ? tr("The demo could not run on %1 (see its row)").arg(what_)
               : tr("Classified %n window(s) of %1 in %2 s", nullptr, shown.rows).arg(what_, secs);
  } else {
    text = failed == 0 ? tr("Predicted %1 in %2 s").arg(what_, secs)
                       : tr("Predicted %1 of %2 videos in %3 s; %4 could not be read (see their "
                            "rows)")
                             .arg(shown.rows - failed)
                             .arg(shown.rows)
                             .arg(secs)
                             .arg(failed);
  }
  for (const QString& o : outputs_) text += tr("; wrote %1 (Play Video…)").arg(o);
  // Some predicted: a warning, not an error.
  setStatus(text + ".", failed == shown.rows, failed > 0 && failed < shown.rows);
  updateButtons();
  emit finished(true);
}

QString PredictPanel::exportCsv(const QString& path) const {
  return table_->exportCsv(path);
}

bool PredictPanel::detectionResult() const {
  return table_->kind() == PredictionTable::Kind::Boxes;
}

QTableWidget* PredictPanel::table() const {
  return table_;
}

void PredictPanel::playVideo() {
  if (outputs_.isEmpty()) return;
  auto* dialog = new QDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(QFileInfo(outputs_.front()).fileName());
  auto* player = new VideoPlayer;
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
  auto* layout = new QVBoxLayout(dialog);
  layout->addWidget(player, 1);
  layout->addWidget(buttons);
  QString error;
  if (!player->open(outputs_.front(), &error)) {
    setStatus(error, true);
    delete dialog;
    return;
  }
  player_ = player;
  dialog->resize(std::max(480, player->image().width() + 40),
                 std::max(360, player->image().height() + 110));
  dialog->show();
  player->play();
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
  exportButton_->setEnabled(!running && !table_->empty());
  playButton_->setEnabled(!running && !outputs_.isEmpty());
}

}  // namespace amp::widgets
