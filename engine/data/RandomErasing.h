#pragma once
// PySlowFast's random erasing for video (slowfast/datasets/random_erasing.py, after timm), as
// its Kinetics dataset calls it: on the normalised clip seen as T x C x H x W, so the "batch"
// is the frames and the default cube mode draws one set of boxes for the whole clip.
#include <string>
#include <vector>

#include "data/Draws.h"

namespace amp::data {

enum class EraseMode { Const, Rand, Pixel };

struct ErasingParams {
  double probability = 0.25;  ///< AUG.RE_PROB
  EraseMode mode =
      EraseMode::Pixel;  ///< AUG.RE_MODE: const 0, rand per-channel normal, pixel per-pixel normal
  int max_count = 1;     ///< AUG.RE_COUNT (0 acts as 1): boxes drawn from randint(1, max_count)
  int num_splits = 1;    ///< what Kinetics passes as num_splits: AUG.RE_COUNT again
  double min_area = 0.02, max_area = 1.0 / 3.0, min_aspect = 0.3;
};

/// AUG.RE_MODE as RandomErasing reads it (lower-cased; "" is const). False for anything else.
bool parseEraseMode(const std::string& text, EraseMode& out);

struct EraseBox {
  int top = 0, left = 0, height = 0, width = 0;
  bool operator==(const EraseBox& o) const {
    return top == o.top && left == o.left && height == o.height && width == o.width;
  }
};

/// _erase_cube's boxes for one clip of height x width frames: none when the probability draw is
/// above RE_PROB; else `count` boxes, each from up to 100 tries of area uniform(min, max) x
/// H x W / count and aspect exp(uniform(log 0.3, log 1/0.3)), sides int(round(...)), kept
/// when strictly smaller than the frame, placed with randint offsets.
std::vector<EraseBox> drawEraseBoxes(const ErasingParams& p, int height, int width,
                                     DrawSource& draws);

/// The first frame erased: T // num_splits when num_splits > 1 (the "clean" first split of a
/// batch in timm; here the first frames of the clip), else 0.
int firstErasedFrame(const ErasingParams& p, int frames);

/// Fills the boxes in a C x T x H x W clip, frame by frame from firstErasedFrame on, each frame
/// with its own random values (rand: one normal per channel, pixel: one per value; const: 0).
void eraseClip(float* clip, int channels, int frames, int height, int width,
               const std::vector<EraseBox>& boxes, const ErasingParams& p, DrawSource& draws);

}  // namespace amp::data
