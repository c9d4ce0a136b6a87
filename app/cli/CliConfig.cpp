#include "CliConfig.h"

#include <iostream>

#include <CLI/CLI.hpp>

#include "configfile/ConfigLoader.h"

namespace amp::cli {

void acceptOverrides(CLI::App* sub) {
  sub->allow_extras();
  sub->footer(
      "Trailing KEY VALUE pairs override the file, e.g. SOLVER.BASE_LR 0.05 "
      "DATA.TRAIN_JITTER_SCALES \"[256, 320]\"");
}

std::vector<std::string> overridesOf(const CLI::App* sub) {
  return sub->remaining();
}

std::optional<config::Config> loadConfigForCommand(const std::string& path,
                                                   const std::vector<std::string>& overrides,
                                                   config::Diagnostics* held) {
  auto r = config::ConfigLoader().loadFile(path, overrides);
  if (held && r.ok())
    *held = r.diagnostics;
  else
    std::cerr << config::formatDiagnostics(r.diagnostics);
  if (!r.ok()) {
    std::cerr << path << ": invalid config (" << config::countErrors(r.diagnostics)
              << " errors); see 'ampstudio-cli config check'\n";
    return std::nullopt;
  }
  return std::move(r.config);
}

}  // namespace amp::cli
