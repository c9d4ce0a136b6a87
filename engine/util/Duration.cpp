#include "util/Duration.h"

#include <cmath>
#include <cstdio>

namespace amp::util {

std::string formatDuration(double seconds) {
  // Above about 3e14 s a double no longer holds every whole second and the cast below would
  // overflow; no run or ETA comes near it (ten million years), so the cap only keeps it defined.
  constexpr double kMaxSeconds = 1e14;
  const double clamped =
      std::isfinite(seconds) ? std::fmin(std::fmax(seconds, 0.0), kMaxSeconds) : 0.0;
  const auto s = static_cast<long long>(std::llround(clamped));
  char text[32];
  std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
  return text;
}

}  // namespace amp::util
