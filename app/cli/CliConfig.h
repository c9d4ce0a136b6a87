#pragma once
// Loading a config for a CLI command: prints the engine's messages and says whether to go on.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/Config.h"

namespace CLI {
class App;
}

namespace amp::cli {

/// Lets `sub` take trailing KEY VALUE overrides verbatim. CLI11 would split a value such as
/// "[256, 320]" into several arguments, so they are taken as extras and read back with
/// overridesOf() in the callback.
void acceptOverrides(CLI::App* sub);
std::vector<std::string> overridesOf(const CLI::App* sub);

/// Loads --cfg with overrides; prints errors and warnings to stderr. nullopt when invalid.
/// With `held`, a valid config's warnings go there instead, for the caller to print (the
/// pre-flight report folds them with its own).
std::optional<config::Config> loadConfigForCommand(const std::string& path,
                                                   const std::vector<std::string>& overrides,
                                                   config::Diagnostics* held = nullptr);

/// Class names for a classification command: `labels` (--labels), else DEMO.LABEL_FILE_PATH (a
/// file the config names that is not there costs the names, with a warning, not the command).
/// nullopt, the error printed, when a file given cannot be read.
std::optional<std::map<int, std::string>> classNamesForCommand(const config::Config& cfg,
                                                               std::string labels,
                                                               const std::string& cfgPath);

}  // namespace amp::cli
