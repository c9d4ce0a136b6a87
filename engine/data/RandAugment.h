#pragma once
// PySlowFast's RandAugment (slowfast/datasets/rand_augment.py, after timm) for video: one draw
// of operations and arguments per clip, applied to every frame, on 8-bit RGB frames with
// Pillow's semantics (PilOps). Parsing, the magnitude -> argument functions and the draws are
// pure functions; the draws come from a DrawSource.
#include <cstdint>
#include <string>
#include <vector>

#include "data/Draws.h"
#include "data/PilOps.h"

namespace amp::data {

/// The operations of PySlowFast's two RandAugment sets (_RAND_TRANSFORMS and, with `inc`,
/// _RAND_INCREASING_TRANSFORMS). Its TranslateX/Y (absolute) and PosterizeOriginal are in
/// neither set, so no AA_TYPE reaches them.
enum class AugOp {
  AutoContrast,
  Equalize,
  Invert,
  Rotate,
  Posterize,
  PosterizeIncreasing,
  Solarize,
  SolarizeIncreasing,
  SolarizeAdd,
  Color,
  ColorIncreasing,
  Contrast,
  ContrastIncreasing,
  Brightness,
  BrightnessIncreasing,
  Sharpness,
  SharpnessIncreasing,
  ShearX,
  ShearY,
  TranslateXRel,
  TranslateYRel,
};
const char* augOpName(AugOp op);

/// A parsed AUG.AA_TYPE such as "rand-m7-n4-mstd0.5-inc1".
struct RandAugmentPolicy {
  int magnitude = 10;        ///< m: 0..10 after clipping at use
  int num_layers = 2;        ///< n: operations drawn per clip (with replacement)
  double magnitude_std = 0;  ///< mstd: magnitude ~ N(m, mstd), clipped to [0, 10]
  bool increasing = false;   ///< inc: the increasing-severity set
  bool weighted = false;     ///< w0: PySlowFast's choice weights, drawn without replacement
  std::vector<AugOp> ops;    ///< the 15 operations of the chosen set
};

/// Parses `text` as PySlowFast's rand_augment_transform does: sections split by '-', the first
/// "rand", then key + value split at the first digit: m, n (integers), mstd (float; the first
/// one wins), inc (any value enables the increasing set, even inc0: Python's bool("0") is
/// true), w (only 0). Sections PySlowFast ignores (no digit, or another key such as timm's mmax
/// or p) are refused here, as they would silently do nothing. False with `error` naming the
/// section and what to write instead.
[[nodiscard]] bool parseRandAugment(const std::string& text, RandAugmentPolicy& out,
                                    std::string* error);

/// The magnitude -> argument function of `op` (rand_augment.py's LEVEL_TO_ARG) for a magnitude
/// already clipped to [0, 10]; `negate` is the sign draw of the ops that take one.
double augOpArgument(AugOp op, double magnitude, bool negate);
/// Whether `op` draws a random sign for its argument.
bool augOpNegates(AugOp op);
/// Whether `op` resamples (and so uses AUG.INTERPOLATION).
bool augOpIsGeometric(AugOp op);

/// How the geometric operations resample: AUG.INTERPOLATION bicubic or bilinear, or "random"
/// (and ""), where PySlowFast passes no interpolation and each frame draws bilinear or bicubic.
enum class AugInterpolation { Bilinear, Bicubic, Random };

struct AppliedOp {
  AugOp op;
  double arg = 0;  ///< the argument (factor, degrees, bits ...); unused by the argument-free ops
  bool operator==(const AppliedOp& o) const { return op == o.op && arg == o.arg; }
};

/// `op` as the clip preview names it: PySlowFast's name and the argument the op was applied
/// with, e.g. "Rotate -12.6°", "Posterize 2 bits", "Solarize from 153", "Contrast x1.42".
std::string describeAugOp(const AppliedOp& op);

/// One clip's operations: n choices of op, then per op the apply draw (skipped when above 0.5),
/// the magnitude noise and the sign draw. Ops that are skipped are left out.
std::vector<AppliedOp> drawRandAugment(const RandAugmentPolicy& policy, DrawSource& draws);

/// One operation on one frame, as rand_augment.py calls Pillow (fill grey 128).
void applyAugOp(RgbView img, const AppliedOp& op, PilFilter filter, std::uint8_t fill = 128);

/// The clip's operations on each of `frames` packed RGB frames (T x H x W x 3) in place; with
/// Random interpolation each geometric op draws its filter per frame.
void applyRandAugment(const std::vector<AppliedOp>& ops, std::uint8_t* frames, int count,
                      int height, int width, AugInterpolation interpolation, DrawSource& draws);

}  // namespace amp::data
