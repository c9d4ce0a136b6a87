#include "ClipPreviewPanel.h"

#include <algorithm>

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QVBoxLayout>

#include <sys/resource.h>
#include <unistd.h>

#include "GradCamControls.h"
#include "checkpoint/ImportedRun.h"
#include "configfile/ConfigLoader.h"
#include "data/ClassNames.h"
#include "data/ClipPreview.h"
#include "data/Dataset.h"
#include "metrics/AvaLabelNames.h"
#include "runlog/CheckpointFiles.h"
#include "runlog/RunDirectory.h"
#include "vis/ColourMap.h"
#include "vis/GradCamSheet.h"

namespace amp::widgets {
namespace {

data::Split splitOf(int index) {
  return index == 0 ? data::Split::Train : index == 1 ? data::Split::Val : data::Split::Test;
}

QColor boxColour(std::size_t k) {
  const auto c = data::avaBoxColour(k);
  return QColor(c[0], c[1], c[2]);
}

// "1: 12 stand, 80 watch (a person)": box k's number (as drawn) and its actions.
QString boxText(const data::PreviewBox& b, std::size_t k, const std::map<int, std::string>& names) {
  QStringList actions;
  for (const int id : b.labels) {
    const auto name = names.find(id);
    actions << (id < 0 ? QObject::tr("no action")
                : name == names.end()
                    ? QString::number(id)
                    : QString("%1 %2").arg(id).arg(QString::fromStdString(name->second)));
  }
  return QString("%1: %2").arg(k + 1).arg(actions.join(", "));
}

QString describe(const data::PreviewClip& c, data::Split split, int copies) {
  QStringList frames;
  for (const auto f : c.info.frame_indices) frames << QString::number(f);
  const auto& r = c.info.region;
  QString text = c.second >= 0  // AVA: labels are per box (below)
                     ? QString("<b>%1</b> &nbsp; keyframe second %2")
                           .arg(QString::fromStdString(c.path).toHtmlEscaped())
                           .arg(c.second)
                     : QString("<b>%1</b> &nbsp; label %2%3")
                           .arg(QString::fromStdString(c.path).toHtmlEscaped())
                           .arg(c.label)
                           .arg(c.label_name.empty()
                                    ? QString()
                                    : " " + QString::fromStdString(c.label_name).toHtmlEscaped());
  if (split == data::Split::Test) text += QString(" &nbsp; view %1").arg(c.view);
  if (copies > 1) text += QString(" &nbsp; copy %1 of %2").arg(c.copy + 1).arg(copies);
  text += QString("<br>frames %1").arg(frames.join(' '));
  text += QString("<br>region %1x%2 at (%3, %4) of the %5x%6 frame%7 &rarr; %8")
              .arg(r.width)
              .arg(r.height)
              .arg(r.x)
              .arg(r.y)
              .arg(c.info.decoded.width)
              .arg(c.info.decoded.height)
              .arg(c.info.flipped ? QObject::tr(", flipped (red outline)") : QString())
              .arg(QString("%1x%2").arg(c.width).arg(c.height));
  if (!c.info.augment_ops.empty()) {
    QStringList ops;
    for (const auto& op : c.info.augment_ops)
      ops << QString::fromStdString(data::describeAugOp(op)).toHtmlEscaped();
    text += QObject::tr("<br>RandAugment, in order: %1").arg(ops.join(", "));
  }
  if (!c.info.erased_boxes.empty()) {
    QStringList boxes;
    for (const auto& b : c.info.erased_boxes)
      boxes << QString("%1x%2 at (%3, %4)").arg(b.width).arg(b.height).arg(b.left).arg(b.top);
    text +=
        QObject::tr("<br>random erasing: %1 of the %2x%2 crop").arg(boxes.join(", ")).arg(c.crop);
  }
  if (c.second >= 0)
    text += QObject::tr(
                "<br>top: the keyframe with its boxes; below: the %1 frames the model gets, the "
                "boxes as the model gets them (after scaling, crop and flip)")
                .arg(c.frames);
  else if (!c.slow.empty())
    text += QObject::tr(
                "<br>top: first source frame; middle: fast pathway (%1 frames); bottom: slow "
                "pathway (%2)")
                .arg(c.frames)
                .arg(c.slow_frames);
  else
    text += QObject::tr("<br>top: first source frame; below: the %1 frames the model gets")
                .arg(c.frames);
  return text;
}

// "class 3 growing (predicted, 0.41) at s5/pathway0_res2": what a clip's map is of.
QString camText(const vis::GradCamResult& r, const std::map<int, std::string>& names) {
  const auto name = names.find(r.target_class);
  QStringList layers;
  for (const auto& m : r.maps) layers << QString::fromStdString(m.layer);
  QString text =
      QObject::tr("class %1%2 (%3, %4) at %5")
          .arg(r.target_class)
          .arg(name == names.end() ? QString() : " " + QString::fromStdString(name->second))
          .arg(r.target_is_prediction ? QObject::tr("predicted")
               : r.target_is_label    ? QObject::tr("the clip's label")
                                      : QObject::tr("chosen"))
          .arg(r.target_score, 0, 'f', 2)
          .arg(layers.join(" + "));
  for (const auto& m : r.maps)
    if (m.flat)
      text += QObject::tr("; %1 shows no positive evidence for it")
                  .arg(QString::fromStdString(m.layer));
  return text;
}

bool sameOptions(const vis::GradCamOptions& a, const vis::GradCamOptions& b) {
  return a.checkpoint == b.checkpoint && a.layers == b.layers && a.target_class == b.target_class &&
         a.true_label == b.true_label;
}

}  // namespace

ClipPreviewPanel::ClipPreviewPanel(QWidget* parent)
    : QWidget(parent),
      split_(new QComboBox),
      epoch_(new QSpinBox),
      clip_(new QSpinBox),
      show_(new QPushButton(tr("Show"))),
      source_label_(new QLabel),
      back_(new QPushButton(tr("Back to the Editor's Config"))),
      status_(new QLabel),
      scroll_(new QScrollArea),
      content_(new QWidget),
      list_(new QVBoxLayout(content_)),
      gradCam_(new GradCamControls) {
  split_->addItems({tr("train"), tr("val"), tr("test")});
  split_->setToolTip(
      tr("train: with the training augmentation; val: one clip per video; test: every view of the "
         "multi-view test"));
  epoch_->setRange(0, 100000);
  epoch_->setToolTip(tr("The epoch whose shuffle and random draws to use"));
  clip_->setRange(0, 10000000);
  clip_->setToolTip(tr("Position in the epoch (training order: shuffled; test: video x views)"));
  auto* prev = new QPushButton(tr("Previous"));
  auto* next = new QPushButton(tr("Next"));
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Split")));
  bar->addWidget(split_);
  bar->addWidget(new QLabel(tr("Epoch")));
  bar->addWidget(epoch_);
  bar->addWidget(new QLabel(tr("Clip")));
  bar->addWidget(clip_);
  bar->addWidget(prev);
  bar->addWidget(next);
  bar->addWidget(show_);
  auto* save = new QPushButton(tr("Save PNG…"));
  save->setToolTip(tr("Save the sheets as shown (boxes, Grad-CAM maps) for a paper or a talk"));
  bar->addWidget(save);
  bar->addStretch(1);
  status_->setWordWrap(true);
  status_->setText(tr("What the model sees: pick a clip and press Show."));
  scroll_->setWidgetResizable(true);
  scroll_->setWidget(content_);
  list_->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  auto* source = new QHBoxLayout;
  source->addWidget(source_label_);
  source->addWidget(back_);
  source->addStretch(1);
  source_label_->hide();
  back_->hide();
  layout->addLayout(source);
  layout->addWidget(gradCam_);
  layout->addWidget(status_);
  layout->addWidget(scroll_, 1);
  connect(show_, &QPushButton::clicked, this, &ClipPreviewPanel::showClip);
  connect(save, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save the clip's sheets"),
        QStringLiteral("clip-%1-%2.png").arg(split_->currentText()).arg(clip_->value()),
        tr("PNG images (*.png)"));
    QString error;
    if (!path.isEmpty() && exportSheets(path, &error).isEmpty())
      QMessageBox::warning(this, tr("Save PNG"), error);
  });
  connect(next, &QPushButton::clicked, this, &ClipPreviewPanel::nextClip);
  connect(prev, &QPushButton::clicked, this, &ClipPreviewPanel::previousClip);
  connect(back_, &QPushButton::clicked, this, &ClipPreviewPanel::showEditorConfig);
  // A Grad-CAM choice made while the toggle is off waits for the toggle; turned off, the clip
  // is shown again without the maps (and without a Grad-CAM error in the status line).
  connect(gradCam_, &GradCamControls::changed, this, [this] {
    if (gradCam_->on() || camRequested_) showClip();
  });
}

