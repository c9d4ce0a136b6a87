#include "PrecisionForm.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

namespace amp::widgets {
namespace {

/// A number field that shows values as people write them (0.004, 1e-05, 65536), not padded.
class NumberSpin : public QDoubleSpinBox {
 public:
  using QDoubleSpinBox::QDoubleSpinBox;
  QString textFromValue(double v) const override { return QString::number(v, 'g', 8); }
  double valueFromText(const QString& text) const override { return text.toDouble(); }
  QValidator::State validate(QString& text, int&) const override {
    if (text.isEmpty() || text == "-" || text.endsWith('e') || text.endsWith("e-"))
      return QValidator::Intermediate;
    bool ok = false;
    const double v = text.toDouble(&ok);
    if (!ok) return QValidator::Invalid;
    return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
  }
};

struct ModelChoice {
  const char* label;
  const char* modelName;
  const char* arch;
};
const std::vector<ModelChoice>& modelChoices() {
  static const std::vector<ModelChoice> m = {{"X3D", "X3D", "x3d"},
                                             {"SlowFast", "SlowFast", "slowfast"},
                                             {"Slow (ResNet)", "ResNet", "slow"},
                                             {"I3D (ResNet)", "ResNet", "i3d"},
                                             {"C2D (ResNet)", "ResNet", "c2d"},
                                             {"MViT", "MViT", "mvit"}};
  return m;
}

QString tooltipOf(const config::KeyDef& def) {
  QString tip = QStringLiteral("<b>%1</b> (%2")
                    .arg(QString::fromStdString(def.key), QString::fromStdString(def.type.text()));
  if (!def.constraint.empty())
    tip += ", " + QString::fromStdString(def.constraint.text()).toHtmlEscaped();
  return tip + ")<br>" + QString::fromStdString(def.doc).toHtmlEscaped();
}

}  // namespace

const std::vector<PrecisionForm::PrecisionChoice>& PrecisionForm::precisionChoices() {
  static const std::vector<PrecisionChoice> c = {
      {QObject::tr("Auto (BF16 on CPU, FP16 on GPU)"), true, "auto"},
      {QObject::tr("FP32"), false, "auto"},
      {QObject::tr("FP16 mixed (+ loss scaling)"), true, "float16"},
      {QObject::tr("BF16 mixed (autocast)"), true, "bfloat16"}};
  return c;
}

PrecisionForm::PrecisionForm(QWidget* parent)
    : QWidget(parent),
      precision_(new QComboBox),
      model_(new QComboBox),
      device_(new QComboBox),
      ampLr_(new QPushButton(tr("AMP: ×0.6"))),
      scalerNote_(new QLabel),
      problem_(new QLabel) {
  const auto schema = config::KeySchema::builtin();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  problem_->setWordWrap(true);
  problem_->setStyleSheet("QLabel { color: #d62728; }");
  problem_->hide();
  layout->addWidget(problem_);

  auto* amp = new QGroupBox(tr("Mixed precision"));
  auto* ampForm = new QFormLayout(amp);
  for (const auto& c : precisionChoices()) precision_->addItem(c.label);
  precision_->setToolTip(tooltipOf(*schema->find("TRAIN.MIXED_PRECISION")) + "<br><br>" +
                         tooltipOf(*schema->find("AMP.DTYPE")));
  ampForm->addRow(tr("Precision"), precision_);
  fields_["TRAIN.MIXED_PRECISION"] = precision_;
  connect(precision_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    if (i < 0) return;
    const auto& c = precisionChoices()[static_cast<std::size_t>(i)];
    KeyEdits e{{"TRAIN.MIXED_PRECISION", c.mixed}};
    if (c.mixed) e.emplace_back("AMP.DTYPE", c.dtype);
    report(e);
  });
  auto* lrRow = new QWidget;
  auto* lrLayout = new QHBoxLayout(lrRow);
  lrLayout->setContentsMargins(0, 0, 0, 0);
  QWidget* lrScale = addKey(nullptr, "SOLVER.LR_SCALE", {});
  lrLayout->addWidget(lrScale, 1);
  lrLayout->addWidget(ampLr_);
  ampLr_->setToolTip(tr(
      "<b>Scale the learning rate for mixed precision.</b><br>Half-precision gradients are noisier "
      "and "
      "loss-scaled steps can overshoot; a common recipe when turning AMP on is to scale the whole "
      "schedule by about 0.6 (SOLVER.LR_SCALE 0.6) and compare the curves. The base LR stays as "
      "written, "
      "so PySlowFast configs remain unchanged."));
  connect(ampLr_, &QPushButton::clicked, this, [this] { report({{"SOLVER.LR_SCALE", 0.6}}); });
  ampForm->addRow(tr("LR scale"), lrRow);
  addKey(ampForm, "AMP.SCALER", tr("Gradient scaler"));
  addKey(ampForm, "AMP.INIT_SCALE", tr("Initial scale"));
  addKey(ampForm, "AMP.GROWTH_FACTOR", tr("Growth factor"));
  addKey(ampForm, "AMP.BACKOFF_FACTOR", tr("Backoff factor"));
  addKey(ampForm, "AMP.GROWTH_INTERVAL", tr("Growth interval"));
  // The other memory lever next to mixed precision: recompute activations in backward.
  addKey(ampForm, "MODEL.ACT_CHECKPOINT", tr("Activation checkpointing"));
  scalerNote_->setWordWrap(true);
  scalerNote_->setEnabled(false);  // greyed: a hint, not a control
  ampForm->addRow(scalerNote_);
  layout->addWidget(amp);

