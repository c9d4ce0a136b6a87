#pragma once
// The Clips tab's Grad-CAM row: the toggle, which checkpoint (the config's test checkpoint, a
// run's checkpoints, or a file), which class (the prediction, the clip's label or a chosen one),
// which layer (one per pathway, PySlowFast's names), the colour map and the overlay's weight, and
// the legend: the colour map's bar from low to high with the class the map is for. It only
// collects the choice (request()); ClipPreviewPanel runs vis::GradCam on its worker thread.
//
//   auto* cam = new GradCamControls;
//   connect(cam, &GradCamControls::changed, panel, &ClipPreviewPanel::showClip);
//   if (cam->request().on) { /* vis::GradCam::open(cfg, cam->options(), &error) ... */ }
#include <QStringList>
#include <QWidget>

#include <string>
#include <vector>

#include "vis/GradCam.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace amp::widgets {

/// The colour bar of a colour map, 0 (low) on the left, 1 (high) on the right, with its ends
/// labelled and a caption after it.
class ColourMapLegend : public QWidget {
  Q_OBJECT
 public:
  explicit ColourMapLegend(QWidget* parent = nullptr);
  void setColourMap(const std::string& name);
  void setCaption(const QString& caption);
  const QString& caption() const { return caption_; }
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::string map_ = "viridis";
  QString caption_;
};

class GradCamControls : public QWidget {
  Q_OBJECT
 public:
  explicit GradCamControls(QWidget* parent = nullptr);

  /// Whether Grad-CAM is on (the toggle).
  bool on() const;
  void setOn(bool on);
  /// What vis::GradCam::open needs (layers empty: the config's or the default).
  vis::GradCamOptions options() const;
  std::string colourMap() const;
  /// Chooses colour map `name` (a config's GRAD_CAM.COLORMAP) without a changed() signal;
  /// a name not built is ignored (the CLI says why).
  void setColourMap(const std::string& name);
  double alpha() const;

  /// The checkpoints offered beside the config's own (a run's, oldest first); the newest is chosen.
  void setCheckpoints(const QStringList& paths);
  /// The layer menu, from the model (vis::layerChoices); the choice is kept where it still exists.
  void setLayerChoices(const std::vector<std::vector<std::string>>& choices);
  /// The model's classes bound the class spin box.
  void setClasses(int classes);
  /// The legend's caption ("class 3 growing (predicted, 0.41) at s5/pathway0_res2").
  void setLegendCaption(const QString& caption);

  QCheckBox* toggle() const { return toggle_; }
  QComboBox* checkpointBox() const { return checkpoint_; }
  QComboBox* targetBox() const { return target_; }
  QSpinBox* classBox() const { return class_; }
  QComboBox* layerBox() const { return layer_; }
  QComboBox* colourMapBox() const { return colours_; }
  ColourMapLegend* legend() const { return legend_; }

 signals:
  /// A choice changed (the toggle included): the shown clip's maps should be made again.
  void changed();

 private:
  void browse();
  void updateEnabled();

  QCheckBox* toggle_;
  QComboBox* checkpoint_;
  QPushButton* browse_;
  QComboBox* target_;
  QSpinBox* class_;
  QComboBox* layer_;
  QComboBox* colours_;
  QDoubleSpinBox* alpha_;
  ColourMapLegend* legend_;
  QWidget* options_;
};

}  // namespace amp::widgets