bool ClipPreviewPanel::showRun(const QString& runDir) {
  if (!loadRun(runDir)) return false;
  showClip();
  return true;
}

bool ClipPreviewPanel::showSample(const QString& runDir, const QString& split,
                                  const QString& video) {
  if (!loadRun(runDir)) return false;
  data::Split s = data::Split::Test;
  std::string error;
  int position = -1;
  if (!data::splitFromName(split.toStdString(), s))
    error = "no split '" + split.toStdString() + "'";
  else
    position = data::previewPosition(*runConfig_, s, video.toStdString(), &error);
  if (position < 0) {
    status_->setText(
        tr("Cannot preview %1: %2").arg(video, QString::fromStdString(error)).toHtmlEscaped());
    return false;
  }
  // The clip as that evaluation saw it: validation and test draw the same clips in every epoch.
  split_->setCurrentIndex(s == data::Split::Val ? 1 : 2);
  epoch_->setValue(0);
  clip_->setValue(position);
  showClip();
  return true;
}

bool ClipPreviewPanel::loadRun(const QString& runDir) {
  const runlog::RunDirectory dir(runDir.toStdString());
  QString from = tr("its config.yaml");
  if (dir.isPySlowFast()) {  // the config in its newest checkpoint (keys of another PySlowFast
                             // version left out)
    std::string error;
    const auto imported = checkpoint::readImportedRunConfig(dir.dir(), &error);
    if (!imported) {
      status_->setText(tr("Cannot show the clips of %1: %2")
                           .arg(runDir, QString::fromStdString(error))
                           .toHtmlEscaped());
      return false;
    }
    runConfig_ = imported->loaded.config;
    from = tr("the config in %1")
               .arg(QFileInfo(QString::fromStdString(imported->checkpoint)).fileName());
  } else {
    auto loaded = config::ConfigLoader().loadFile(dir.configPath());
    if (!loaded.ok()) {
      status_->setText(
          tr("Cannot show the clips of %1: %2")
              .arg(runDir, QString::fromStdString(config::formatDiagnostics(loaded.diagnostics)))
              .toHtmlEscaped());
      return false;
    }
    runConfig_ = std::move(loaded.config);
  }
  runDir_ = runDir;
  QStringList checkpoints;
  for (const auto& file : runlog::listCheckpointFiles(dir.dir(), runConfig_->getString("TASK")))
    checkpoints << QString::fromStdString(file);
  gradCam_->setCheckpoints(checkpoints);
  source_label_->setText(
      tr("Clips of run <b>%1</b> (%2)")
          .arg(QFileInfo(runDir).fileName().toHtmlEscaped(), from.toHtmlEscaped()));
  source_label_->show();
  back_->show();
  return true;
}