  auto* run = new QGroupBox(tr("Training"));
  auto* runForm = new QFormLayout(run);
  for (const auto& m : modelChoices()) model_->addItem(m.label);
  model_->setToolTip(tooltipOf(*schema->find("MODEL.MODEL_NAME")) + "<br><br>" +
                     tooltipOf(*schema->find("MODEL.ARCH")));
  fields_["MODEL.ARCH"] = model_;
  connect(model_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    if (i < 0) return;
    const auto& m = modelChoices()[static_cast<std::size_t>(i)];
    report({{"MODEL.MODEL_NAME", m.modelName}, {"MODEL.ARCH", m.arch}});
  });
  runForm->addRow(tr("Model"), model_);
  auto* dataRow = new QWidget;
  auto* dataLayout = new QHBoxLayout(dataRow);
  dataLayout->setContentsMargins(0, 0, 0, 0);
  auto* dataEdit = qobject_cast<QLineEdit*>(addKey(nullptr, "DATA.PATH_TO_DATA_DIR", {}));
  auto* browse = new QToolButton;
  browse->setText(QStringLiteral("…"));
  browse->setToolTip(tr("Choose the folder holding train.csv, val.csv and test.csv"));
  connect(browse, &QToolButton::clicked, this, [this, dataEdit] {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Dataset folder"), dataEdit->text());
    if (!dir.isEmpty()) {
      dataEdit->setText(dir);
      report({{"DATA.PATH_TO_DATA_DIR", dir.toStdString()}});
    }
  });
  dataLayout->addWidget(dataEdit, 1);
  dataLayout->addWidget(browse);
  runForm->addRow(tr("Dataset folder"), dataRow);
  addKey(runForm, "TRAIN.BATCH_SIZE", tr("Batch size"));
  addKey(runForm, "SOLVER.MAX_EPOCH", tr("Epochs"));
  addKey(runForm, "SOLVER.BASE_LR", tr("Base LR"));
  addKey(runForm, "SOLVER.LR_POLICY", tr("LR policy"));
  addKey(runForm, "SOLVER.WARMUP_EPOCHS", tr("Warmup epochs"));
  addKey(runForm, "SOLVER.OPTIMIZING_METHOD", tr("Optimizer"));
  addKey(runForm, "DATA_LOADER.NUM_WORKERS", tr("Workers"));
  device_->addItems({tr("CPU"), tr("GPU (CUDA)")});
  device_->setToolTip(tooltipOf(*schema->find("NUM_GPUS")));
  fields_["NUM_GPUS"] = device_;
  // Processes: 1 trains here; more train data parallel (ampstudio-cli's workers), splitting the
  // batch. On the CPU that is DIST.CPU_PROCESSES (sharing the cores), on CUDA one per GPU.
  processes_ = new QSpinBox;
  processes_->setRange(1, 64);
  processes_->setToolTip(
      tr("Data-parallel processes on this machine: on the CPU they share the cores "
         "(DIST.CPU_PROCESSES), "
         "on CUDA one per GPU (NUM_GPUS). Each takes batch size / processes clips per step."));
  fields_["DIST.CPU_PROCESSES"] = processes_;
  connect(device_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    if (i < 0) return;
    if (i == 0)
      report({{"NUM_GPUS", 0}, {"DIST.CPU_PROCESSES", processes_->value()}});
    else
      report({{"NUM_GPUS", processes_->value()}, {"DIST.CPU_PROCESSES", 1}});
  });
  processesUnit_ = new QLabel;
  auto unitText = [this] {
    processesUnit_->setText(processes_->value() == 1 ? tr("process") : tr("processes"));
  };
  unitText();
  connect(processes_, &QSpinBox::textChanged, this, unitText);  // "1 process", "2 processes"
  connect(processes_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int n) {
    report({{device_->currentIndex() == 0 ? "DIST.CPU_PROCESSES" : "NUM_GPUS", n}});
  });
  auto* deviceRow = new QWidget;
  auto* deviceLayout = new QHBoxLayout(deviceRow);
  deviceLayout->setContentsMargins(0, 0, 0, 0);
  deviceLayout->addWidget(device_, 1);
  deviceLayout->addWidget(new QLabel(tr("x")));
  deviceLayout->addWidget(processes_);
  deviceLayout->addWidget(processesUnit_);
  runForm->addRow(tr("Device"), deviceRow);
  addKey(runForm, "TENSORBOARD.ENABLE", tr("TensorBoard files"));
  layout->addWidget(run);
  layout->addStretch(1);
}

