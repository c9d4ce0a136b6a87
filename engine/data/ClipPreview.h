#pragma once
// "What the model sees": the clips the loader gives the model at a position of an epoch, turned
// back into pixels (normalisation undone), with where they came from: source frame indices, the
// region of the frame they show, flip, augmentation. Built by the loader's own code path with its
// own draws, so a preview is the clip training uses at that position. Torch-free (the studio
// calls it directly; ampstudio-cli data preview writes it as PNG contact sheets).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "data/ClipSampler.h"
#include "data/VideoLoader.h"

namespace amp::config {
class Config;
}

namespace amp::data {

/// An AVA box of the previewed keyframe: where it is in the clip's frames (after the box-aware
/// transform) and in the shown keyframe, and its action ids (names come from the label map, which
/// the caller reads: metrics/AvaLabelNames.h).
struct PreviewBox {
  std::array<double, 4> clip{};   ///< x1, y1, x2, y2 in the clip's pixels (clipped to it)
  std::array<double, 4> frame{};  ///< x1, y1, x2, y2 in `full`'s pixels (info.decoded size)
  std::vector<int> labels;        ///< AVA action ids (1-based) in file order; -1: no action
};

struct PreviewClip {
  int position = 0;  ///< the video's position in the epoch's (shuffled) list
  int copy =
      0;  ///< which of its TRAIN_CROP_NUM_TEMPORAL x AUG.NUM_SAMPLE x TRAIN_CROP_NUM_SPATIAL copies
  int view = 0;  ///< test view (temporal clip x NUM_SPATIAL_CROPS + crop)
  std::string path;
  int label = 0;
  std::string label_name;  ///< from DEMO.LABEL_FILE_PATH when it is there, else ""
  ClipInfo info;
  int frames = 0, slow_frames = 0, crop = 0;
  /// The clip's frame size: crop x crop, except AVA's test clips (short side crop, the frame's
  /// aspect ratio kept).
  int height = 0, width = 0;
  std::vector<std::uint8_t> fast;  ///< T x height x width x 3, RGB, normalisation undone
  std::vector<std::uint8_t> slow;  ///< slow pathway, the same layout (SlowFast only)
  /// The clip as the model gets it: C x T x height x width floats, normalised (and channels
  /// reversed with DATA.REVERSE_INPUT_CHANNEL), fast then (SlowFast) slow pathway. Grad-CAM
  /// runs the model on these rather than on the rounded bytes above.
  std::vector<float> input_fast, input_slow;
  /// The first source frame (AVA: the keyframe, whose boxes these are) at info.decoded size, RGB.
  std::vector<std::uint8_t> full;
  /// AVA: the keyframe's second and its boxes; -1 and none for the other datasets.
  int second = -1;
  std::vector<PreviewBox> boxes;
  /// A multigrid run: the phase whose shape the clip has ("multigrid phase 1/5 (epochs 0-6): 2
  /// frames, crop 45, batch 64"); "" otherwise.
  std::string shape;
};

/// The clips of positions first .. first + count - 1 of `epoch` in `split` (training order:
/// shuffled by RNG_SEED and the epoch as the loader does; one process). With multigrid's cycles,
/// training and validation clips have the shape of the epoch's long-cycle phase. False with `error`
/// naming the list or video.
[[nodiscard]] bool previewClips(const config::Config& cfg, Split split, int epoch, int first,
                                int count, std::vector<PreviewClip>& out, std::string* error);

/// The first position of `video` in `split`'s epoch, for previewClips: an analysis file's mistake
/// (its sample path, or a frame dataset's video name) shown as the loader gives it. Test: its
/// first view (the list index x the views per video, the test loader's order); validation: its
/// index (the validation loader does not shuffle). -1 with `error` when the split's list does not
/// hold it (the data moved since the evaluation) or for the shuffled training split.
int previewPosition(const config::Config& cfg, Split split, const std::string& video,
                    std::string* error);

/// Normalised C x T x H x W floats back to T x H x W x 3 RGB bytes: x * std + mean, x 255,
/// rounded and clamped; DATA.REVERSE_INPUT_CHANNEL undone.
std::vector<std::uint8_t> denormalise(const float* clip, int frames, int height, int width,
                                      const ClipParams& p);

/// One image of a clip: the full first frame with the clip's region outlined (green; red when
/// flipped), then a row of the fast frames and, for SlowFast, a row of the slow frames; AVA's
/// boxes outlined in avaBoxColour(k) on the full frame and every frame when `drawBoxes` (the
/// studio draws them itself, with their labels, at the size it shows the sheet).
struct ContactSheet {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
};
ContactSheet contactSheet(const PreviewClip& clip, bool drawBoxes = true);

/// Where the pictures are in contactSheet(clip): the full frame, then each fast frame.
struct SheetRect {
  int x = 0, y = 0, width = 0, height = 0;
};
struct SheetLayout {
  SheetRect full;
  std::vector<SheetRect> fast;
};
SheetLayout contactSheetLayout(const PreviewClip& clip);

/// The colour of AVA box k in previews (R, G, B), from a palette that repeats.
std::array<std::uint8_t, 3> avaBoxColour(std::size_t k);

}  // namespace amp::data
