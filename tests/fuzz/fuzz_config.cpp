// A PySlowFast YAML config through the loader: parsing, _BASE_ (a base file beside it), the
// schema's type checks, KEY VALUE overrides (the input's last line, split at spaces) and the
// validator.
#include <fstream>

#include "FuzzTarget.h"
#include "configfile/ConfigLoader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string dir = [] {
    const std::string d = amp::fuzz::scratchDir();
    std::ofstream(d + "/base.yaml") << "TRAIN:\n  BATCH_SIZE: 8\nMODEL:\n  ARCH: x3d\n  "
                                       "NUM_CLASSES: 10\nSOLVER:\n  STEPS: [0, 5]\n";
    return d;
  }();
  static const amp::config::ConfigLoader loader;
  std::string text = amp::fuzz::bytes(data, size);
  std::vector<std::string> overrides;
  if (const auto nl = text.rfind('\n');
      nl != std::string::npos && text.compare(nl + 1, 3, "OV ") == 0) {
    std::string rest = text.substr(nl + 4);
    text.resize(nl);
    for (std::size_t at = 0; at <= rest.size() && overrides.size() < 16;) {
      const auto sp = rest.find(' ', at);
      overrides.push_back(rest.substr(at, sp == std::string::npos ? std::string::npos : sp - at));
      if (sp == std::string::npos) break;
      at = sp + 1;
    }
    if (overrides.size() % 2) overrides.pop_back();
  }
  auto r = loader.loadText(text, "fuzz.yaml", dir, overrides);
  (void)amp::config::formatDiagnostics(r.diagnostics);
  return 0;
}
