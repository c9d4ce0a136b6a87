#include "configfile/ConfigLoader.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "config/PyLiteral.h"
#include "config/ValueFormat.h"
#include "configfile/Validator.h"

namespace fs = std::filesystem;

namespace amp::config {
namespace {

constexpr const char* kBaseKey = "_BASE_";
constexpr int kMaxBaseDepth = 16;
// Aliases share nodes, so a 1 KB file can name 10^10 values ("billion laughs": a1: &a1 [*a0,
// *a0, ...] ten deep). yaml-cpp parses it in linear time; the walk below would expand it. Every
// node the walk visits counts against one budget for the whole load, _BASE_ files included:
// PySlowFast's largest configs hold about 700 values, so 100,000 refuses only amplification.
constexpr std::size_t kMaxYamlNodes = 100000;
// The same for text: one long scalar aliased 100,000 times would copy it as often.
constexpr std::size_t kMaxYamlTextBytes = 16u << 20;
// Longer than any config key (the longest is 40 characters): not looked up or suggested for
// (edit distance to every key costs its length times theirs), and shortened in messages.
constexpr std::size_t kMaxKeyLength = 200;
// Several _BASE_ keys in each file of a chain merge a diamond of files exponentially often.
constexpr int kMaxMergedFiles = 64;
constexpr std::uintmax_t kMaxConfigBytes = kMaxConfigFileBytes;

Origin at(const std::string& file, const YAML::Mark& m) {
  if (m.is_null()) return Origin{file, 0, 0};
  return Origin{file, m.line + 1, m.column + 1};
}

std::optional<Value> yamlWord(std::string_view t) {
  static const std::set<std::string_view> kTrue = {"true", "True", "TRUE", "yes", "Yes",
                                                   "YES",  "on",   "On",   "ON"};
  static const std::set<std::string_view> kFalse = {"false", "False", "FALSE", "no", "No",
                                                    "NO",    "off",   "Off",   "OFF"};
  if (t.empty() || t == "~" || t == "null" || t == "Null" || t == "NULL") return Value(nullptr);
  if (kTrue.count(t)) return Value(true);
  if (kFalse.count(t)) return Value(false);
  if (t == ".inf" || t == ".Inf" || t == ".INF" || t == "+.inf")
    return Value(std::numeric_limits<double>::infinity());
  if (t == "-.inf" || t == "-.Inf" || t == "-.INF")
    return Value(-std::numeric_limits<double>::infinity());
  if (t == ".nan" || t == ".NaN" || t == ".NAN")
    return Value(std::numeric_limits<double>::quiet_NaN());
  return std::nullopt;
}

struct FileContext {
  std::string file;                // as shown in messages
  std::vector<std::string> chain;  // canonical paths of the files being merged (cycle check)
};

class Merger {
 public:
  Merger(const KeySchema& schema, Config& cfg, Diagnostics& out)
      : schema_(schema), cfg_(cfg), out_(out) {}

  void mergeFile(const std::string& path, FileContext ctx, const Origin& includedFrom) {
    if (exhausted_) return;
    if (++mergedFiles_ > kMaxMergedFiles) {
      error(includedFrom, kBaseKey,
            "more than " + std::to_string(kMaxMergedFiles) +
                " files merged through _BASE_ (several _BASE_ keys per file?); "
                "a config inherits from one chain of files");
      exhausted_ = true;
      return;
    }
    std::error_code sizeEc;
    if (fs::exists(path, sizeEc) &&
        !fs::is_regular_file(path, sizeEc)) {  // /dev/zero, a FIFO: would read forever
      error(includedFrom, ctx.chain.empty() ? "" : kBaseKey,
            "'" + path + "' is not a regular file; a config is a YAML file");
      return;
    }
    if (const auto bytes = fs::file_size(path, sizeEc); !sizeEc && bytes > kMaxConfigBytes) {
      error(includedFrom, ctx.chain.empty() ? "" : kBaseKey,
            "'" + path + "' is " + std::to_string(bytes >> 20) +
                " MiB; a config is a YAML file of a few KB (at most " +
                std::to_string(kMaxConfigBytes >> 20) + " MiB): check the path");
      return;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::error_code existsEc;  // the throwing overload ends the process on a name too long
      const bool exists = fs::exists(path, existsEc);
      error(includedFrom, ctx.chain.empty() ? "" : kBaseKey,
            exists     ? "cannot read '" + path + "' (permission denied?)"
            : existsEc ? "cannot read '" + path.substr(0, 200) + "': " + existsEc.message()
                       : "file '" + path + "' does not exist; check the path");
      return;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::error_code ec;
    const std::string canonical = fs::weakly_canonical(path, ec).string();
    if (std::find(ctx.chain.begin(), ctx.chain.end(), canonical) != ctx.chain.end()) {
      error(includedFrom, kBaseKey,
            "'" + path + "' includes itself through _BASE_; remove the cycle");
      return;
    }
    ctx.chain.push_back(canonical);
    ctx.file = path;
    mergeText(ss.str(), fs::path(path).parent_path().string(), ctx);
  }

  void mergeText(const std::string& text, const std::string& baseDir, const FileContext& ctx) {
    if (text.size() > kMaxConfigBytes) {
      error(Origin{ctx.file, 0, 0}, "",
            "is " + std::to_string(text.size() >> 20) +
                " MiB of text; a config is a few KB (at most " +
                std::to_string(kMaxConfigBytes >> 20) + " MiB)");
      return;
    }
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      error(at(ctx.file, e.mark), "", "YAML syntax error: " + e.msg);
      return;
    }
    if (!root || root.IsNull()) return;  // an empty file sets nothing
    if (!root.IsMap()) {
      error(at(ctx.file, root.Mark()), "", "the top level must be a mapping of KEY: value lines");
      return;
    }
    for (auto it = root.begin(); it != root.end(); ++it) {
      if (it->first.Scalar() != kBaseKey) continue;
      const Origin o = at(ctx.file, it->second.Mark());
      if (!it->second.IsScalar() || it->second.Scalar().empty()) {
        error(o, kBaseKey, "must be the path of one YAML file");
        continue;
      }
      if (static_cast<int>(ctx.chain.size()) >= kMaxBaseDepth) {
        error(o, kBaseKey, "more than " + std::to_string(kMaxBaseDepth) + " nested _BASE_ files");
        continue;
      }
      std::string base = it->second.Scalar();
      if (!base.empty() && base[0] == '~') {
        if (const char* home = std::getenv("HOME")) base = home + base.substr(1);
      }
      fs::path p(base);
      if (p.is_relative()) p = fs::path(baseDir.empty() ? "." : baseDir) / p;
      mergeFile(p.lexically_normal().string(), ctx, o);
    }
    walk(root, "", ctx.file);
  }

