#pragma once
// "What the model sees": the clips the loader gives the model at a position of an epoch, turned
// back into pixels (normalisation undone), with where they came from: source frame indices, the
// region of the frame they show, flip, augmentation. Built by the loader's own code path with its
// own draws, so a preview is the clip training uses at that position. Torch-free (the studio
// calls it directly; ampstudio-cli data preview writes it as PNG contact sheets).
#include <cstdint>
#include <string>
#include <vector>

#include "data/ClipSampler.h"
#include "data/VideoLoader.h"

namespace amp::config {
class Config;
}

namespace amp::data {

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
  std::vector<std::uint8_t> fast;  ///< T x crop x crop x 3, RGB, normalisation undone
  std::vector<std::uint8_t> slow;  ///< slow pathway, the same layout (SlowFast only)
  std::vector<std::uint8_t> full;  ///< the first source frame at info.decoded size, RGB
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

/// Normalised C x T x H x W floats back to T x H x W x 3 RGB bytes: x * std + mean, x 255,
/// rounded and clamped; DATA.REVERSE_INPUT_CHANNEL undone.
std::vector<std::uint8_t> denormalise(const float* clip, int frames, int height, int width,
                                      const ClipParams& p);

/// One image of a clip: the full first frame with the clip's region outlined (green; red when
/// flipped), then a row of the fast frames and, for SlowFast, a row of the slow frames.
struct ContactSheet {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
};
ContactSheet contactSheet(const PreviewClip& clip);

}  // namespace amp::data
