#include "RunText.h"

#include <iomanip>
#include <sstream>

namespace amp::cli {
namespace {
// "  name value" when the event has `key`; nothing otherwise (a multi-label run's events have no
// top1_err: 0 would read as a perfect model).
void optional(std::ostringstream& out, const runlog::MetricEvent& e, const char* key,
              const char* name, int precision) {
  if (const auto v = e.value(key)) out << "  " << name << " " << std::setprecision(precision) << *v;
}

// mAP is logged as a fraction (PySlowFast's json_stats "map") and read as percent.
void optionalMap(std::ostringstream& out, const runlog::MetricEvent& e, const char* key,
                 const char* name) {
  if (const auto v = e.value(key))
    out << "  " << name << " " << std::setprecision(2) << *v * 100.0 << " %";
}
}  // namespace

std::string trainStepLine(const runlog::MetricEvent& e, const StepLine& s) {
  std::ostringstream line;
  line << std::fixed << "[epoch " << std::setprecision(2) << e.epoch << "/" << s.maxEpoch
       << "][step " << e.step << "] loss " << std::setprecision(4) << e.value("loss").value_or(0);
  optional(line, e, "top1_err", "top1_err", 1);
  line << "  lr " << std::setprecision(5) << e.value("lr").value_or(0) << "  scale "
       << std::setprecision(0) << e.value("loss_scale").value_or(1) << "  grad_norm "
       << std::setprecision(3) << e.value("grad_norm").value_or(0) << "  clips/s "
       << std::setprecision(1) << e.value("clips_per_s").value_or(0) << "  eta " << s.eta;
  return line.str();
}

std::string trainStepBar(const runlog::MetricEvent& e, const StepLine& s) {
  const double frac =
      s.totalSteps > 0 ? static_cast<double>(e.step) / static_cast<double>(s.totalSteps) : 0.0;
  const int width = 24, filled = static_cast<int>(frac * width);
  std::ostringstream line;
  line << std::fixed << "epoch " << static_cast<int>(e.epoch - 1e-9) + 1 << "/" << s.maxEpoch
       << " [" << std::string(filled, '#') << std::string(width - filled, '.') << "] "
       << std::setprecision(0) << 100 * frac << "%  step " << e.step << "/" << s.totalSteps
       << "  loss " << std::setprecision(3) << e.value("loss").value_or(0);
  optional(line, e, "top1_err", "top1_err", 1);
  line << "  " << std::setprecision(1) << e.value("clips_per_s").value_or(0) << " clips/s  eta "
       << s.eta;
  return line.str();
}

std::string evaluationLine(const runlog::MetricEvent& e) {
  std::ostringstream head, figures;
  head << std::fixed;
  figures << std::fixed;
  if (e.kind == runlog::kind::kVal) {
    head << "[val epoch " << std::setprecision(0) << e.epoch << "]";
    optionalMap(figures, e, "map", "mAP");
    optionalMap(figures, e, "max_map", "best mAP");
    optional(figures, e, "top1_err", "top1_err", 2);
    optional(figures, e, "top5_err", "top5_err", 2);
    optional(figures, e, "min_top1_err", "best top1_err", 2);
  } else if (e.kind == runlog::kind::kTest) {
    head << "[test]";
    optionalMap(figures, e, "map", "mAP");
    optional(figures, e, "top1_err", "top1_err", 2);
    optional(figures, e, "top5_err", "top5_err", 2);
    figures << "  over " << std::setprecision(0) << e.value("videos").value_or(0) << " videos x "
            << e.value("views_per_video").value_or(0) << " views";
    if (const auto v = e.value("view_top1_err"))
      figures << "  (one view: top1_err " << std::setprecision(2) << *v << ")";
  } else if (e.kind == runlog::kind::kEvent) {
    return "[" + e.name + "] " + e.message;
  } else {
    return {};
  }
  // Figures are set apart by two spaces; after the bracket one is enough.
  const std::string text = figures.str();
  return head.str() + (text.empty() ? std::string() : " " + text.substr(2));
}

std::string bestValText(const runlog::RunSummary& s, bool multiLabel) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  if (multiLabel && s.bestValMap)
    out << "mAP " << *s.bestValMap * 100.0 << " %";
  else if (!multiLabel && s.bestValTop1)
    out << *s.bestValTop1 << " %";
  else
    out << "-";
  return out.str();
}

}  // namespace amp::cli