 private:
  void walk(const YAML::Node& map, const std::string& prefix, const std::string& file) {
    std::map<std::string, int> seen;  // key -> line first set in this mapping
    for (auto it = map.begin(); it != map.end() && !exhausted_; ++it) {
      // Copies (Nodes are handles): it-> returns a temporary pair, so references into it would
      // dangle after this line (AddressSanitizer: stack-use-after-scope).
      const YAML::Node k = it->first;
      const YAML::Node v = it->second;
      const Origin ko = at(file, k.Mark());
      if (!spend()) {
        error(ko, prefix, budgetMessage());
        return;
      }
      if (!k.IsScalar()) {
        error(ko, prefix, "keys must be plain names such as TRAIN or BATCH_SIZE");
        continue;
      }
      const std::string& name = k.Scalar();
      if (name.size() > kMaxKeyLength) {
        error(ko, prefix,
              "a key of " + std::to_string(name.size()) + " characters ('" + name.substr(0, 40) +
                  "...') is not a config key; keys are names such as TRAIN or BATCH_SIZE");
        continue;
      }
      if (prefix.empty() && name == kBaseKey) continue;
      const std::string full = prefix.empty() ? name : prefix + "." + name;
      if (auto s = seen.find(name); s != seen.end())
        warning(ko, full,
                "is set twice in this mapping (first on line " + std::to_string(s->second) +
                    "); the later value wins");
      seen[name] = ko.line;
      if (const KeyDef* def = schema_.find(full)) {
        setLeaf(*def, v, at(file, v.Mark().is_null() ? k.Mark() : v.Mark()));
      } else if (schema_.isGroup(full)) {
        if (v.IsMap())
          walk(v, full, file);
        else if (!v.IsNull())
          error(at(file, v.Mark()), full,
                "is a group of keys, not a value; write its keys indented below it");
      } else {
        unknownKey(ko, full);
      }
    }
  }

  void setLeaf(const KeyDef& def, const YAML::Node& v, const Origin& o) {
    std::string problem;
    auto raw = toValue(v, &problem);
    if (!raw) {
      error(o, def.key, problem);
      return;
    }
    if (auto p = cfg_.set(def.key, *raw, o)) {
      error(o, def.key, *p);
      return;
    }
    if (def.status == KeyStatus::Deprecated) warning(o, def.key, def.doc);
  }

  std::optional<Value> toValue(const YAML::Node& n, std::string* problem) {
    if (!spend()) {
      *problem = budgetMessage();
      return std::nullopt;
    }
    if (!n || n.IsNull()) return Value(nullptr);
    if (n.IsScalar()) {
      if ((expandedBytes_ += n.Scalar().size()) > kMaxYamlTextBytes) {
        exhausted_ = true;
        *problem =
            "alias expands to more than " + std::to_string(kMaxYamlTextBytes >> 20) +
            " MiB of text (one long value repeated through YAML aliases); write the values out";
        return std::nullopt;
      }
      if (n.Tag() == "!") {  // quoted: PySlowFast still passes it through literal_eval
        if (auto lit = parsePythonLiteral(n.Scalar())) return lit;
        return Value(n.Scalar());
      }
      return parseScalarText(n.Scalar());
    }
    if (n.IsSequence()) {
      Value arr = Value::array();
      for (const auto& item : n) {
        auto v = toValue(item, problem);
        if (!v) return std::nullopt;
        arr.push_back(std::move(*v));
      }
      return arr;
    }
    *problem = "is a mapping; expected a single value or a list";
    return std::nullopt;
  }

