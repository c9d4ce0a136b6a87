#pragma once
// The random numbers of the data pipeline. Every random choice of a transform is made from
// uniform draws in [0, 1) taken from a DrawSource, never from a global generator: the loader
// feeds a splitmix64 stream keyed by (seed, epoch, position, ...), tests feed hand-chosen
// numbers. The helpers reproduce the Python calls PySlowFast makes (random.uniform,
// random.randint, random.gauss) as functions of the draws.
#include <cmath>
#include <cstdint>
#include <vector>

namespace amp::data {

/// A source of uniform draws in [0, 1).
class DrawSource {
 public:
  virtual ~DrawSource() = default;
  virtual double uniform() = 0;
};

/// splitmix64's finaliser: portable, and independent of which thread asks.
inline std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The loader's stream: a splitmix64 sequence whose start mixes the seed with up to four keys.
class Draws : public DrawSource {
 public:
  Draws(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c)
      : state_(splitmix(splitmix(splitmix(seed) ^ a) ^ b) ^ c) {}
  Draws(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d)
      : state_(splitmix(splitmix(splitmix(splitmix(seed) ^ a) ^ b) ^ c) ^ d) {}
  double uniform() override {
    return static_cast<double>((state_ = splitmix(state_)) >> 11) * 0x1.0p-53;
  }
  std::uint64_t integer(std::uint64_t n) { return (state_ = splitmix(state_)) % n; }

 private:
  std::uint64_t state_;
};

/// Hand-chosen draws, in order (tests). Past the end it repeats the last one and counts the
/// overrun, so a test can check that a transform took exactly the draws it expected.
class FixedDraws : public DrawSource {
 public:
  explicit FixedDraws(std::vector<double> values) : values_(std::move(values)) {}
  double uniform() override {
    if (next_ < values_.size()) return values_[next_++];
    ++overrun_;
    return values_.empty() ? 0.5 : values_.back();
  }
  std::size_t used() const { return next_; }
  std::size_t overrun() const { return overrun_; }

 private:
  std::vector<double> values_;
  std::size_t next_ = 0, overrun_ = 0;
};

/// random.uniform(a, b).
inline double uniformIn(DrawSource& d, double a, double b) {
  return a + (b - a) * d.uniform();
}

/// random.randint(lo, hi): lo .. hi inclusive.
inline int randInt(DrawSource& d, int lo, int hi) {
  if (hi <= lo) return lo;
  const int v = lo + static_cast<int>(std::floor(d.uniform() * (static_cast<double>(hi) - lo + 1)));
  return v > hi ? hi : v;
}

/// A standard normal draw (Box-Muller over two uniform draws).
inline double normalDraw(DrawSource& d) {
  const double u1 = 1.0 - d.uniform();  // (0, 1]: log is finite
  const double u2 = d.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace amp::data