void PrecisionForm::setMachine(int cudaDevices, const QString& cudaName, int cpuCores) {
  device_->setItemText(0, cpuCores > 0 ? tr("CPU (%1 cores)").arg(cpuCores) : tr("CPU"));
  device_->setItemText(1, cudaDevices == 0   ? tr("GPU (none here)")
                          : cudaDevices == 1 ? tr("GPU (%1)").arg(cudaName)
                                             : tr("GPU (%1 × %2)").arg(cudaDevices).arg(cudaName));
  device_->setItemData(
      1,
      cudaDevices == 0
          ? tr("This LibTorch sees no CUDA device here: a config set to GPU can be edited and "
               "saved for a GPU machine, but Start stays off (pre-flight error on NUM_GPUS).")
          : QString(),
      Qt::ToolTipRole);
}

QWidget* PrecisionForm::addKey(QFormLayout* form, const std::string& key, const QString& label) {
  const config::KeyDef* def = config::KeySchema::builtin()->find(key);
  QWidget* w = nullptr;
  const auto kind = def->type.outer();
  const double lo = def->constraint.min.value_or(kind == config::TypeSpec::Kind::Int ? 0 : -1e12);
  const double hi = def->constraint.max.value_or(1e12);
  if (!def->constraint.choices.empty()) {
    auto* box = new QComboBox;
    for (const auto& c : def->constraint.choices)
      box->addItem(QString::fromStdString(c.is_string() ? c.get<std::string>() : c.dump()));
    connect(box, &QComboBox::currentTextChanged, this, [this, key](const QString& t) {
      report({{key, t.toStdString()}});
    });
    w = box;
  } else if (kind == config::TypeSpec::Kind::Bool) {
    auto* check = new QCheckBox;
    connect(check, &QCheckBox::toggled, this, [this, key](bool on) { report({{key, on}}); });
    w = check;
  } else if (kind == config::TypeSpec::Kind::Int) {
    auto* spin = new QSpinBox;
    spin->setRange(static_cast<int>(std::max(lo + (def->constraint.minExclusive ? 1 : 0), -2e9)),
                   static_cast<int>(std::min(hi, 2e9)));
    spin->setKeyboardTracking(false);
    connect(spin, qOverload<int>(&QSpinBox::valueChanged), this, [this, key](int v) {
      report({{key, v}});
    });
    w = spin;
  } else if (kind == config::TypeSpec::Kind::Float) {
    auto* spin = new NumberSpin;
    spin->setDecimals(12);
    const double eps = 1e-9;
    spin->setRange(def->constraint.minExclusive ? lo + eps : lo,
                   def->constraint.maxExclusive ? hi - eps : hi);
    spin->setKeyboardTracking(false);
    spin->setSingleStep(key == "AMP.INIT_SCALE" ? 1024 : key == "SOLVER.BASE_LR" ? 0.001 : 0.1);
    connect(spin, qOverload<double>(&QDoubleSpinBox::valueChanged), this, [this, key](double v) {
      report({{key, v}});
    });
    w = spin;
  } else {
    auto* edit = new QLineEdit;
    connect(edit, &QLineEdit::editingFinished, this, [this, key, edit] {
      report({{key, edit->text().toStdString()}});
    });
    w = edit;
  }
  w->setToolTip(tooltipOf(*def));
  w->setObjectName(QString::fromStdString(key));
  fields_[key] = w;
  if (form) form->addRow(label, w);
  return w;
}

