#include "runlog/RunFilter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/KeySchema.h"
#include "util/AtomicFile.h"

namespace amp::runlog {
namespace {

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string raised(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

bool containsFolded(const std::string& haystack, const std::string& loweredNeedle) {
  return lowered(haystack).find(loweredNeedle) != std::string::npos;
}

// The whole text as a number ("0.1", "1e-3", " 16 "); nullopt for anything else.
std::optional<double> wholeNumber(const std::string& text) {
  const char* begin = text.c_str();
  while (std::isspace(static_cast<unsigned char>(*begin))) ++begin;
  if (!*begin) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  while (end && std::isspace(static_cast<unsigned char>(*end))) ++end;
  if (end == begin || (end && *end)) return std::nullopt;
  return v;
}

// Equal as a researcher means it: 0.1 = 0.10 = 1e-1, True = true, "[8, 8]" = "[8,8]".
bool sameFilterValue(const std::string& a, const std::string& b) {
  const auto x = wholeNumber(a), y = wholeNumber(b);
  if (x && y)
    return *x == *y || std::abs(*x - *y) <= 1e-9 * std::max({1.0, std::abs(*x), std::abs(*y)});
  auto squeezed = [](const std::string& s) {
    std::string out;
    for (char c : lowered(s))
      if (!std::isspace(static_cast<unsigned char>(c)) && c != '\'' && c != '"') out += c;
    return out;
  };
  return squeezed(a) == squeezed(b);
}

// A schema default as config.yaml would spell it.
std::string defaultText(const nlohmann::json& v) {
  if (v.is_null()) return "None";
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// Every schema key's default as text, built once: a sweep's configs compare 700 keys each.
const std::map<std::string, std::string, std::less<>>& schemaDefaults() {
  static const std::map<std::string, std::string, std::less<>> defaults = [] {
    std::map<std::string, std::string, std::less<>> m;
    for (const auto& def : config::KeySchema::builtin()->keys())
      m[def.key] = defaultText(def.defaultValue);
    return m;
  }();
  return defaults;
}

// PySlowFast's largest configs hold about 700 values: a budget of nodes visited stops a file of
// aliases that would expand a few bytes into billions of values (as the config loader does).
constexpr std::size_t kMaxConfigNodes = 100000;

void flattenYaml(const YAML::Node& node, const std::string& prefix, int depth,
                 std::map<std::string, std::string>& out, std::size_t& budget) {
  if (depth > 32 || budget == 0) return;  // no config nests this deep
  --budget;
  if (node.IsMap()) {
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) continue;
      flattenYaml(kv.second, prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar(),
                  depth + 1, out, budget);
    }
  } else if (node.IsSequence()) {
    std::string text = "[";
    for (std::size_t i = 0; i < node.size(); ++i) {
      std::map<std::string, std::string> one;
      flattenYaml(node[i], "_", depth + 1, one, budget);
      text += (i ? ", " : "") + (one.count("_") ? one["_"] : std::string("?"));
    }
    out[raised(prefix)] = text + "]";
  } else if (node.IsScalar()) {
    out[raised(prefix)] = node.Scalar();
  } else if (node.IsNull()) {
    out[raised(prefix)] = "None";
  }
}

// Block YAML of nested maps and one-line scalars or flow lists, indented with spaces: what
// ConfigWriter writes and most hand-written configs are. False (the caller then asks yaml-cpp)
// at anything else: block lists, anchors, tags, multi-line or escaped strings, flow maps, tabs.
bool scanPlainYaml(const std::string& text, std::map<std::string, std::string>& out) {
  std::vector<std::pair<std::size_t, std::string>> parents;  // (indent, dotted key)
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos || line[indent] == '#') continue;
    if (line.find('\t') != std::string::npos) return false;
    if (indent == 0 && (line.rfind("---", 0) == 0 || line.rfind("...", 0) == 0)) continue;
    const std::size_t colon = line.find(':', indent);
    if (colon == std::string::npos) return false;
    const std::string key = line.substr(indent, colon - indent);
    if (key.empty() || key.find_first_of(" \"'[]{}&*!|>-#,") != std::string::npos) return false;
    std::string value = line.substr(colon + 1);
    if (!value.empty() && value[0] != ' ') return false;  // "a:b" is a scalar, not a key
    if (const auto comment = value.find(" #"); comment != std::string::npos) value.erase(comment);
    const auto first = value.find_first_not_of(' '), last = value.find_last_not_of(' ');
    value = first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
    while (!parents.empty() && parents.back().first >= indent) parents.pop_back();
    const std::string dotted = parents.empty() ? key : parents.back().second + "." + key;
    if (value.empty()) {
      parents.emplace_back(indent, dotted);
      continue;
    }
    const char c = value[0];
    if (std::string("&*!|>{%@`").find(c) != std::string::npos) return false;
    if (c == '[' && value.back() != ']') return false;
    if (c == '"' || c == '\'') {
      if (value.size() < 2 || value.back() != c || value.find('\\') != std::string::npos ||
          value.find(c, 1) != value.size() - 1)
        return false;
      value = value.substr(1, value.size() - 2);
    } else if (value == "null" || value == "~" || value == "Null" || value == "NULL") {
      value = "None";
    }
    out[raised(dotted)] = value;
  }
  return true;
}

