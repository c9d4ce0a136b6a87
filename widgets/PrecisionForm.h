#pragma once
// The config form: what matters in mixed precision (precision, LR scale, gradient scaler) and
// the everyday knobs (model, data, batch, epochs, learning rate, workers, device). Every field is
// built from the engine's key schema: its type, range and choices, its doc as the tooltip. The
// form only reports edits; the editor writes them into the YAML text, validates, and hands the
// resolved config back with setConfig().
#include <QWidget>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "config/Config.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;
class QSpinBox;

namespace amp::widgets {

using KeyEdits = std::vector<std::pair<std::string, config::Value>>;

class PrecisionForm : public QWidget {
  Q_OBJECT
 public:
  explicit PrecisionForm(QWidget* parent = nullptr);

  /// Shows the values of `cfg` (no edits are reported while doing so).
  void setConfig(const config::Config& cfg);
  /// The widget editing `key` (for tests and for focusing from elsewhere), or nullptr.
  QWidget* field(const std::string& key) const;
  /// A line above the fields, e.g. while the YAML has errors (the fields then show the last
  /// valid config); empty hides it.
  void setProblem(const QString& text);
  QString problem() const;
  /// What this machine has, shown with the Device choices ("CPU · 2 cores", "GPU (CUDA) · none
  /// here"); the choices and what they write stay the same (a config may be meant for a server).
  void setMachine(int cudaDevices, const QString& cudaName, int cpuCores);
  QComboBox* deviceBox() const { return device_; }
  QComboBox* precisionBox() const { return precision_; }
  QPushButton* ampLrButton() const { return ampLr_; }

  /// The precision choices, in the box's order: label, TRAIN.MIXED_PRECISION, AMP.DTYPE.
  struct PrecisionChoice {
    QString label;
    bool mixed;
    const char* dtype;
  };
  static const std::vector<PrecisionChoice>& precisionChoices();

 signals:
  void keysEdited(const amp::widgets::KeyEdits& edits);

 private:
  QWidget* addKey(QFormLayout* form, const std::string& key, const QString& label);
  void report(KeyEdits edits);
  std::map<std::string, QWidget*> fields_;
  QComboBox* precision_;
  QComboBox* model_;
  QComboBox* device_;
  QSpinBox* processes_;              ///< DIST.CPU_PROCESSES on the CPU, NUM_GPUS on CUDA
  QLabel* processesUnit_ = nullptr;  ///< "process" / "processes" after it
  QPushButton* ampLr_;
  QLabel* scalerNote_;
  QLabel* problem_;
  bool updating_ = false;
};

}  // namespace amp::widgets
