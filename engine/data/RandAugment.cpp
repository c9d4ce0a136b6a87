#include "data/RandAugment.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace amp::data {
namespace {

constexpr double kMaxLevel = 10.0;

const AugOp kDefaultSet[] = {AugOp::AutoContrast, AugOp::Equalize,      AugOp::Invert,
                             AugOp::Rotate,       AugOp::Posterize,     AugOp::Solarize,
                             AugOp::SolarizeAdd,  AugOp::Color,         AugOp::Contrast,
                             AugOp::Brightness,   AugOp::Sharpness,     AugOp::ShearX,
                             AugOp::ShearY,       AugOp::TranslateXRel, AugOp::TranslateYRel};
const AugOp kIncreasingSet[] = {AugOp::AutoContrast,
                                AugOp::Equalize,
                                AugOp::Invert,
                                AugOp::Rotate,
                                AugOp::PosterizeIncreasing,
                                AugOp::SolarizeIncreasing,
                                AugOp::SolarizeAdd,
                                AugOp::ColorIncreasing,
                                AugOp::ContrastIncreasing,
                                AugOp::BrightnessIncreasing,
                                AugOp::SharpnessIncreasing,
                                AugOp::ShearX,
                                AugOp::ShearY,
                                AugOp::TranslateXRel,
                                AugOp::TranslateYRel};
// _RAND_CHOICE_WEIGHTS_0 in the order of _RAND_TRANSFORMS; PySlowFast applies them by position
// to whichever set is in use.
const double kChoiceWeights0[] = {0.025, 0.005, 0,     0.3, 0,   0.005, 0.005, 0.025,
                                  0.005, 0.005, 0.025, 0.2, 0.2, 0.1,   0.1};

bool fail(std::string* error, const std::string& why) {
  if (error) *error = why;
  return false;
}

}  // namespace

const char* augOpName(AugOp op) {
  switch (op) {
    case AugOp::AutoContrast:
      return "AutoContrast";
    case AugOp::Equalize:
      return "Equalize";
    case AugOp::Invert:
      return "Invert";
    case AugOp::Rotate:
      return "Rotate";
    case AugOp::Posterize:
      return "Posterize";
    case AugOp::PosterizeIncreasing:
      return "PosterizeIncreasing";
    case AugOp::Solarize:
      return "Solarize";
    case AugOp::SolarizeIncreasing:
      return "SolarizeIncreasing";
    case AugOp::SolarizeAdd:
      return "SolarizeAdd";
    case AugOp::Color:
      return "Color";
    case AugOp::ColorIncreasing:
      return "ColorIncreasing";
    case AugOp::Contrast:
      return "Contrast";
    case AugOp::ContrastIncreasing:
      return "ContrastIncreasing";
    case AugOp::Brightness:
      return "Brightness";
    case AugOp::BrightnessIncreasing:
      return "BrightnessIncreasing";
    case AugOp::Sharpness:
      return "Sharpness";
    case AugOp::SharpnessIncreasing:
      return "SharpnessIncreasing";
    case AugOp::ShearX:
      return "ShearX";
    case AugOp::ShearY:
      return "ShearY";
    case AugOp::TranslateXRel:
      return "TranslateXRel";
    case AugOp::TranslateYRel:
      return "TranslateYRel";
  }
  return "?";
}

