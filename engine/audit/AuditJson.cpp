#include "audit/AuditJson.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace amp::audit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// Reads the fields of one JSON object, naming the first wrong one in its exception.
class Fields {
 public:
  Fields(const nlohmann::json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) throw std::runtime_error(where_ + ": not an object");
  }
  /// A number, or null for `none`; absent: `fallback`.
  double num(const char* key, double none, double fallback) const {
    const auto it = j_.find(key);
    if (it == j_.end()) return fallback;
    if (it->is_null()) return none;
    if (!it->is_number()) throw std::runtime_error(at(key) + ": not a number");
    return it->get<double>();
  }
  std::int64_t integer(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) return 0;
    if (!it->is_number_integer()) throw std::runtime_error(at(key) + ": not an integer");
    return it->get<std::int64_t>();
  }
  std::string str(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return {};
    if (!it->is_string()) throw std::runtime_error(at(key) + ": not a string");
    return it->get<std::string>();
  }
  bool flag(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) return false;
    if (!it->is_boolean()) throw std::runtime_error(at(key) + ": not true or false");
    return it->get<bool>();
  }
  std::vector<double> numbers(const char* key) const {
    std::vector<double> out;
    const auto it = j_.find(key);
    if (it == j_.end()) return out;
    if (!it->is_array()) throw std::runtime_error(at(key) + ": not a list");
    for (const auto& v : *it) {
      if (!v.is_number() && !v.is_null())
        throw std::runtime_error(at(key) + ": not a list of numbers");
      out.push_back(v.is_null() ? kNaN : v.get<double>());
    }
    return out;
  }
  std::vector<std::string> strings(const char* key) const {
    std::vector<std::string> out;
    const auto it = j_.find(key);
    if (it == j_.end()) return out;
    if (!it->is_array()) throw std::runtime_error(at(key) + ": not a list");
    for (const auto& v : *it) {
      if (!v.is_string()) throw std::runtime_error(at(key) + ": not a list of strings");
      out.push_back(v.get<std::string>());
    }
    return out;
  }

 private:
  std::string at(const char* key) const { return where_.empty() ? key : where_ + "." + key; }
  const nlohmann::json& j_;
  std::string where_;
};

}  // namespace

nlohmann::json auditReportToJson(const PrecisionAuditReport& r) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : r.layers)
    layers.push_back({{"index", l.index},
                      {"name", l.name},
                      {"op", l.op},
                      {"module", l.module},
                      {"dtype", l.dtype},
                      {"why", l.why},
                      {"act_absmax", number(l.act_absmax)},
                      {"headroom_log2", number(l.headroom_log2)},
                      {"bf16_rel_error", number(l.bf16_rel_error)},
                      {"has_grad", l.has_grad},
                      {"grad_absmax", number(l.grad_absmax)},
                      {"grad_elements", l.grad_elements},
                      {"grad_nonzero", l.grad_nonzero},
                      {"fp16_underflow_fraction", l.fp16_underflow_fraction},
                      {"fp16_subnormal_fraction", l.fp16_subnormal_fraction},
                      {"overflow_scale", number(l.overflow_scale)},
                      {"nonfinite_grad", l.nonfinite_grad}});
  const auto& s = r.summary;
  nlohmann::json summary = {{"precision", s.precision},
                            {"device", s.device},
                            {"batches", s.batches},
                            {"batch_size", s.batch_size},
                            {"report_scale", s.report_scale},
                            {"applied_scale", s.applied_scale},
                            {"safe_scale_min", number(s.safe_scale_min)},
                            {"safe_scale_max", number(s.safe_scale_max)},
                            {"safe_range_exists", s.safe_range_exists},
                            {"overflow_layer", s.overflow_layer},
                            {"underflow_layer", s.underflow_layer},
                            {"layers_overflowing", s.layers_overflowing},
                            {"layers_underflowing", s.layers_underflowing},
                            {"min_headroom_log2", number(s.min_headroom_log2)},
                            {"min_headroom_layer", s.min_headroom_layer},
                            {"max_bf16_rel_error", number(s.max_bf16_rel_error)},
                            {"max_bf16_error_layer", s.max_bf16_error_layer},
                            {"nonfinite_layer", s.nonfinite_layer},
                            {"suggested_init_scale", s.suggested_init_scale},
                            {"bf16_safer", s.bf16_safer},
                            {"losses", r.losses},
                            {"skipped_steps", r.skipped_steps},
                            {"audit_seconds", r.audit_seconds}};
  if (!r.plain_step_seconds.empty()) summary["plain_step_seconds"] = r.plain_step_seconds;
  return {{"layers", layers},
          {"summary", summary},
          {"recommendation", s.recommendation},
          {"notes", r.notes}};
}

