#include "configfile/ConfigWriter.h"

#include <cmath>
#include <sstream>

#include "config/ValueFormat.h"
#include "configfile/ConfigLoader.h"
#include "util/AtomicFile.h"

namespace amp::config {
namespace {

std::string doubleQuoted(const std::string& s) {
  return nlohmann::json(s).dump();
}

std::string pythonQuoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "'";
}

bool plainSafe(const std::string& s, bool inFlow) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ') return false;
  if (std::string("-?:,[]{}#&*!|>'\"%@`~").find(s.front()) != std::string::npos) return false;
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos || s.back() == ':')
    return false;
  if (s.find_first_of("\n\t\r") != std::string::npos) return false;
  if (inFlow && s.find_first_of(",[]{}") != std::string::npos) return false;
  return true;
}

std::string scalarText(const Value& v, bool inFlow) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isnan(d)) return ".nan";
    if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
    return formatNumber(d);
  }
  if (v.is_number()) return v.dump();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    // PySlowFast passes every string through literal_eval: protect ones that would change type.
    if (parseScalarText(s) != v) return doubleQuoted(pythonQuoted(s));
    return plainSafe(s, inFlow) ? s : doubleQuoted(s);
  }
  if (v.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + scalarText(v[i], true);
    return out + "]";
  }
  return doubleQuoted(v.dump());
}

struct Tree {
  std::vector<std::pair<std::string, Tree>> children;
  std::optional<Value> value;
  Tree& child(const std::string& name) {
    for (auto& c : children)
      if (c.first == name) return c.second;
    children.emplace_back(name, Tree{});
    return children.back().second;
  }
};

void emit(const Tree& t, int indent, std::ostringstream& out) {
  for (const auto& [name, sub] : t.children) {
    out << std::string(static_cast<size_t>(indent), ' ') << name << ":";
    if (sub.value) {
      out << " " << scalarText(*sub.value, false) << "\n";
    } else {
      out << "\n";
      emit(sub, indent + 2, out);
    }
  }
}

}  // namespace

std::string toYaml(const Config& config, const WriteOptions& options) {
  Tree root;
  auto place = [&root](const std::string& key, Value v) {
    Tree* node = &root;
    std::string rest = key;
    for (size_t p; (p = rest.find('.')) != std::string::npos; rest = rest.substr(p + 1))
      node = &node->child(rest.substr(0, p));
    node->child(rest).value = std::move(v);
  };
  const double lrScale = config.getFloat("SOLVER.LR_SCALE");
  for (const auto& def : config.schema().keys()) {
    Value v = config.get(def.key);
    if (def.status == KeyStatus::Deprecated && v == def.defaultValue) continue;
    if (options.pyslowfast) {
      if (def.studioKey || def.status == KeyStatus::Deprecated) continue;
      // PySlowFast has no LR scale: bake it into every rate of the schedule.
      if (def.key == "SOLVER.BASE_LR" || def.key == "SOLVER.WARMUP_START_LR" ||
          def.key == "SOLVER.COSINE_END_LR")
        v = Value(v.get<double>() * lrScale);
    }
    if (options.onlyChanged && v == def.defaultValue) continue;
    place(def.key, std::move(v));
  }
  std::ostringstream out;
  emit(root, 0, out);
  return out.str();
}

bool saveConfigFile(const Config& config, const std::string& path, std::string* error,
                    const WriteOptions& options) {
  return util::writeFileAtomically(path, toYaml(config, options), error);
}

}  // namespace amp::config