  // One more node visited; false once the load's budget is spent (and from then on).
  bool spend() {
    if (!exhausted_ && ++visitedNodes_ > kMaxYamlNodes) exhausted_ = true;
    return !exhausted_;
  }
  static std::string budgetMessage() {
    return "alias expands to more than " + std::to_string(kMaxYamlNodes) +
           " values (YAML anchors nested inside each other); write the values out";
  }

  void unknownKey(const Origin& o, const std::string& full) {
    std::string msg = "is not a PySlowFast or AMP Studio config key";
    auto s = schema_.suggest(full);
    if (!s.empty()) {
      msg += "; did you mean ";
      for (size_t i = 0; i < s.size(); ++i)
        msg += (i ? (i + 1 == s.size() ? " or " : ", ") : "") + s[i];
      msg += "?";
    } else {
      msg += "; see 'ampstudio-cli config keys' for the list";
    }
    error(o, full, msg);
  }

  void error(const Origin& o, const std::string& key, const std::string& msg) {
    out_.push_back(Diagnostic{Diagnostic::Severity::Error, o, key, msg});
  }
  void warning(const Origin& o, const std::string& key, const std::string& msg) {
    out_.push_back(Diagnostic{Diagnostic::Severity::Warning, o, key, msg});
  }

  const KeySchema& schema_;
  Config& cfg_;
  Diagnostics& out_;
  std::size_t visitedNodes_ = 0;
  std::size_t expandedBytes_ = 0;
  int mergedFiles_ = 0;
  bool exhausted_ = false;  // the budget is spent: nothing more is walked or merged
};

}  // namespace

Value parseScalarText(std::string_view text) {
  if (auto w = yamlWord(text)) return *w;
  if (auto lit = parsePythonLiteral(text)) return *lit;
  return Value(std::string(text));
}

ConfigLoader::ConfigLoader(std::shared_ptr<const KeySchema> schema) : schema_(std::move(schema)) {}

LoadResult ConfigLoader::loadFile(const std::string& path,
                                  const std::vector<std::string>& overrides) const {
  LoadResult r{Config(schema_), {}};
  Merger(*schema_, r.config, r.diagnostics).mergeFile(path, FileContext{}, Origin{path, 0, 0});
  applyOverrides(r.config, overrides, r.diagnostics);
  validateConfig(r.config, path, r.diagnostics);
  return r;
}

LoadResult ConfigLoader::loadText(std::string_view yaml, const std::string& displayName,
                                  const std::string& baseDir,
                                  const std::vector<std::string>& overrides) const {
  LoadResult r{Config(schema_), {}};
  FileContext ctx;
  ctx.file = displayName;
  Merger(*schema_, r.config, r.diagnostics).mergeText(std::string(yaml), baseDir, ctx);
  applyOverrides(r.config, overrides, r.diagnostics);
  validateConfig(r.config, displayName, r.diagnostics);
  return r;
}

void ConfigLoader::applyOverrides(Config& config, const std::vector<std::string>& overrides,
                                  Diagnostics& out) const {
  for (size_t i = 0; i < overrides.size(); i += 2) {
    const std::string& key = overrides[i];
    const Origin o{Origin::kCommandLine, 0, static_cast<int>(i + 1)};
    auto err = [&](const std::string& msg) {
      out.push_back(Diagnostic{Diagnostic::Severity::Error, o, key, msg});
    };
    if (i + 1 >= overrides.size()) {
      err("has no value; overrides come in pairs: KEY VALUE");
      break;
    }
    const KeyDef* def = schema_->find(key);
    if (!def) {
      if (schema_->isGroup(key)) {
        err("is a group of keys; override one key, e.g. " +
            schema_->withPrefix(key + ".").front()->key);
        continue;
      }
      std::string msg = "is not a PySlowFast or AMP Studio config key";
      auto s = schema_->suggest(key);
      if (!s.empty()) msg += "; did you mean " + s.front() + "?";
      err(msg);
      continue;
    }
    // yacs reads an override with literal_eval and keeps the text when that fails: an empty
    // one (DATA.PATH_PREFIX "", common when lists hold absolute paths) is the empty string.
    const std::string& text = overrides[i + 1];
    if (auto p = config.set(key, text.empty() ? Value(std::string()) : parseScalarText(text), o))
      err(*p);
    else if (def->status == KeyStatus::Deprecated)
      out.push_back(Diagnostic{Diagnostic::Severity::Warning, o, key, def->doc});
  }
}

}  // namespace amp::config