const char* const kTextFields[] = {"name",   "status", "precision", "model",
                                   "device", "host",   "note"};
const char* const kNumberFields[] = {"best", "loss", "mem_gib", "hours", "steps"};

template <typename List>
bool isListedField(const List& list, const std::string& key) {
  return std::find_if(std::begin(list), std::end(list), [&](const char* k) { return key == k; }) !=
         std::end(list);
}

}  // namespace

const char* RunFilter::syntaxHelp() {
  return "Every term must hold (case does not matter):\n"
         "  slowfast            a word in the name, model, status, precision, note, tags or "
         "folder\n"
         "  status:failed       a field holds the text (name, status, precision, model, device,\n"
         "                      host, note); status=failed: exactly that\n"
         "  tag:baseline        the run carries that tag\n"
         "  SOLVER.BASE_LR=0.1  a config key (dotted, as in the YAML) has that value; a key the\n"
         "                      run's config does not set reads as its default\n"
         "  TRAIN.BATCH_SIZE>=16, best>70, hours<2, mem_gib<=20, loss<1.5, steps>1000\n"
         "                      numbers: > < >= <= = != (best: best val top-1 %, or mAP %)\n"
         "  -tag:broken         a leading '-' turns a term around\n"
         "  note:\"two words\"    quotes keep spaces together";
}

RunFilter::RunFilter(const std::string& text) {
  std::string token;
  bool quoted = false, any = false;
  for (char c : text) {
    if (c == '"') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && std::isspace(static_cast<unsigned char>(c))) {
      if (any) addTerm(token);
      token.clear();
      any = false;
    } else {
      token += c;
      any = true;
    }
  }
  if (any) addTerm(token);
  if (quoted) problems_.push_back("a quote is not closed: the rest of the line is one term");
}

void RunFilter::addTerm(const std::string& raw) {
  Term t;
  std::string token = raw;
  if (token.size() > 1 && token[0] == '-') {
    t.negated = true;
    token.erase(0, 1);
  }
  const std::size_t at = token.find_first_of(":=<>!");
  if (at == std::string::npos || at == 0) {
    t.value = lowered(token);
    terms_.push_back(t);
    return;
  }
  std::string key = token.substr(0, at), op = token.substr(at, 1);
  if (at + 1 < token.size() && token[at + 1] == '=' && op != ":" && op != "=") op += '=';
  t.value = token.substr(at + op.size());
  if (op == "!") {
    t.broken = true;
    problems_.push_back("'" + raw + "': write != (not equal) or a leading '-' to negate");
  }
  t.op = op == ":"    ? Op::Contains
         : op == "="  ? Op::Equal
         : op == "!=" ? Op::NotEqual
         : op == "<"  ? Op::Less
         : op == "<=" ? Op::LessEqual
         : op == ">"  ? Op::Greater
                      : Op::GreaterEqual;
  const std::string low = lowered(key);
  const bool numeric =
      t.op == Op::Less || t.op == Op::LessEqual || t.op == Op::Greater || t.op == Op::GreaterEqual;
  if (isListedField(kTextFields, low) || low == "tag" || low == "tags" ||
      isListedField(kNumberFields, low)) {
    t.key = low == "tags" ? "tag" : low;
  } else {
    t.key = raised(key);
    needsConfig_ = true;
    if (!config::KeySchema::builtin()->find(t.key) && !config::KeySchema::builtin()->isGroup(t.key))
      problems_.push_back("'" + raw + "': " + t.key +
                          " is neither a config key of the schema nor a run field (name, status, "
                          "precision, model, tag, note, best, loss, mem_gib, hours, steps); only "
                          "runs whose config.yaml sets it can match");
  }
  if (numeric) {
    const auto v = wholeNumber(t.value);
    if (!v) {
      t.broken = true;
      problems_.push_back("'" + raw + "': " + op + " compares numbers; '" + t.value +
                          "' is not one");
    } else {
      t.number = *v;
    }
  }
  if (t.value.empty() && !t.broken) {
    t.broken = true;
    problems_.push_back("'" + raw + "': no value after " + op);
  }
  terms_.push_back(t);
}