bool parseRandAugment(const std::string& text, RandAugmentPolicy& out, std::string* error) {
  const std::string where = "AUG.AA_TYPE '" + text + "'";
  std::vector<std::string> sections;
  for (std::size_t start = 0;;) {
    const std::size_t dash = text.find('-', start);
    sections.push_back(
        text.substr(start, dash == std::string::npos ? std::string::npos : dash - start));
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  if (sections.front() != "rand")
    return fail(
        error,
        where +
            ": the first section must be 'rand' (PySlowFast builds only RandAugment policies, e.g. "
            "rand-m7-n4-mstd0.5-inc1)");
  RandAugmentPolicy p;
  bool stdSet = false;
  for (std::size_t i = 1; i < sections.size(); ++i) {
    const std::string& s = sections[i];
    const std::size_t digit =
        std::find_if(s.begin(), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) -
        s.begin();
    const std::string key = s.substr(0, digit),
                      value = digit < s.size() ? s.substr(digit) : std::string();
    if (value.empty() ||
        (key != "m" && key != "n" && key != "w" && key != "mstd" && key != "inc")) {
      std::string why =
          where + ": section '" + s +
          "' has no effect in PySlowFast's rand_augment_transform, which knows only " +
          "m<int>, n<int>, mstd<float>, inc<int> and w0";
      if (key == "mmax" || key == "p")
        why += " ('" + key + "' is timm's newer RandAugment, not PySlowFast's copy)";
      return fail(error, why + "; remove it");
    }
    if (key == "mstd") {
      errno = 0;
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (errno || !end || *end)
        return fail(error, where + ": section '" + s + "': '" + value + "' is not a number");
      if (!stdSet) p.magnitude_std = v;  // hparams.setdefault: the first one wins
      stdSet = true;
      continue;
    }
    if (key == "inc") {  // bool(val) of a non-empty string
      p.increasing = true;
      continue;
    }
    if (!std::all_of(value.begin(), value.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) ||
        value.size() > 9)
      return fail(error, where + ": section '" + s + "': '" + value +
                             "' is not a whole number (write e.g. " + key + "4)");
    const int v = std::atoi(value.c_str());
    if (key == "m")
      p.magnitude = v;
    else if (key == "n")
      p.num_layers = v;
    else if (v != 0)
      return fail(error, where + ": section '" + s + "': PySlowFast has only the weight set w0");
    else
      p.weighted = true;
  }
  if (p.weighted && p.num_layers > 13)
    return fail(
        error,
        where +
            ": w0 draws n operations without replacement from the 13 with a weight above 0; n is " +
            std::to_string(p.num_layers));
  const auto& set = p.increasing ? kIncreasingSet : kDefaultSet;
  p.ops.assign(std::begin(set), std::end(set));
  out = p;
  return true;
}

bool augOpNegates(AugOp op) {
  switch (op) {
    case AugOp::Rotate:
    case AugOp::ShearX:
    case AugOp::ShearY:
    case AugOp::TranslateXRel:
    case AugOp::TranslateYRel:
    case AugOp::ColorIncreasing:
    case AugOp::ContrastIncreasing:
    case AugOp::BrightnessIncreasing:
    case AugOp::SharpnessIncreasing:
      return true;
    default:
      return false;
  }
}

bool augOpIsGeometric(AugOp op) {
  return op == AugOp::Rotate || op == AugOp::ShearX || op == AugOp::ShearY ||
         op == AugOp::TranslateXRel || op == AugOp::TranslateYRel;
}

std::string describeAugOp(const AppliedOp& a) {
  const std::string name = augOpName(a.op);
  auto fixed = [](double v, int decimals, bool sign) {
    char buf[32];
    std::snprintf(buf, sizeof buf, sign ? "%+.*f" : "%.*f", decimals, v);
    return std::string(buf);
  };
  const int whole = static_cast<int>(a.arg);
  switch (a.op) {
    case AugOp::Rotate:
      return name + " " + fixed(a.arg, 1, true) + "\u00b0";
    case AugOp::ShearX:
    case AugOp::ShearY:
      return name + " " + fixed(a.arg, 3, true);
    case AugOp::TranslateXRel:
    case AugOp::TranslateYRel:
      return name + " " + fixed(a.arg * 100.0, 1, true) + "% of the " +
             (a.op == AugOp::TranslateXRel ? "width" : "height");
    case AugOp::Posterize:
    case AugOp::PosterizeIncreasing:
      return name + " " + std::to_string(whole) + (whole == 1 ? " bit" : " bits");
    case AugOp::Solarize:
    case AugOp::SolarizeIncreasing:
      return name + " from " + std::to_string(whole);
    case AugOp::SolarizeAdd:
      return name + " +" + std::to_string(whole) + " below 128";
    case AugOp::Color:
    case AugOp::ColorIncreasing:
    case AugOp::Contrast:
    case AugOp::ContrastIncreasing:
    case AugOp::Brightness:
    case AugOp::BrightnessIncreasing:
    case AugOp::Sharpness:
    case AugOp::SharpnessIncreasing:
      return name + " x" + fixed(a.arg, 2, false);
    default:
      return name;  // AutoContrast, Equalize, Invert
  }
}

double augOpArgument(AugOp op, double level, bool negate) {
  const double sign = negate ? -1.0 : 1.0;
  switch (op) {
    case AugOp::Rotate:
      return sign * ((level / kMaxLevel) * 30.0);
    case AugOp::ShearX:
    case AugOp::ShearY:
      return sign * ((level / kMaxLevel) * 0.3);
    case AugOp::TranslateXRel:
    case AugOp::TranslateYRel:
      return sign * ((level / kMaxLevel) * 0.45);
    case AugOp::Posterize:
      return static_cast<int>((level / kMaxLevel) * 4);
    case AugOp::PosterizeIncreasing:
      return 4 - static_cast<int>((level / kMaxLevel) * 4);
    case AugOp::Solarize:
      return static_cast<int>((level / kMaxLevel) * 256);
    case AugOp::SolarizeIncreasing:
      return 256 - static_cast<int>((level / kMaxLevel) * 256);
    case AugOp::SolarizeAdd:
      return static_cast<int>((level / kMaxLevel) * 110);
    case AugOp::Color:
    case AugOp::Contrast:
    case AugOp::Brightness:
    case AugOp::Sharpness:
      return (level / kMaxLevel) * 1.8 + 0.1;
    case AugOp::ColorIncreasing:
    case AugOp::ContrastIncreasing:
    case AugOp::BrightnessIncreasing:
    case AugOp::SharpnessIncreasing:
      return 1.0 + sign * ((level / kMaxLevel) * 0.9);
    default:
      return 0;  // AutoContrast, Equalize, Invert take no argument
  }
}

std::vector<AppliedOp> drawRandAugment(const RandAugmentPolicy& p, DrawSource& draws) {
  std::vector<AugOp> chosen;
  const std::size_t count = p.ops.size();
  if (count == 0) return {};
  if (p.weighted) {  // numpy's choice without replacement: successive weighted draws among the rest
    std::vector<double> w(std::begin(kChoiceWeights0), std::end(kChoiceWeights0));
    for (int k = 0; k < p.num_layers; ++k) {
      double total = 0;
      for (double x : w) total += x;
      double u = draws.uniform() * total;
      std::size_t pick = 0;
      while (pick + 1 < count && (w[pick] == 0 || u >= w[pick])) {
        u -= w[pick];
        ++pick;
      }
      chosen.push_back(p.ops[pick]);
      w[pick] = 0;
    }
  } else {
    for (int k = 0; k < p.num_layers; ++k)
      chosen.push_back(p.ops[std::min(
          count - 1, static_cast<std::size_t>(draws.uniform() * static_cast<double>(count)))]);
  }
  std::vector<AppliedOp> out;
  for (AugOp op : chosen) {
    if (draws.uniform() > 0.5) continue;  // AugmentOp: prob 0.5, skipped when random() > prob
    double magnitude = p.magnitude;
    if (p.magnitude_std > 0)
      magnitude = magnitude + p.magnitude_std * normalDraw(draws);  // random.gauss
    magnitude = std::min(kMaxLevel, std::max(0.0, magnitude));
    const bool negate = augOpNegates(op) && draws.uniform() > 0.5;  // _randomly_negate
    out.push_back({op, augOpArgument(op, magnitude, negate)});
  }
  return out;
}

void applyAugOp(RgbView img, const AppliedOp& a, PilFilter filter, std::uint8_t fill) {
  switch (a.op) {
    case AugOp::AutoContrast:
      pilAutocontrast(img);
      return;
    case AugOp::Equalize:
      pilEqualize(img);
      return;
    case AugOp::Invert:
      pilInvert(img);
      return;
    case AugOp::Rotate:
      pilRotate(img, a.arg, filter, fill);
      return;
    case AugOp::Posterize:
    case AugOp::PosterizeIncreasing:
      pilPosterize(img, static_cast<int>(a.arg));
      return;
    case AugOp::Solarize:
    case AugOp::SolarizeIncreasing:
      pilSolarize(img, static_cast<int>(a.arg));
      return;
    case AugOp::SolarizeAdd:
      pilSolarizeAdd(img, static_cast<int>(a.arg));
      return;
    case AugOp::Color:
    case AugOp::ColorIncreasing:
      pilColor(img, a.arg);
      return;
    case AugOp::Contrast:
    case AugOp::ContrastIncreasing:
      pilContrast(img, a.arg);
      return;
    case AugOp::Brightness:
    case AugOp::BrightnessIncreasing:
      pilBrightness(img, a.arg);
      return;
    case AugOp::Sharpness:
    case AugOp::SharpnessIncreasing:
      pilSharpness(img, a.arg);
      return;
    case AugOp::ShearX: {
      const double m[6] = {1, a.arg, 0, 0, 1, 0};
      pilAffine(img, m, filter, fill);
      return;
    }
    case AugOp::ShearY: {
      const double m[6] = {1, 0, 0, a.arg, 1, 0};
      pilAffine(img, m, filter, fill);
      return;
    }
    case AugOp::TranslateXRel: {
      const double m[6] = {1, 0, a.arg * img.width, 0, 1, 0};
      pilAffine(img, m, filter, fill);
      return;
    }
    case AugOp::TranslateYRel: {
      const double m[6] = {1, 0, 0, 0, 1, a.arg * img.height};
      pilAffine(img, m, filter, fill);
      return;
    }
  }
}

void applyRandAugment(const std::vector<AppliedOp>& ops, std::uint8_t* frames, int count,
                      int height, int width, AugInterpolation interpolation, DrawSource& draws) {
  const std::size_t frameBytes = static_cast<std::size_t>(height) * width * 3;
  for (const AppliedOp& op : ops) {
    for (int t = 0; t < count; ++t) {
      PilFilter filter =
          interpolation == AugInterpolation::Bicubic ? PilFilter::Bicubic : PilFilter::Bilinear;
      // random.choice((BILINEAR, BICUBIC)) per frame, only inside the resampling ops
      if (interpolation == AugInterpolation::Random && augOpIsGeometric(op.op))
        filter = draws.uniform() < 0.5 ? PilFilter::Bilinear : PilFilter::Bicubic;
      applyAugOp({frames + static_cast<std::size_t>(t) * frameBytes, height, width}, op, filter);
    }
  }
}

}  // namespace amp::data