void ClipPreviewPanel::showEditorConfig() {
  runConfig_.reset();
  runDir_.clear();
  gradCam_->setCheckpoints({});
  source_label_->hide();
  back_->hide();
  showClip();
}

ClipPreviewPanel::~ClipPreviewPanel() {
  if (worker_.joinable()) worker_.join();
}

void ClipPreviewPanel::nextClip() {
  clip_->setValue(clip_->value() + 1);
  showClip();
}

void ClipPreviewPanel::previousClip() {
  clip_->setValue(std::max(0, clip_->value() - 1));
  showClip();
}

void ClipPreviewPanel::showClip() {
  const auto cfg = runConfig_ ? runConfig_ : source_ ? source_() : std::nullopt;
  if (!cfg) {
    status_->setText(tr("The config has errors: fix them in the Config tab to preview its clips."));
    return;
  }
  if (worker_.joinable())
    worker_.join();  // at most one preview at a time; each takes well under a second
  const int generation = ++generation_;
  pending_ = true;
  status_->setText(tr("Decoding ..."));
  const data::Split split = splitOf(split_->currentIndex());
  const int epoch = epoch_->value(), clip = clip_->value();
  // The config's colour map becomes the menu's choice when the config changes it.
  if (const auto map = cfg->getString("TENSORBOARD.MODEL_VIS.GRAD_CAM.COLORMAP");
      map != configColourMap_) {
    configColourMap_ = map;
    gradCam_->setColourMap(map);
  }
  const bool camOn = gradCam_->on();
  camRequested_ = camOn;
  if (camOn) status_->setText(tr("Decoding and computing Grad-CAM ..."));
  worker_ = std::thread([this, cfg = *cfg, split, epoch, clip, generation, yield = trainingActive_,
                         camOn, camOptions = gradCam_->options()] {
    // Beside a training run: this thread (only) yields the cores to it.
    // 10 steps nicer than the studio, as the CLI jobs are (nice(10)); 19 is the floor.
    const auto tid = static_cast<id_t>(::gettid());
    if (yield)
      (void)::setpriority(PRIO_PROCESS, tid, std::min(19, ::getpriority(PRIO_PROCESS, tid) + 10));
    lastWorkerNice_ = ::getpriority(PRIO_PROCESS, tid);
    std::vector<data::PreviewClip> clips;
    std::string error;
    bool ok = false;
    try {  // an exception leaving this thread would end the studio
      ok = data::previewClips(cfg, split, epoch, clip, 1, clips, &error);
    } catch (const std::exception& e) {
      error = std::string("the preview failed: ") + e.what();
    }
    // AVA's action names: the label map is a metric's file, read here rather than in data/.
    std::map<int, std::string> names;
    std::string namesProblem;
    if (ok && !clips.empty() && clips.front().second >= 0) {
      if (auto read = metrics::avaLabelNames(cfg, &namesProblem)) names = std::move(*read);
    }
    CamOutcome cam;
    if (ok && camOn) cam = runGradCam(cfg, camOptions, clips);
    if (!camOn) cam_.reset();  // Grad-CAM off: its model's memory goes, here off the GUI thread
    QMetaObject::invokeMethod(
        this,
        [this, generation, clips = std::move(clips),
         error = QString::fromStdString(ok ? "" : error), names = std::move(names),
         namesProblem = QString::fromStdString(namesProblem), cam = std::move(cam)]() mutable {
          showResult(generation, std::move(clips), error, std::move(names), namesProblem,
                     std::move(cam));
        },
        Qt::QueuedConnection);
  });
}