void PrecisionForm::setProblem(const QString& text) {
  problem_->setText(text);
  problem_->setVisible(!text.isEmpty());
}

QString PrecisionForm::problem() const {
  return problem_->text();
}

QWidget* PrecisionForm::field(const std::string& key) const {
  auto it = fields_.find(key);
  return it == fields_.end() ? nullptr : it->second;
}

void PrecisionForm::report(KeyEdits edits) {
  if (updating_) return;
  emit keysEdited(edits);
}

void PrecisionForm::setConfig(const config::Config& cfg) {
  updating_ = true;
  const bool mixed = cfg.getBool("TRAIN.MIXED_PRECISION");
  const std::string dtype = cfg.getString("AMP.DTYPE");
  for (std::size_t i = 0; i < precisionChoices().size(); ++i) {
    const auto& c = precisionChoices()[i];
    if (c.mixed == mixed && (!mixed || dtype == c.dtype))
      precision_->setCurrentIndex(static_cast<int>(i));
  }
  const std::string name = cfg.getString("MODEL.MODEL_NAME"), arch = cfg.getString("MODEL.ARCH");
  int modelIndex = -1;
  for (std::size_t i = 0; i < modelChoices().size(); ++i)
    if (name == modelChoices()[i].modelName && arch == modelChoices()[i].arch)
      modelIndex = static_cast<int>(i);
  model_->setCurrentIndex(modelIndex);
  device_->setCurrentIndex(cfg.getInt("NUM_GPUS") > 0 ? 1 : 0);
  processes_->setValue(static_cast<int>(
      cfg.getInt("NUM_GPUS") > 0 ? cfg.getInt("NUM_GPUS") : cfg.getInt("DIST.CPU_PROCESSES")));
  for (auto& [key, w] : fields_) {
    if (w == precision_ || w == model_ || w == device_ || w == processes_) continue;
    const config::Value& v = cfg.get(key);
    if (auto* box = qobject_cast<QComboBox*>(w))
      box->setCurrentText(QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump()));
    else if (auto* check = qobject_cast<QCheckBox*>(w))
      check->setChecked(v.get<bool>());
    else if (auto* spin = qobject_cast<QSpinBox*>(w))
      spin->setValue(static_cast<int>(v.get<std::int64_t>()));
    else if (auto* dspin = qobject_cast<QDoubleSpinBox*>(w))
      dspin->setValue(v.get<double>());
    else if (auto* edit = qobject_cast<QLineEdit*>(w))
      edit->setText(QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump()));
  }
  // The scaler's fields matter only where a scaler runs.
  const std::string scaler = cfg.getString("AMP.SCALER");
  const bool scalerOn =
      mixed &&
      (scaler == "on" || (scaler == "auto" &&
                          (dtype == "float16" || (dtype == "auto" && cfg.getInt("NUM_GPUS") > 0))));
  for (const char* k :
       {"AMP.INIT_SCALE", "AMP.GROWTH_FACTOR", "AMP.BACKOFF_FACTOR", "AMP.GROWTH_INTERVAL"})
    fields_[k]->setEnabled(scalerOn);
  scalerNote_->setText(
      scalerOn ? tr("Loss scaling is on: the scale grows after each growth interval of clean steps "
                    "and backs off "
                    "(skipping the step) when gradients overflow.")
      : mixed  ? tr("No loss scaling: bfloat16 has float32's range, so gradients do not underflow.")
               : tr("No loss scaling in FP32."));
  ampLr_->setEnabled(mixed && std::abs(cfg.getFloat("SOLVER.LR_SCALE") - 0.6) > 1e-12);
  updating_ = false;
}

}  // namespace amp::widgets
