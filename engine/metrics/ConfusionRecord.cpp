#include "metrics/ConfusionRecord.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <system_error>

#include <nlohmann/json.hpp>

#include "util/AtomicFile.h"
#include "util/BoundedInput.h"

namespace amp::metrics {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kFormat = "ampstudio-confusion";
// kMaxMistakes lines of about 100 bytes, a few MB of cells: far below; a stranger's file above is
// refused by name rather than held in memory.
constexpr std::size_t kMaxFileBytes = std::size_t(64) << 20;
constexpr int kMaxClasses = 100000;  // as data::readClassNames

// The field readers throw this; parseConfusionRecord turns it into the error.
struct Bad : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const json& field(const json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end()) throw Bad(std::string("no \"") + name + "\"");
  return *it;
}

std::int64_t integer(const json& j, const std::string& what, std::int64_t lo, std::int64_t hi) {
  if (!j.is_number_integer())
    throw Bad(what + " is " + util::excerpt(j.dump()) + ", not an integer");
  const auto v = j.get<std::int64_t>();
  if (v < lo || v > hi)
    throw Bad(what + " is " + std::to_string(v) + ", outside " + std::to_string(lo) + ".." +
              std::to_string(hi));
  return v;
}

double real(const json& j, const std::string& what) {
  if (j.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!j.is_number()) throw Bad(what + " is " + util::excerpt(j.dump()) + ", not a number");
  return j.get<double>();
}

std::string text(const json& j, const std::string& what) {
  if (!j.is_string()) throw Bad(what + " is " + util::excerpt(j.dump()) + ", not a string");
  return j.get<std::string>();
}

std::vector<int> classList(const json& j, const std::string& what, int classes) {
  if (!j.is_array()) throw Bad(what + " is not a list of classes");
  std::vector<int> out;
  for (const auto& k : j) out.push_back(static_cast<int>(integer(k, what, 0, classes - 1)));
  return out;
}
}  // namespace

bool Mistake::operator==(const Mistake& o) const {
  const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  return video == o.video && truth == o.truth && pred == o.pred && same(score, o.score) &&
         same(true_score, o.true_score) && true_rank == o.true_rank;
}

std::string ConfusionRecord::className(int k) const {
  if (k >= 0 && static_cast<std::size_t>(k) < names.size() &&
      !names[static_cast<std::size_t>(k)].empty())
    return names[static_cast<std::size_t>(k)];
  return std::to_string(k);
}

void addSample(ConfusionRecord& r, const std::string& video, int truth, int pred, double score,
               double trueScore, int trueRank) {
  if (!r.matrix.add(truth, pred) || truth == pred) return;
  if (r.mistakes.size() < kMaxMistakes)
    r.mistakes.push_back({video, truth, pred, score, trueScore, trueRank});
  else
    ++r.mistakes_left_out;
}

ConfusionRecord recordFromScores(const double* scores, const std::vector<int>& labels,
                                 const std::vector<std::string>& videos, int classes,
                                 double divideBy) {
  ConfusionRecord r;
  r.matrix = ConfusionMatrix(classes);
  if (classes <= 0) return r;
  const double d = divideBy > 0 ? divideBy : 1.0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double* row = scores + i * static_cast<std::size_t>(classes);
    const int truth = labels[i];
    const auto pred = static_cast<int>(std::max_element(row, row + classes) - row);
    if (truth < 0 || truth >= classes) continue;
    int rank = 1;  // classes scored above the true one, plus one
    for (int k = 0; k < classes; ++k) rank += row[k] > row[truth] ? 1 : 0;
    addSample(r, i < videos.size() ? videos[i] : std::string(), truth, pred, row[pred] / d,
              row[truth] / d, rank);
  }
  return r;
}