void ClipPreviewPanel::showResult(int generation, std::vector<data::PreviewClip> clips,
                                  const QString& error, std::map<int, std::string> actionNames,
                                  const QString& namesProblem, CamOutcome cam) {
  if (generation != generation_) return;  // a newer request is on its way
  pending_ = false;
  for (auto* w : images_) w->deleteLater();
  images_.clear();
  sheets_.clear();
  boxTexts_.clear();
  clips_ = std::move(clips);
  camResults_ = std::move(cam.results);
  if (!cam.layerChoices.empty()) gradCam_->setLayerChoices(cam.layerChoices);
  if (cam.classes > 0) gradCam_->setClasses(cam.classes);
  gradCam_->setLegendCaption(
      camResults_.empty() ? QString()
                          : tr("Grad-CAM of %1").arg(camText(camResults_.front(), cam.names)));
  if (!error.isEmpty()) {
    status_->setText(error.toHtmlEscaped());
    emit previewReady();
    return;
  }
  const data::Split split = splitOf(split_->currentIndex());
  status_->setText(
      tr("%1 clip %2 of epoch %3: %4")
          .arg(split_->currentText())
          .arg(clip_->value())
          .arg(epoch_->value())
          .arg(clips_.size() == 1
                   ? tr("one clip for the model")
                   : tr("%1 clips for the model (DATA.TRAIN_CROP_NUM_TEMPORAL windows "
                        "x AUG.NUM_SAMPLE x DATA.TRAIN_CROP_NUM_SPATIAL copies, "
                        "each augmented on its own)")
                         .arg(clips_.size())) +
      (clips_.empty() || clips_.front().shape.empty()
           ? QString()
           : "<br>" + QString::fromStdString(clips_.front().shape).toHtmlEscaped()) +
      (namesProblem.isEmpty()
           ? QString()
           : "<br>" + tr("Boxes show action ids only: %1").arg(namesProblem).toHtmlEscaped()) +
      (cam.error.isEmpty() ? QString()
                           : "<br>" + tr("Grad-CAM: %1").arg(cam.error).toHtmlEscaped()));
  std::string colourProblem;
  const vis::ColourMap* colours = vis::findColourMap(gradCam_->colourMap(), &colourProblem);
  int at = 0;
  for (const auto& c : clips_) {
    const std::size_t shown = static_cast<std::size_t>(at / 2);
    const bool heat = shown < camResults_.size() && colours;
    const auto sheet = heat ? vis::gradCamSheet(c, camResults_[shown], *colours, gradCam_->alpha())
                            : data::contactSheet(c, /*drawBoxes=*/false);  // boxes drawn below
    std::vector<QString> texts;
    for (std::size_t k = 0; k < c.boxes.size(); ++k)
      texts.push_back(boxText(c.boxes[k], k, actionNames));
    boxTexts_.push_back(texts);
    QImage image(sheet.rgb.data(), sheet.width, sheet.height, sheet.width * 3,
                 QImage::Format_RGB888);
    sheets_.push_back(image.copy());  // owns its pixels
    QString about = describe(c, split, static_cast<int>(clips_.size()));
    if (heat)
      about += "<br>" + tr("Grad-CAM: the frames under the map of %1")
                            .arg(camText(camResults_[shown], cam.names))
                            .toHtmlEscaped();
    for (std::size_t k = 0; k < texts.size(); ++k)
      about += QString("<br><span style=\"color:%1\">&#9632;</span> box %2")
                   .arg(boxColour(k).name(), texts[k].toHtmlEscaped());
    auto* info = new QLabel(about);
    info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* picture = new QLabel;
    picture->setObjectName(QString("clipSheet%1").arg(at / 2));
    picture->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    list_->insertWidget(at++, info);
    list_->insertWidget(at++, picture);
    images_.push_back(info);
    images_.push_back(picture);
  }
  layoutSheets();
  emit previewReady();
}

