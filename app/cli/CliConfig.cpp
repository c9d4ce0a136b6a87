#include "CliConfig.h"

#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "configfile/ConfigLoader.h"
#include "data/ClassNames.h"

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

std::optional<std::map<int, std::string>> classNamesForCommand(const config::Config& cfg,
                                                               std::string labels,
                                                               const std::string& cfgPath) {
  std::map<int, std::string> names;
  if (labels.empty() && !cfg.getString("DEMO.LABEL_FILE_PATH").empty()) {
    // From the config: a names file that is not there (the dataset lives elsewhere) costs the
    // names, not the command.
    const std::string fromConfig = cfg.getString("DEMO.LABEL_FILE_PATH");
    if (std::filesystem::exists(fromConfig))
      labels = fromConfig;
    else
      std::cerr << cfgPath << ": DEMO.LABEL_FILE_PATH: " << fromConfig
                << " does not exist; classes are shown by number\n";
  }
  std::string error;
  if (!labels.empty() && !data::readClassNames(labels, names, error)) {
    std::cerr << error << "\n";
    return std::nullopt;
  }
  return names;
}

}  // namespace amp::cli
