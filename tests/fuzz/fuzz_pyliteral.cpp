// PySlowFast's Python literals in YAML values and overrides: "[[0.5, 1], (1, 2)]", "True", "1e-3"
// ...
#include "FuzzTarget.h"
#include "config/PyLiteral.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = amp::fuzz::bytes(data, size);
  if (auto v = amp::config::parsePythonLiteral(text))
    (void)v->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