ClipPreviewPanel::CamOutcome ClipPreviewPanel::runGradCam(
    const config::Config& cfg, const vis::GradCamOptions& options,
    const std::vector<data::PreviewClip>& clips) {
  CamOutcome out;
  std::string error;
  try {  // an exception leaving the worker would end the studio
    if (!cam_ || !camConfig_ || *camConfig_ != cfg || !sameOptions(camOptions_, options)) {
      cam_.reset();  // the old model's memory goes before the new one is built
      cam_ = vis::GradCam::open(cfg, options, &error);
      camConfig_ = cfg;
      camOptions_ = options;
    }
    if (cam_) {
      const int pathways = cfg.getString("MODEL.ARCH") == "slowfast" ? 2 : 1;
      out.layerChoices = vis::layerChoices(cam_->availableLayers(), pathways);
      out.classes = cam_->classes();
      for (const auto& clip : clips) {
        vis::GradCamResult r;
        if (!cam_->run(clip, r, &error)) {
          out.results.clear();
          break;
        }
        out.results.push_back(std::move(r));
      }
    }
  } catch (const std::exception& e) {
    error = e.what();
    cam_.reset();
  }
  if (!error.empty()) out.error = QString::fromStdString(error);
  // Class names as predict shows them; a names file that is not there costs the names only.
  if (const std::string labels = cfg.getString("DEMO.LABEL_FILE_PATH"); !labels.empty()) {
    std::string ignored;
    if (QFileInfo::exists(QString::fromStdString(labels)) &&
        !data::readClassNames(labels, out.names, ignored))
      out.names.clear();
  }
  return out;
}

