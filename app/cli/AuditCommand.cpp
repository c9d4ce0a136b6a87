// ampstudio-cli audit precision: a few training batches of the config's model with every layer
// observed; where float16 or bfloat16 runs out, layer by layer (docs/precision-audit.md).
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "CliConfig.h"
#include "Commands.h"
#include "audit/AuditJson.h"
#include "audit/PrecisionAudit.h"

namespace amp::cli {
namespace {

struct AuditArgs {
  std::string cfg;
  std::vector<std::string> overrides;
  audit::PrecisionAuditOptions options;
  bool json = false;
  bool noCompare = false;
};

std::string fixed(double v, int precision) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream o;
  o << std::fixed << std::setprecision(precision) << v;
  return o.str();
}

std::string sci(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream o;
  o << std::scientific << std::setprecision(2) << v;
  return o.str();
}

void printTable(const audit::PrecisionAuditReport& r) {
  const auto& s = r.summary;
  std::size_t w = 5, opw = 2;
  for (const auto& l : r.layers) {
    w = std::max(w, l.name.size());
    opw = std::max(opw, l.op.size());
  }
  w = std::min<std::size_t>(w, 60);
  const int opWidth = static_cast<int>(opw) + 2;
  std::cout << std::left << std::setw(4) << "#" << std::setw(static_cast<int>(w) + 2) << "layer"
            << std::setw(opWidth) << "op" << std::setw(10) << "dtype" << std::right << std::setw(10)
            << "act_max" << std::setw(10) << "headroom" << std::setw(10) << "bf16_err"
            << std::setw(10) << "grad_max" << std::setw(9) << "zero16" << std::setw(9) << "subn16"
            << std::setw(10) << "ovf_scale"
            << "  why\n";
  for (const auto& l : r.layers) {
    std::string name = l.name.size() > w ? "..." + l.name.substr(l.name.size() - w + 3) : l.name;
    std::cout << std::left << std::setw(4) << l.index << std::setw(static_cast<int>(w) + 2) << name
              << std::setw(opWidth) << l.op << std::setw(10) << l.dtype << std::right
              << std::setw(10) << sci(l.act_absmax) << std::setw(10) << fixed(l.headroom_log2, 1)
              << std::setw(10) << sci(l.bf16_rel_error) << std::setw(10)
              << (l.has_grad ? sci(l.grad_absmax) : std::string("-")) << std::setw(9)
              << (l.has_grad ? fixed(100 * l.fp16_underflow_fraction, 1) + "%" : std::string("-"))
              << std::setw(9)
              << (l.has_grad ? fixed(100 * l.fp16_subnormal_fraction, 1) + "%" : std::string("-"))
              << std::setw(10)
              << (l.has_grad ? audit::scaleText(std::exp2(std::floor(std::log2(l.overflow_scale))))
                             : std::string("-"))
              << (l.nonfinite_grad ? "  INF/NAN" : "") << "  " << l.why << "\n";
  }
  std::cout << "\nloss scale s = " << audit::scaleText(s.report_scale)
            << " for zero16/subn16 (share of nonzero gradient elements "
            << "float16 would store as 0 / as a subnormal at s); the audited " << s.precision
            << " backward used " << audit::scaleText(s.applied_scale) << "\n";
  if (std::isinf(s.safe_scale_max)) {
    std::cout << "no gradient reached the layers\n";
  } else {
    std::cout << "safe loss scales: " << sci(s.safe_scale_min) << " .. " << sci(s.safe_scale_max)
              << "  (2^" << fixed(std::log2(std::max(s.safe_scale_min, 1e-300)), 1) << " .. 2^"
              << fixed(std::log2(s.safe_scale_max), 1) << "; overflow first in " << s.overflow_layer
              << ", whole gradient subnormal below the minimum in " << s.underflow_layer << ")"
              << (s.safe_range_exists ? "" : "  NO SAFE SCALE") << "\n";
    std::cout << "at s: " << s.layers_overflowing << " of " << r.layers.size()
              << " layers overflow, " << s.layers_underflowing
              << " lose over 1% of their gradient to zero\n";
  }
  std::cout << "smallest activation headroom: " << fixed(s.min_headroom_log2, 2) << " bits ("
            << s.min_headroom_layer << ")\n";
  if (!std::isnan(s.max_bf16_rel_error))
    std::cout << "largest bf16 relative error: " << sci(s.max_bf16_rel_error) << " ("
              << s.max_bf16_error_layer << ")\n";
  if (!s.nonfinite_layer.empty())
    std::cout << "inf/NaN gradient first (backward order) in: " << s.nonfinite_layer << "\n";
  std::cout << "losses:";
  for (double l : r.losses) std::cout << " " << fixed(l, 4);
  std::cout << (r.skipped_steps ? "  (" + std::to_string(r.skipped_steps) + " steps skipped)"
                                : std::string())
            << "\n";
  std::cout << "recommendation: " << s.recommendation << "\n";
  if (!r.plain_step_seconds.empty()) {
    double plain = 0;
    for (double t : r.plain_step_seconds) plain += t;
    std::cout << "time: audit " << fixed(r.audit_seconds, 2) << " s for " << s.batches
              << " batches; " << s.batches << " plain training steps of the same model and batches "
              << fixed(plain, 2) << " s (";
    for (std::size_t i = 0; i < r.plain_step_seconds.size(); ++i)
      std::cout << (i ? " " : "") << fixed(r.plain_step_seconds[i], 2);
    std::cout << "); audit / plain " << fixed(plain > 0 ? r.audit_seconds / plain : 0.0, 2)
              << "x\n";
  }
}

int runAudit(AuditArgs a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  if (a.noCompare) a.options.compare_batches = 0;
  audit::PrecisionAuditReport report;
  std::string error;
  if (!a.json)
    std::cout << "precision audit: " << a.cfg << ", " << a.options.batches << " training batches"
              << (a.options.synthetic ? " of random clips" : "") << std::endl;
  if (!audit::auditPrecision(*cfg, a.options, report, &error)) {
    std::cerr << "audit precision: " << error << "\n";
    return 1;
  }
  if (a.json) {
    std::cout << audit::auditReportToJson(report).dump(1) << "\n";
    return 0;
  }
  for (const auto& n : report.notes) std::cout << "note: " << n << "\n";
  std::cout << cfg->getString("MODEL.MODEL_NAME") << " (" << cfg->getString("MODEL.ARCH") << "), "
            << report.summary.precision << " on " << report.summary.device << ", batch "
            << report.summary.batch_size << "\n";
  printTable(report);
  return 0;
}

}  // namespace

