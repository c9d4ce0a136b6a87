// ampstudio-cli model summary: parameters, output shape and state-dict entries of a config's model.
#include <iostream>
#include <memory>

#include "CliConfig.h"
#include "Commands.h"
#include "models/ModelFactory.h"

namespace amp::cli {
namespace {

struct ModelArgs {
  std::string cfg;
  std::vector<std::string> overrides;
  bool keys = false;
};

std::string withCommas(std::int64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

int runSummary(const ModelArgs& a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  models::ModelSummary m;
  try {
    m = models::summarizeModel(*cfg, !a.keys);
  } catch (const std::exception& e) {
    std::cerr << a.cfg << ": " << e.what() << "\n";
    return 1;
  }
  if (a.keys) {  // the format of PySlowFast's reference key files
    std::cout << "# " << m.name << ": " << m.parameters << " parameters, " << m.state.size()
              << " state-dict entries (key shape)\n";
    for (const auto& e : m.state) std::cout << e.name << " " << models::shapeText(e.shape) << "\n";
    return 0;
  }
  std::cout << "model        " << m.name << "\n"
            << "parameters   " << withCommas(m.parameters) << "\n";
  for (size_t p = 0; p < m.input_shapes.size(); ++p)
    std::cout << "input " << p << "      " << models::shapeText(m.input_shapes[p]) << "\n";
  std::cout << "output       " << models::shapeText(m.output_shape) << "\n"
            << "GFLOPs       " << static_cast<double>(m.macs) / 1e9
            << " (multiply-adds of one forward pass at this input size, as PySlowFast counts)\n"
            << "state dict   " << m.state.size() << " entries\n";
  return 0;
}

}  // namespace

void addModelCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<ModelArgs>();
  CLI::App* model = app.add_subcommand("model", "Inspect the model a config builds");
  model->require_subcommand(1);
  CLI::App* summary = model->add_subcommand(
      "summary", "Parameter count, input/output shapes; --keys lists the state dict");
  summary->add_option("--cfg", args->cfg, "Config file")->required()->check(CLI::ExistingFile);
  summary->add_flag("--keys", args->keys,
                    "Every state-dict entry as 'name AxBxC' (PySlowFast's reference format)");
  acceptOverrides(summary);
  summary->callback([args, summary, &exitCode] {
    args->overrides = overridesOf(summary);
    exitCode = runSummary(*args);
  });
}

}  // namespace amp::cli
