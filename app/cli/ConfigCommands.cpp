// ampstudio-cli config check | show | keys
#include <iomanip>
#include <iostream>
#include <memory>

#include "CliConfig.h"
#include "Commands.h"
#include "PreflightReport.h"
#include "config/ValueFormat.h"
#include "configfile/ConfigLoader.h"
#include "configfile/ConfigWriter.h"

namespace amp::cli {
namespace {

struct ConfigArgs {
  std::string cfg;
  std::vector<std::string> overrides;
  bool changedOnly = false;
  bool pyslowfast = false;
  bool quiet = false;
  bool preflight = false;
  bool noMemoryCheck = false;
  std::string prefix;
};

void addCfgOptions(CLI::App* sub, ConfigArgs& a) {
  sub->add_option("--cfg", a.cfg, "PySlowFast YAML config file")
      ->required()
      ->check(CLI::ExistingFile);
  acceptOverrides(sub);
}

const char* statusText(config::KeyStatus s) {
  switch (s) {
    case config::KeyStatus::Active:
      return "";
    case config::KeyStatus::Inactive:
      return " [not acted on yet]";
    case config::KeyStatus::Deprecated:
      return " [deprecated, ignored]";
    case config::KeyStatus::Refused:
      return " [refused by train and test when set]";
  }
  return "";
}

int runCheck(const ConfigArgs& a) {
  auto r = config::ConfigLoader().loadFile(a.cfg, a.overrides);
  const size_t errors = config::countErrors(r.diagnostics);
  const size_t warnings = r.diagnostics.size() - errors;
  if (!a.preflight || errors)
    std::cerr << config::formatDiagnostics(
        r.diagnostics);  // else the pre-flight report prints them
  if (errors) {
    std::cerr << a.cfg << ": " << errors << " error" << (errors == 1 ? "" : "s") << ", " << warnings
              << " warning" << (warnings == 1 ? "" : "s") << "\n";
    return 1;
  }
  if (!a.quiet)
    std::cout << a.cfg << ": valid (" << r.config.changedKeys().size()
              << " keys differ from the defaults, " << warnings << " warning"
              << (warnings == 1 ? "" : "s") << ")\n";
  if (a.preflight)
    return reportPreflight(r.config, a.cfg, PreflightFlags{!a.noMemoryCheck}, r.diagnostics);
  return 0;
}

int runShow(const ConfigArgs& a) {
  auto r = config::ConfigLoader().loadFile(a.cfg, a.overrides);
  std::cerr << config::formatDiagnostics(r.diagnostics);
  if (!r.ok()) return 1;
  config::WriteOptions opts;
  opts.onlyChanged = a.changedOnly;
  opts.pyslowfast = a.pyslowfast;
  std::cout << config::toYaml(r.config, opts);
  return 0;
}

int runKeys(const ConfigArgs& a) {
  auto schema = config::KeySchema::builtin();
  auto keys = schema->withPrefix(a.prefix);
  if (keys.empty()) {
    std::cerr << "no config key starts with '" << a.prefix << "'";
    auto s = schema->suggest(a.prefix);
    if (!s.empty()) std::cerr << "; did you mean " << s.front() << "?";
    std::cerr << "\n";
    return 1;
  }
  std::string group = "\x01";
  for (const auto* k : keys) {
    if (k->group() != group) {
      group = k->group();
      std::cout << "\n" << (group.empty() ? "(top level)" : group) << "\n";
    }
    std::cout << "  " << std::left << std::setw(40) << k->key << " " << std::setw(16)
              << k->type.text() << " " << config::formatValue(k->defaultValue);
    if (!k->constraint.empty()) std::cout << "  (" << k->constraint.text() << ")";
    std::cout << statusText(k->status) << (k->studioKey ? " [AMP Studio]" : "") << "\n      "
              << k->doc << "\n";
  }
  std::cout << "\n" << keys.size() << " keys\n";
  return 0;
}

}  // namespace

void addConfigCommands(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<ConfigArgs>();
  CLI::App* cfg = app.add_subcommand("config", "Check, show and document configs");
  cfg->require_subcommand(1);

  CLI::App* check =
      cfg->add_subcommand("check", "Validate a config; errors go to stderr, exit 1 when invalid");
  addCfgOptions(check, *args);
  check->add_flag("-q,--quiet", args->quiet, "Print nothing when valid");
  check->add_flag("--preflight", args->preflight,
                  "Also check this machine as train --dry-run does: device, dataset, OUTPUT_DIR "
                  "and checkpoints, memory of one step");
  check->add_flag("--no-memory-check", args->noMemoryCheck,
                  "With --preflight: skip measuring one training step of the model");
  check->callback([args, check, &exitCode] {
    args->overrides = overridesOf(check);
    exitCode = runCheck(*args);
  });

  CLI::App* show = cfg->add_subcommand("show", "Print the fully resolved config as YAML");
  addCfgOptions(show, *args);
  show->add_flag("--changed", args->changedOnly, "Only keys that differ from the defaults");
  show->add_flag(
      "--pyslowfast", args->pyslowfast,
      "YAML PySlowFast can read: drop AMP Studio keys, fold SOLVER.LR_SCALE into the rates");
  show->callback([args, show, &exitCode] {
    args->overrides = overridesOf(show);
    exitCode = runShow(*args);
  });

  CLI::App* keys =
      cfg->add_subcommand("keys", "List config keys with type, default, allowed values and docs");
  keys->add_option("prefix", args->prefix, "Only keys starting with this, e.g. SOLVER or AMP.");
  keys->callback([args, &exitCode] { exitCode = runKeys(*args); });
}

}  // namespace amp::cli