bool RunFilter::matches(const RunFilterRow& row) const {
  return std::all_of(terms_.begin(), terms_.end(), [&](const Term& t) {
    if (t.broken) return false;
    return termHolds(t, row) != t.negated;
  });
}

bool RunFilter::termHolds(const Term& t, const RunFilterRow& row) const {
  if (t.op == Op::Text) {
    for (const std::string* s : {&row.name, &row.status, &row.precision, &row.model, &row.note})
      if (containsFolded(*s, t.value)) return true;
    for (const auto& tag : row.tags)
      if (containsFolded(tag, t.value)) return true;
    const std::size_t slash = row.dir.find_last_of('/');
    return containsFolded(slash == std::string::npos ? row.dir : row.dir.substr(slash + 1),
                          t.value);
  }
  if (t.key == "tag") {
    const bool has = std::any_of(row.tags.begin(), row.tags.end(), [&](const std::string& tag) {
      return sameFilterValue(tag, t.value);
    });
    return t.op == Op::NotEqual ? !has : has;
  }
  // The value compared: a run field, a figure, or a config key (else the schema's default).
  std::optional<std::string> text;
  std::optional<double> number;
  if (isListedField(kNumberFields, t.key)) {
    if (auto it = row.numbers.find(t.key); it != row.numbers.end()) number = it->second;
    if (number) text = std::to_string(*number);
  } else if (t.key == "name" || t.key == "status" || t.key == "precision" || t.key == "model" ||
             t.key == "device" || t.key == "host" || t.key == "note") {
    const std::map<std::string, const std::string*> fields = {
        {"name", &row.name},   {"status", &row.status}, {"precision", &row.precision},
        {"model", &row.model}, {"device", &row.device}, {"host", &row.host},
        {"note", &row.note}};
    text = *fields.at(t.key);
  } else if (auto it = row.config.find(t.key); it != row.config.end()) {
    text = it->second;
  } else if (const auto* def = config::KeySchema::builtin()->find(t.key);
             def && !row.config.empty()) {
    // Only a run with a config has defaults: one without (unreadable, imported) has no keys.
    text = defaultText(def->defaultValue);
  }
  if (!text) return false;  // a run without the figure or key matches no comparison
  if (!number) number = wholeNumber(*text);
  switch (t.op) {
    case Op::Contains:
      return containsFolded(*text, lowered(t.value));
    case Op::Equal:
      return sameFilterValue(*text, t.value);
    case Op::NotEqual:
      return !sameFilterValue(*text, t.value);
    case Op::Less:
      return number && *number < t.number;
    case Op::LessEqual:
      return number && *number <= t.number;
    case Op::Greater:
      return number && *number > t.number;
    case Op::GreaterEqual:
      return number && *number >= t.number;
    case Op::Text:
      break;
  }
  return false;
}

std::map<std::string, std::string> RunFilter::readConfigValues(const std::string& path,
                                                               std::string* error,
                                                               bool keepDefaults) {
  std::string text;
  if (!util::readFile(path, text, error, std::size_t(4) << 20)) return {};
  return configValuesFromText(text, path, error, keepDefaults);
}

std::map<std::string, std::string> RunFilter::configValuesFromText(const std::string& text,
                                                                   const std::string& path,
                                                                   std::string* error,
                                                                   bool keepDefaults) {
  std::map<std::string, std::string> out;
  // The plain block YAML our ConfigWriter writes is scanned directly (yaml-cpp takes about 5 ms
  // for a full config: seconds for a sweep); anything else goes to yaml-cpp.
  if (!scanPlainYaml(text, out)) {
    out.clear();
    try {
      std::size_t budget = kMaxConfigNodes;
      flattenYaml(YAML::Load(text), "", 0, out, budget);
      if (budget == 0) {
        if (error) *error = path + ": more than 100,000 values; is it a config file?";
        out.clear();
      }
    } catch (const std::exception& e) {
      if (error) *error = path + ": " + e.what();
      out.clear();
    }
  }
  if (!keepDefaults) {
    const auto& defaults = schemaDefaults();
    for (auto it = out.begin(); it != out.end();) {
      const auto def = defaults.find(it->first);
      const bool isDefault = def != defaults.end() && (def->second == it->second ||
                                                       sameFilterValue(it->second, def->second));
      it = isDefault ? out.erase(it) : ++it;
    }
  }
  return out;
}

}  // namespace amp::runlog
