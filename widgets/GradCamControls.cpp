#include "GradCamControls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLinearGradient>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "vis/ColourMap.h"
#include "vis/GradCamSheet.h"

namespace amp::widgets {
namespace {

constexpr int kBarWidth = 180, kBarHeight = 12;

QString joinedLayers(const std::vector<std::string>& layers) {
  QStringList out;
  for (const auto& l : layers) out << QString::fromStdString(l);
  return out.join(" + ");
}

}  // namespace

ColourMapLegend::ColourMapLegend(QWidget* parent) : QWidget(parent) {
  setObjectName("gradCamLegend");
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void ColourMapLegend::setColourMap(const std::string& name) {
  map_ = name;
  update();
}

void ColourMapLegend::setCaption(const QString& caption) {
  caption_ = caption;
  setToolTip(caption);
  update();
}

QSize ColourMapLegend::sizeHint() const {
  return {kBarWidth + 400, std::max(kBarHeight, fontMetrics().height()) + 6};
}

void ColourMapLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QFontMetrics fm = fontMetrics();
  const int y = (height() - kBarHeight) / 2;
  int x = 0;
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(QRect(x, 0, fm.horizontalAdvance(tr("low")) + 4, height()), Qt::AlignVCenter,
             tr("low"));
  x += fm.horizontalAdvance(tr("low")) + 6;
  std::string error;
  if (const auto* map = vis::findColourMap(map_, &error))  // one rectangle per table entry
    for (int i = 0; i < vis::ColourMap::kEntries; ++i) {
      const auto c = map->bytesAt((i + 0.5f) / vis::ColourMap::kEntries);
      const int x0 = x + i * kBarWidth / vis::ColourMap::kEntries;
      const int x1 = x + (i + 1) * kBarWidth / vis::ColourMap::kEntries;
      p.fillRect(QRect(x0, y, std::max(1, x1 - x0), kBarHeight), QColor(c[0], c[1], c[2]));
    }
  x += kBarWidth + 6;
  p.drawText(QRect(x, 0, fm.horizontalAdvance(tr("high")) + 4, height()), Qt::AlignVCenter,
             tr("high"));
  x += fm.horizontalAdvance(tr("high")) + 14;
  p.drawText(QRect(x, 0, width() - x, height()), Qt::AlignVCenter,
             fm.elidedText(caption_, Qt::ElideRight, std::max(0, width() - x)));
}

GradCamControls::GradCamControls(QWidget* parent)
    : QWidget(parent),
      toggle_(new QCheckBox(tr("Grad-CAM"))),
      checkpoint_(new QComboBox),
      browse_(new QPushButton(tr("Browse..."))),
      target_(new QComboBox),
      class_(new QSpinBox),
      layer_(new QComboBox),
      colours_(new QComboBox),
      alpha_(new QDoubleSpinBox),
      legend_(new ColourMapLegend),
      options_(new QWidget) {
  toggle_->setObjectName("gradCamToggle");
  toggle_->setToolTip(
      tr("Heat maps of where the model looks for a class (Grad-CAM, as PySlowFast's "
         "TENSORBOARD.MODEL_VIS.GRAD_CAM), over the frames the model gets"));
  checkpoint_->addItem(tr("The config's checkpoint"), QString());
  checkpoint_->setToolTip(
      tr("The weights: the config's test checkpoint (TEST.CHECKPOINT_FILE_PATH, else the newest in "
         "OUTPUT_DIR, else TRAIN.CHECKPOINT_FILE_PATH), a run's checkpoint or a file"));
  checkpoint_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  target_->addItem(tr("predicted class"));
  target_->addItem(tr("true label"));
  target_->addItem(tr("class"));
  target_->setToolTip(
      tr("Whose score the map explains: the top-1 prediction (PySlowFast's "
         "default), the clip's label (GRAD_CAM.USE_TRUE_LABEL) or a class"));
  class_->setRange(0, 0);
  layer_->addItem(tr("the config's layer"));
  layer_->setToolTip(
      tr("The layer whose activations and gradients make the map, one per pathway "
         "(GRAD_CAM.LAYER_LIST; default: the last residual block)"));
  for (const auto& name : vis::colourMapNames()) colours_->addItem(QString::fromStdString(name));
  alpha_->setRange(0.0, 1.0);
  alpha_->setSingleStep(0.1);
  alpha_->setValue(vis::kDefaultAlpha);
  alpha_->setToolTip(tr("The heat map's weight over the frame (PySlowFast: 0.5)"));
  auto* row = new QHBoxLayout(options_);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(checkpoint_);
  row->addWidget(browse_);
  row->addWidget(new QLabel(tr("Target")));
  row->addWidget(target_);
  row->addWidget(class_);
  row->addWidget(new QLabel(tr("Layer")));
  row->addWidget(layer_);
  row->addWidget(new QLabel(tr("Colours")));
  row->addWidget(colours_);
  row->addWidget(new QLabel(tr("Alpha")));
  row->addWidget(alpha_);
  row->addStretch(1);
  auto* top = new QHBoxLayout;
  top->addWidget(toggle_);
  top->addWidget(options_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addWidget(legend_);
  const auto colourMapChanged = [this] {
    legend_->setColourMap(colourMap());
    emit changed();
  };
  connect(toggle_, &QCheckBox::toggled, this, [this] {
    updateEnabled();
    emit changed();
  });
  connect(checkpoint_, &QComboBox::currentIndexChanged, this, &GradCamControls::changed);
  connect(browse_, &QPushButton::clicked, this, &GradCamControls::browse);
  connect(target_, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabled();
    emit changed();
  });
  connect(class_, &QSpinBox::valueChanged, this, &GradCamControls::changed);
  connect(layer_, &QComboBox::currentIndexChanged, this, &GradCamControls::changed);
  connect(colours_, &QComboBox::currentIndexChanged, this, colourMapChanged);
  connect(alpha_, &QDoubleSpinBox::valueChanged, this, &GradCamControls::changed);
  updateEnabled();
}

bool GradCamControls::on() const {
  return toggle_->isChecked();
}
void GradCamControls::setOn(bool on) {
  toggle_->setChecked(on);
}

vis::GradCamOptions GradCamControls::options() const {
  vis::GradCamOptions o;
  o.checkpoint = checkpoint_->currentData().toString().toStdString();
  o.checkpoint_source = tr("Checkpoint").toStdString();
  o.true_label = target_->currentIndex() == 1;
  o.target_class = target_->currentIndex() == 2 ? class_->value() : -1;
  const QStringList layers = layer_->currentData().toStringList();
  for (const auto& l : layers) o.layers.push_back(l.toStdString());
  if (!o.layers.empty()) o.layers_source = "Layer";
  return o;
}

std::string GradCamControls::colourMap() const {
  return colours_->currentText().toStdString();
}
double GradCamControls::alpha() const {
  return alpha_->value();
}

void GradCamControls::setColourMap(const std::string& name) {
  const int at = colours_->findText(QString::fromStdString(name));
  if (at < 0) return;
  const QSignalBlocker quiet(colours_);
  colours_->setCurrentIndex(at);
  legend_->setColourMap(name);
}

void GradCamControls::setCheckpoints(const QStringList& paths) {
  const QSignalBlocker quiet(checkpoint_);
  while (checkpoint_->count() > 1) checkpoint_->removeItem(1);
  for (const QString& p : paths) checkpoint_->addItem(QFileInfo(p).fileName(), p);
  checkpoint_->setCurrentIndex(checkpoint_->count() - 1);  // the newest, or the config's
}

void GradCamControls::setLayerChoices(const std::vector<std::vector<std::string>>& choices) {
  const QStringList current = layer_->currentData().toStringList();
  const QSignalBlocker quiet(layer_);
  while (layer_->count() > 1) layer_->removeItem(1);
  for (const auto& set : choices) {
    QStringList names;
    for (const auto& l : set) names << QString::fromStdString(l);
    layer_->addItem(joinedLayers(set), names);
  }
  const int at = current.isEmpty() ? 0 : layer_->findData(current);
  layer_->setCurrentIndex(at < 0 ? 0 : at);
}

void GradCamControls::setClasses(int classes) {
  class_->setRange(0, std::max(0, classes - 1));
}

void GradCamControls::setLegendCaption(const QString& caption) {
  legend_->setCaption(caption);
}

void GradCamControls::browse() {
  const QString file =
      QFileDialog::getOpenFileName(this, tr("Grad-CAM checkpoint"), QString(),
                                   tr("Checkpoints (*.pyth *.pth *.pt *.pkl);;All files (*)"));
  if (file.isEmpty()) return;
  int at = checkpoint_->findData(file);
  if (at < 0) {
    checkpoint_->addItem(QFileInfo(file).fileName(), file);
    at = checkpoint_->count() - 1;
  }
  checkpoint_->setCurrentIndex(at);
}

void GradCamControls::updateEnabled() {
  options_->setEnabled(toggle_->isChecked());
  legend_->setVisible(toggle_->isChecked());
  class_->setEnabled(target_->currentIndex() == 2);
}

}  // namespace amp::widgets