QStringList ClipPreviewPanel::exportSheets(const QString& path, QString* error) const {
  QStringList written;
  if (sheets_.empty()) {
    if (error) *error = tr("No clip is shown: press Show first.");
    return written;
  }
  const QFileInfo info(path);
  for (std::size_t i = 0; i < sheets_.size(); ++i) {
    const QString file =
        sheets_.size() == 1
            ? path
            : info.dir().filePath(
                  QStringLiteral("%1_%2.png").arg(info.completeBaseName()).arg(i + 1));
    if (!sheetPixmap(i, sheets_[i].width() * 2).save(file, "PNG")) {
      if (error) *error = tr("Cannot write %1").arg(file);
      return {};
    }
    written << file;
  }
  return written;
}

void ClipPreviewPanel::layoutSheets() {
  // Each sheet scaled to the visible width (never enlarged past 2x), so a 16-frame strip fits.
  const int width = std::max(200, scroll_->viewport()->width() - 24);
  for (std::size_t i = 0; i < sheets_.size(); ++i) {
    const int w = std::min(width, sheets_[i].width() * 2);
    images_[2 * i + 1]->setPixmap(sheetPixmap(i, w));
  }
}

QPixmap ClipPreviewPanel::sheetPixmap(std::size_t i, int w) const {
  QPixmap pixmap = QPixmap::fromImage(sheets_[i].scaledToWidth(w, Qt::SmoothTransformation));
  const data::PreviewClip& c = clips_[i];
  if (c.boxes.empty()) return pixmap;
  // Drawn at the shown size, so the outlines stay thin and the text readable however the sheet
  // is scaled.
  const double scale = static_cast<double>(w) / sheets_[i].width();
  const data::SheetLayout layout = data::contactSheetLayout(c);
  QPainter p(&pixmap);
  QFont font = p.font();
  font.setPixelSize(std::max(10, std::min(14, static_cast<int>(6 * scale))));
  p.setFont(font);
  auto rect = [&](const data::SheetRect& at, const std::array<double, 4>& b) {
    return QRectF((at.x + b[0]) * scale, (at.y + b[1]) * scale, (b[2] - b[0]) * scale,
                  (b[3] - b[1]) * scale);
  };
  for (std::size_t k = 0; k < c.boxes.size(); ++k) {
    const QColor colour = boxColour(k);
    p.setPen(QPen(colour, 2));
    p.setBrush(Qt::NoBrush);
    const QRectF onFrame = rect(layout.full, c.boxes[k].frame);
    p.drawRect(onFrame);
    p.setPen(QPen(colour, 1));
    for (const data::SheetRect& at : layout.fast) p.drawRect(rect(at, c.boxes[k].clip));
    // The label on a dark band above the box (inside it when the box touches the top).
    const QString text = boxTexts_[i][k];
    const QFontMetrics metrics(font);
    QRectF band(onFrame.left(), onFrame.top() - metrics.height() - 1,
                metrics.horizontalAdvance(text) + 6, metrics.height() + 1);
    if (band.top() < 0) band.moveTop(onFrame.top() + 1);
    p.fillRect(band, QColor(0, 0, 0, 170));
    p.setPen(colour);
    p.drawText(band.adjusted(3, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
  }
  return pixmap;
}

void ClipPreviewPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  layoutSheets();
}

}  // namespace amp::widgets
