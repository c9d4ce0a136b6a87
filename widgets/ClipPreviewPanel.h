#pragma once
// "What the model sees": the clips the loader builds at a position of an epoch (split, epoch,
// clip), after decoding, scaling, cropping, flipping and the training augmentation, with the
// first source frame and the region the clip shows, for each pathway and each repeated-
// augmentation copy. Built on a worker thread from the config in the editor, with the loader's
// own code and draws (data::previewClips), so it is what training uses at that position and a
// running training is not disturbed.
#include <QImage>
#include <QWidget>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "config/Config.h"
#include "data/ClipPreview.h"
#include "vis/GradCam.h"

class QComboBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QVBoxLayout;

namespace amp::widgets {

class GradCamControls;

class ClipPreviewPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ClipPreviewPanel(QWidget* parent = nullptr);
  ~ClipPreviewPanel() override;

  /// Where the config comes from (the editor's current text); nullopt: it has errors.
  void setConfigSource(std::function<std::optional<config::Config>()> source) {
    source_ = std::move(source);
  }
  /// Shows the clips of a run instead: its saved config.yaml (what it trained on), until
  /// showEditorConfig(). False with the reason in the status line when it cannot be read.
  bool showRun(const QString& runDir);
  /// Shows one sample of a run's validation or test ("val", "test"): the Analysis tab's mistake
  /// `video` (its path as the list names it) at its first view. False with the reason in the
  /// status line when the run's list does not hold it.
  bool showSample(const QString& runDir, const QString& split, const QString& video);
  void showEditorConfig();
  /// The run whose clips are shown ("" for the editor's config).
  const QString& runDir() const { return runDir_; }
  /// A training run of this studio is active: previews decode at nice 10, so the run keeps the
  /// cores.
  void setTrainingActive(bool on) { trainingActive_ = on; }
  /// The nice value the last preview's worker ran at.
  int lastWorkerNice() const { return lastWorkerNice_; }

  /// Builds the preview of the chosen split, epoch and clip.
  void showClip();
  void nextClip();
  void previousClip();

  /// Writes the shown sheets as PNG at twice their size, as shown (boxes, Grad-CAM): `path`
  /// itself for one sheet, path_1.png, path_2.png ... for each copy of a repeated-augmentation
  /// clip. The paths written; empty with `error` when there is nothing shown or a file fails.
  QStringList exportSheets(const QString& path, QString* error) const;

  QComboBox* splitBox() const { return split_; }
  QSpinBox* epochBox() const { return epoch_; }
  QSpinBox* clipBox() const { return clip_; }
  QLabel* status() const { return status_; }
  /// The shown clips (one per repeated-augmentation copy) and their contact sheets.
  const std::vector<data::PreviewClip>& clips() const { return clips_; }
  const std::vector<QImage>& sheets() const { return sheets_; }
  bool busy() const { return worker_.joinable() && pending_; }
  /// AVA: the text drawn beside each box of each shown clip ("1: 12 stand, 80 watch (a person)"),
  /// names from the label map (AVA.LABEL_MAP_FILE), ids alone when it cannot be read.
  const std::vector<std::vector<QString>>& boxTexts() const { return boxTexts_; }
  /// The Grad-CAM row (toggle, checkpoint, target, layer, colours, legend).
  GradCamControls* gradCam() const { return gradCam_; }
  /// With Grad-CAM on: each shown clip's maps (empty when off or when it failed: the status
  /// line says why); the sheets then show the maps over the frames.
  const std::vector<vis::GradCamResult>& gradCamResults() const { return camResults_; }

 signals:
  void previewReady();

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// What the worker's Grad-CAM made of the clips, for showResult.
  struct CamOutcome {
    std::vector<vis::GradCamResult> results;
    std::vector<std::vector<std::string>> layerChoices;
    int classes = 0;
    std::map<int, std::string> names;  ///< class names (DEMO.LABEL_FILE_PATH)
    QString error;
  };
  void showResult(int generation, std::vector<data::PreviewClip> clips, const QString& error,
                  std::map<int, std::string> actionNames, const QString& namesProblem,
                  CamOutcome cam);
  /// On the worker thread: Grad-CAM of `clips`, the model loaded again only when the config or
  /// the options changed since the last time.
  CamOutcome runGradCam(const config::Config& cfg, const vis::GradCamOptions& options,
                        const std::vector<data::PreviewClip>& clips);
  /// The run's config (showRun without the preview). False with the reason in the status line.
  bool loadRun(const QString& runDir);
  void layoutSheets();
  /// The shown sheet `i` at width `w`, AVA's boxes drawn on it with their actions.
  QPixmap sheetPixmap(std::size_t i, int w) const;

  std::function<std::optional<config::Config>()> source_;
  std::optional<config::Config> runConfig_;
  QString runDir_;
  bool trainingActive_ = false;
  std::atomic<int> lastWorkerNice_{0};
  QComboBox* split_;
  QSpinBox* epoch_;
  QSpinBox* clip_;
  QPushButton* show_;
  QLabel* source_label_;
  QPushButton* back_;
  QLabel* status_;
  QScrollArea* scroll_;
  QWidget* content_;
  QVBoxLayout* list_;
  std::vector<data::PreviewClip> clips_;
  std::vector<QImage> sheets_;
  std::vector<std::vector<QString>> boxTexts_;
  std::vector<QLabel*> images_;
  GradCamControls* gradCam_;
  std::vector<vis::GradCamResult> camResults_;
  bool camRequested_ = false;    ///< the last preview asked for Grad-CAM
  std::string configColourMap_;  ///< the last config's GRAD_CAM.COLORMAP, applied to the menu
  // The worker's Grad-CAM model, kept between previews (used on the worker thread only, one
  // worker at a time), with what it was opened from.
  std::shared_ptr<vis::GradCam> cam_;
  std::optional<config::Config> camConfig_;
  vis::GradCamOptions camOptions_;
  std::thread worker_;
  int generation_ = 0;
  bool pending_ = false;
};

}  // namespace amp::widgets