std::string confusionCsv(const ConfusionRecord& r, const std::vector<int>& ids, bool rates) {
  const auto field = [](const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string out = rates ? "true \\ predicted (share of the true class)" : "true \\ predicted";
  for (const int k : ids) out += "," + field(r.className(k));
  out += "\n";
  const std::vector<double> shares = rates ? r.matrix.rates(ids) : std::vector<double>();
  char buf[32];
  for (std::size_t i = 0; i < ids.size(); ++i) {
    out += field(r.className(ids[i]));
    for (std::size_t j = 0; j < ids.size(); ++j) {
      if (rates)
        std::snprintf(buf, sizeof buf, ",%.4f", shares[i * ids.size() + j]);
      else
        std::snprintf(buf, sizeof buf, ",%lld",
                      static_cast<long long>(r.matrix.count(ids[i], ids[j])));
      out += buf;
    }
    out += "\n";
  }
  return out;
}

std::string toJson(const ConfusionRecord& r) {
  using ojson = nlohmann::ordered_json;  // the fields in the order a person reads them
  ojson cells = ojson::array();
  for (const auto& c : r.matrix.cells()) cells.push_back({c.truth, c.pred, c.count});
  ojson mistakes = ojson::array();
  for (const auto& m : r.mistakes)
    mistakes.push_back({m.video, m.truth, m.pred, std::isfinite(m.score) ? ojson(m.score) : ojson(),
                        std::isfinite(m.true_score) ? ojson(m.true_score) : ojson(), m.true_rank});
  ojson parents = ojson::array();
  for (const auto& [name, ids] : r.parents) parents.push_back({{"name", name}, {"classes", ids}});
  ojson j = {{"format", kFormat},
             {"format_version", ConfusionRecord::kFormatVersion},
             {"split", r.split},
             {"step", r.step},
             {"epoch", r.epoch},
             {"unit", r.unit},
             {"views_per_video", r.views_per_video},
             {"checkpoint", r.checkpoint},
             {"classes", r.matrix.classes()},
             {"samples", r.matrix.total()},
             {"correct", r.matrix.correct()},
             {"names", r.names},
             {"cells", cells},
             {"parents", parents},
             {"mistake_fields", {"video", "true", "pred", "score", "true_score", "true_rank"}},
             {"mistakes", mistakes},
             {"mistakes_left_out", r.mistakes_left_out}};
  if (r.subset) j["subset"] = *r.subset;
  // One cell or mistake per line: a person can read and diff the file, and it stays compact.
  std::string out = "{\n";
  bool first = true;
  for (const auto& [key, value] : j.items()) {
    if (!first) out += ",\n";
    first = false;
    out += ojson(key).dump() + ": ";
    if ((key == "cells" || key == "mistakes") && !value.empty()) {
      out += "[\n";
      for (std::size_t i = 0; i < value.size(); ++i)
        out += "  " + value[i].dump() + (i + 1 < value.size() ? ",\n" : "\n");
      out += "]";
    } else {
      out += value.dump();
    }
  }
  return out + "\n}\n";
}

std::optional<ConfusionRecord> parseConfusionRecord(const std::string& textIn, std::string* error) {
  std::string why;
  const auto parsed = util::parseJson(textIn, &why);
  if (!parsed) {
    if (error) *error = why;
    return std::nullopt;
  }
  const json& j = *parsed;
  try {
    if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
      throw Bad(std::string("not an analysis file of AMP Studio (no \"format\": \"") + kFormat +
                "\")");
    const auto version = integer(field(j, "format_version"), "format_version", 1, 1000000);
    if (version > ConfusionRecord::kFormatVersion)
      throw Bad("format_version " + std::to_string(version) + " is newer than this studio reads (" +
                std::to_string(ConfusionRecord::kFormatVersion) + "): update AMP Studio");
    ConfusionRecord r;
    r.split = text(field(j, "split"), "split");
    if (r.split != "test" && r.split != "val")
      throw Bad("split is \"" + util::excerpt(r.split) + "\", not test or val");
    r.step = integer(field(j, "step"), "step", 0, std::numeric_limits<std::int64_t>::max());
    r.epoch = real(field(j, "epoch"), "epoch");
    if (j.contains("unit")) r.unit = text(j["unit"], "unit");
    if (j.contains("views_per_video"))
      r.views_per_video =
          static_cast<int>(integer(j["views_per_video"], "views_per_video", 1, 1000000));
    if (j.contains("checkpoint")) r.checkpoint = text(j["checkpoint"], "checkpoint");
    const int classes = static_cast<int>(integer(field(j, "classes"), "classes", 1, kMaxClasses));
    r.matrix = ConfusionMatrix(classes);
    const json& cells = field(j, "cells");
    if (!cells.is_array()) throw Bad("cells is not a list");
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const json& c = cells[i];
      const std::string what = "cells[" + std::to_string(i) + "]";
      if (!c.is_array() || c.size() != 3) throw Bad(what + " is not [true, predicted, count]");
      const auto t = static_cast<int>(integer(c[0], what + "'s true class", 0, classes - 1));
      const auto p = static_cast<int>(integer(c[1], what + "'s predicted class", 0, classes - 1));
      (void)r.matrix.add(t, p, integer(c[2], what + "'s count", 1, std::int64_t(1) << 50));
    }
    if (j.contains("samples") &&
        integer(j["samples"], "samples", 0, std::int64_t(1) << 60) != r.matrix.total())
      throw Bad("the cells count " + std::to_string(r.matrix.total()) + " samples, not the " +
                j["samples"].dump() + " the file states (a damaged file)");
    if (j.contains("names")) {
      const json& names = j["names"];
      if (!names.is_array()) throw Bad("names is not a list");
      if (!names.empty() && names.size() != static_cast<std::size_t>(classes))
        throw Bad(std::to_string(names.size()) + " names for " + std::to_string(classes) +
                  " classes");
      for (const auto& n : names) r.names.push_back(text(n, "a class name"));
    }
    if (j.contains("subset")) r.subset = classList(j["subset"], "subset", classes);
    if (j.contains("parents")) {
      if (!j["parents"].is_array()) throw Bad("parents is not a list");
      for (const auto& p : j["parents"])
        r.parents.emplace_back(text(field(p, "name"), "a parent's name"),
                               classList(field(p, "classes"), "a parent's classes", classes));
    }
    const json& mistakes = field(j, "mistakes");
    if (!mistakes.is_array()) throw Bad("mistakes is not a list");
    for (std::size_t i = 0; i < mistakes.size(); ++i) {
      const json& m = mistakes[i];
      const std::string what = "mistakes[" + std::to_string(i) + "]";
      if (!m.is_array() || m.size() < 5)
        throw Bad(what + " is not [video, true, pred, score, true_score, true_rank]");
      Mistake x;
      x.video = text(m[0], what + "'s video");
      x.truth = static_cast<int>(integer(m[1], what + "'s true class", 0, classes - 1));
      x.pred = static_cast<int>(integer(m[2], what + "'s predicted class", 0, classes - 1));
      x.score = real(m[3], what + "'s score");
      x.true_score = real(m[4], what + "'s true_score");
      if (m.size() > 5)
        x.true_rank = static_cast<int>(integer(m[5], what + "'s true_rank", 0, classes));
      r.mistakes.push_back(std::move(x));
    }
    if (j.contains("mistakes_left_out"))
      r.mistakes_left_out = integer(j["mistakes_left_out"], "mistakes_left_out", 0,
                                    std::numeric_limits<std::int64_t>::max());
    return r;
  } catch (const Bad& e) {
    if (error) *error = e.what();
  } catch (const json::exception& e) {  // a field of the wrong kind nlohmann caught first
    if (error) *error = e.what();
  }
  return std::nullopt;
}