bool auditReportFromJson(const nlohmann::json& j, PrecisionAuditReport& out, std::string* error) {
  PrecisionAuditReport r;
  try {
    if (!j.is_object()) throw std::runtime_error("not a JSON object");
    const auto layers = j.find("layers");
    if (layers == j.end() || !layers->is_array())
      throw std::runtime_error("layers: missing or not a list");
    for (std::size_t i = 0; i < layers->size(); ++i) {
      const Fields f((*layers)[i], "layers[" + std::to_string(i) + "]");
      LayerAudit l;
      l.index = static_cast<int>(f.integer("index"));
      l.name = f.str("name");
      l.op = f.str("op");
      l.module = f.str("module");
      l.dtype = f.str("dtype");
      l.why = f.str("why");
      l.act_absmax = f.num("act_absmax", kInf, 0);
      l.headroom_log2 = f.num("headroom_log2", kInf, kInf);
      l.bf16_rel_error = f.num("bf16_rel_error", kNaN, kNaN);
      l.has_grad = f.flag("has_grad");
      l.grad_absmax = f.num("grad_absmax", kInf, 0);
      l.grad_elements = f.integer("grad_elements");
      l.grad_nonzero = f.integer("grad_nonzero");
      l.fp16_underflow_fraction = f.num("fp16_underflow_fraction", 0, 0);
      l.fp16_subnormal_fraction = f.num("fp16_subnormal_fraction", 0, 0);
      l.overflow_scale = f.num("overflow_scale", kInf, kInf);
      l.nonfinite_grad = f.flag("nonfinite_grad");
      r.layers.push_back(std::move(l));
    }
    const auto summary = j.find("summary");
    if (summary == j.end()) throw std::runtime_error("summary: missing");
    const Fields f(*summary, "summary");
    AuditSummary& s = r.summary;
    s.precision = f.str("precision");
    s.device = f.str("device");
    s.batches = static_cast<int>(f.integer("batches"));
    s.batch_size = static_cast<int>(f.integer("batch_size"));
    s.report_scale = f.num("report_scale", kNaN, 65536);
    s.applied_scale = f.num("applied_scale", kNaN, 1);
    s.safe_scale_min = f.num("safe_scale_min", 0, 0);
    s.safe_scale_max = f.num("safe_scale_max", kInf, kInf);
    s.safe_range_exists =
        summary->contains("safe_range_exists") ? f.flag("safe_range_exists") : true;
    s.overflow_layer = f.str("overflow_layer");
    s.underflow_layer = f.str("underflow_layer");
    s.layers_overflowing = static_cast<int>(f.integer("layers_overflowing"));
    s.layers_underflowing = static_cast<int>(f.integer("layers_underflowing"));
    s.min_headroom_log2 = f.num("min_headroom_log2", kInf, kInf);
    s.min_headroom_layer = f.str("min_headroom_layer");
    s.max_bf16_rel_error = f.num("max_bf16_rel_error", kNaN, kNaN);
    s.max_bf16_error_layer = f.str("max_bf16_error_layer");
    s.nonfinite_layer = f.str("nonfinite_layer");
    s.suggested_init_scale = f.num("suggested_init_scale", kNaN, 65536);
    s.bf16_safer = f.flag("bf16_safer");
    r.losses = f.numbers("losses");
    r.skipped_steps = static_cast<int>(f.integer("skipped_steps"));
    r.audit_seconds = f.num("audit_seconds", 0, 0);
    r.plain_step_seconds = f.numbers("plain_step_seconds");
    const Fields top(j, "");
    s.recommendation = top.str("recommendation");
    r.notes = top.strings("notes");
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  out = std::move(r);
  return true;
}

}  // namespace amp::audit
