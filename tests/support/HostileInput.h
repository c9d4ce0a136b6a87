#pragma once
// Small files that would cost a careless reader far more than their size: each test builds the
// one it needs here rather than shipping it, so the shape is written down once.
//
//   const std::string yaml = amp::testsupport::yamlAliasBomb();  // 1 KB, 10^10 values expanded
#include <string>

namespace amp::testsupport {

/// "Billion laughs" in YAML, as the value of TRAIN.BATCH_SIZE: anchor a0 is a list of `fanout`
/// ones, each a_i a list of `fanout` aliases to a_(i-1), so a_(depth-1) names fanout^depth values
/// in a file of about depth * fanout * 5 bytes. `prefix` goes before it (e.g. a _BASE_ line).
inline std::string yamlAliasBomb(int depth = 10, int fanout = 10, const std::string& prefix = "") {
  std::string out = prefix + "TRAIN:\n  BATCH_SIZE: [\n";
  for (int level = 0; level < depth; ++level) {
    out += "    &a" + std::to_string(level) + " [";
    for (int i = 0; i < fanout; ++i) {
      if (i) out += ", ";
      out += level == 0 ? "1" : "*a" + std::to_string(level - 1);
    }
    out += level + 1 < depth ? "],\n" : "]\n";
  }
  return out + "  ]\n";
}

}  // namespace amp::testsupport
