#include "train/Mixup.h"

#include <algorithm>
#include <cmath>

#include "config/Config.h"

namespace amp::train {
namespace {

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform, normal and gamma draws of our own (not <random>'s distributions, whose algorithms
// differ between standard libraries): the same seed mixes the same way on every machine.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  double uniform() { return static_cast<double>((state_ = splitmix(state_)) >> 11) * 0x1.0p-53; }
  /// numpy's randint(lo, hi): lo <= k < hi.
  int64_t integer(int64_t lo, int64_t hi) {
    return lo + std::min<int64_t>(hi - lo - 1,
                                  static_cast<int64_t>(uniform() * static_cast<double>(hi - lo)));
  }
  double normal() {  // Box-Muller
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
  double gamma(double a) {  // Marsaglia and Tsang; a < 1 through gamma(a + 1) * U^(1/a)
    if (a < 1.0) return gamma(a + 1.0) * std::pow(1.0 - uniform(), 1.0 / a);
    const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    while (true) {
      double x, v;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = 1.0 - uniform();
      if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
    }
  }
  double beta(double a, double b) {
    const double x = gamma(a), y = gamma(b);
    return x / (x + y);
  }

 private:
  std::uint64_t state_;
};

}  // namespace

MixupParams MixupParams::fromConfig(const config::Config& c) {
  MixupParams p;
  p.enabled = c.getBool("MIXUP.ENABLE");
  p.alpha = c.getFloat("MIXUP.ALPHA");
  p.cutmix_alpha = c.getFloat("MIXUP.CUTMIX_ALPHA");
  p.prob = c.getFloat("MIXUP.PROB");
  p.switch_prob = c.getFloat("MIXUP.SWITCH_PROB");
  p.smoothing = c.getFloat("MIXUP.LABEL_SMOOTH_VALUE");
  p.num_classes = c.getInt("MODEL.NUM_CLASSES");
  return p;
}

std::uint64_t mixSeed(std::uint64_t rngSeed, int epoch, std::int64_t iteration, std::int64_t micro,
                      int rank) {
  std::uint64_t s = splitmix(rngSeed ^ 0x4d49585550ULL);  // "MIXUP"
  for (const std::uint64_t v :
       {static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(iteration),
        static_cast<std::uint64_t>(micro), static_cast<std::uint64_t>(rank)})
    s = splitmix(s ^ v);
  return s;
}

MixDecision drawMix(const MixupParams& p, int64_t height, int64_t width, std::uint64_t seed) {
  Rng rng(seed);
  MixDecision m;
  if (!(p.prob > 0.0) || !(rng.uniform() < p.prob)) return m;
  double lam = 1.0;
  if (p.alpha > 0.0 && p.cutmix_alpha > 0.0) {
    m.cutmix = rng.uniform() < p.switch_prob;
    lam = m.cutmix ? rng.beta(p.cutmix_alpha, p.cutmix_alpha) : rng.beta(p.alpha, p.alpha);
  } else if (p.alpha > 0.0) {
    lam = rng.beta(p.alpha, p.alpha);
  } else if (p.cutmix_alpha > 0.0) {
    m.cutmix = true;
    lam = rng.beta(p.cutmix_alpha, p.cutmix_alpha);
  }
  m.lam = lam;
  if (lam == 1.0) {  // _mix_batch returns before drawing a box
    m.cutmix = false;
    return m;
  }
  if (m.cutmix) {  // rand_bbox with no margin, then the corrected lam
    const double ratio = std::sqrt(1.0 - lam);
    const int64_t cutH = static_cast<int64_t>(static_cast<double>(height) * ratio);
    const int64_t cutW = static_cast<int64_t>(static_cast<double>(width) * ratio);
    const int64_t cy = rng.integer(0, height), cx = rng.integer(0, width);
    m.y0 = std::clamp<int64_t>(cy - cutH / 2, 0, height);
    m.y1 = std::clamp<int64_t>(cy + cutH / 2, 0, height);
    m.x0 = std::clamp<int64_t>(cx - cutW / 2, 0, width);
    m.x1 = std::clamp<int64_t>(cx + cutW / 2, 0, width);
    m.lam = 1.0 - static_cast<double>((m.y1 - m.y0) * (m.x1 - m.x0)) /
                      static_cast<double>(height * width);
  }
  return m;
}

void applyMix(std::vector<torch::Tensor>& pathways, const MixDecision& m) {
  if (m.lam == 1.0 && !m.cutmix) return;
  torch::NoGradGuard noGrad;
  for (auto& x : pathways) {
    if (m.cutmix) {
      if (m.y1 <= m.y0 || m.x1 <= m.x0) continue;
      using torch::indexing::Ellipsis;
      using torch::indexing::Slice;
      const std::vector<torch::indexing::TensorIndex> box{Ellipsis, Slice(m.y0, m.y1),
                                                          Slice(m.x0, m.x1)};
      x.index_put_(box, x.flip(0).index(box));
    } else {
      auto reversed = x.flip(0).mul_(1.0 - m.lam);  // before x changes
      x.mul_(m.lam).add_(reversed);
    }
  }
}

torch::Tensor mixTargets(const torch::Tensor& labels, int64_t numClasses, double lam,
                         double smoothing) {
  const double off = smoothing / static_cast<double>(numClasses), on = 1.0 - smoothing + off;
  auto oneHot = [&](const torch::Tensor& l) {
    return torch::full({l.size(0), numClasses}, off,
                       torch::TensorOptions().dtype(torch::kFloat).device(l.device()))
        .scatter_(1, l.to(torch::kLong).view({-1, 1}), on);
  };
  return oneHot(labels) * lam + oneHot(labels.flip(0)) * (1.0 - lam);
}

std::pair<torch::Tensor, torch::Tensor> mixedPredictionsForErrors(const torch::Tensor& logits,
                                                                  const torch::Tensor& targets) {
  const auto top2 = std::get<1>(targets.topk(2, 1, /*largest=*/true, /*sorted=*/true));
  const auto first = top2.select(1, 0), second = top2.select(1, 1);
  auto preds = logits.detach().clone();
  const auto rows = torch::arange(
      preds.size(0), torch::TensorOptions().dtype(torch::kLong).device(preds.device()));
  preds.index_put_({rows, first}, preds.index({rows, first}) + preds.index({rows, second}));
  preds.index_put_({rows, second}, 0.0);
  return {preds, first};
}

}  // namespace amp::train