bool writeConfusionRecord(const ConfusionRecord& r, const std::string& path, std::string* error) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) {
    if (error) *error = "cannot create " + parent.string() + ": " + ec.message();
    return false;
  }
  return util::writeFileAtomically(path, toJson(r), error);
}

std::optional<ConfusionRecord> readConfusionRecord(const std::string& path, std::string* error) {
  std::string contents, why;
  if (!util::readFile(path, contents, &why, kMaxFileBytes)) {
    if (error) *error = path + ": cannot read the analysis file (" + why + ")";
    return std::nullopt;
  }
  auto r = parseConfusionRecord(contents, &why);
  if (!r && error)
    *error = path + ": " + why +
             " (a damaged analysis file: run the test again, or delete the file to hide it)";
  return r;
}

std::string confusionFilePath(const std::string& runDir, const std::string& split, int epoch) {
  char name[64];
  if (split == "test")
    std::snprintf(name, sizeof name, "test_confusion.json");
  else
    std::snprintf(name, sizeof name, "val_confusion_epoch_%05d.json", epoch);
  return (fs::path(runDir) / "analysis" / name).string();
}

std::vector<ConfusionFile> listConfusionFiles(const std::string& runDir) {
  std::vector<ConfusionFile> out, vals;
  std::error_code ec;
  const fs::path dir = fs::path(runDir) / "analysis";
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    int epoch = 0;
    char tail = 0;
    if (name == "test_confusion.json")
      out.push_back({it->path().string(), "test", 0});
    else if (std::sscanf(name.c_str(), "val_confusion_epoch_%d.jso%c", &epoch, &tail) == 2 &&
             tail == 'n' && name.size() > 5 && name.substr(name.size() - 5) == ".json")
      vals.push_back({it->path().string(), "val", epoch});
  }
  std::sort(vals.begin(), vals.end(),
            [](const auto& a, const auto& b) { return a.epoch > b.epoch; });
  out.insert(out.end(), vals.begin(), vals.end());
  return out;
}

}  // namespace amp::metrics