void addAuditCommand(CLI::App& app, int& exitCode) {
  CLI::App* auditCmd = app.add_subcommand("audit", "Diagnostics of a config's model");
  auditCmd->require_subcommand(1);
  auto args = std::make_shared<AuditArgs>();
  CLI::App* prec = auditCmd->add_subcommand(
      "precision",
      "Train N batches with every layer observed: dtype under autocast and why, float16 headroom, "
      "bfloat16 error, "
      "gradient underflow/overflow by loss scale, the safe scale range and a recommendation");
  prec->add_option("--cfg", args->cfg, "PySlowFast YAML config")
      ->required()
      ->check(CLI::ExistingFile);
  prec->add_option("--batches", args->options.batches, "Training batches to audit (default 4)")
      ->check(CLI::PositiveNumber);
  prec->add_option("--batch", args->options.batch_size,
                   "Clips per batch (default TRAIN.BATCH_SIZE)")
      ->check(CLI::PositiveNumber);
  prec->add_option("--checkpoint", args->options.checkpoint,
                   "Start from this checkpoint's weights (and its loss scale when the scaler runs)")
      ->check(CLI::ExistingFile);
  prec->add_option("--precision", args->options.precision,
                   "amp (default: what mixed precision is on this device), bf16, fp16 or fp32")
      ->check(CLI::IsMember({"amp", "bf16", "fp16", "fp32"}));
  prec->add_option("--scale", args->options.report_scale,
                   "Loss scale s of the underflow fractions (default: the scaler's current scale, "
                   "else AMP.INIT_SCALE)")
      ->check(CLI::PositiveNumber);
  prec->add_flag("--synthetic", args->options.synthetic,
                 "Random clips instead of the training set");
  prec->add_option("--compare-batches", args->options.compare_batches,
                   "The first N batches also run a float32 and a bfloat16 forward for the bf16 "
                   "error column (default 1)")
      ->check(CLI::NonNegativeNumber);
  prec->add_flag("--no-compare", args->noCompare,
                 "No float32 and bfloat16 forwards (no bf16 error column): --compare-batches 0");
  prec->add_option("--threads", args->options.threads, "CPU threads (default: as training)");
  prec->add_flag("--json", args->json, "One JSON object: layers, summary, recommendation, notes");
  prec->add_flag("--time", args->options.time_plain_steps,
                 "Benchmark: also time as many plain training steps of the same model and batches, "
                 "and print the ratio");
  acceptOverrides(prec);
  prec->callback([args, prec, &exitCode] {
    args->overrides = overridesOf(prec);
    exitCode = runAudit(*args);
  });
}

}  // namespace amp::cli
