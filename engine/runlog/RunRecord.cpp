#include "runlog/RunRecord.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"

namespace amp::runlog {

void Series::truncateAfterStep(double lastStep) {
  std::size_t keep = step.size();
  while (keep > 0 && step[keep - 1] > lastStep) --keep;
  step.resize(keep), epoch.resize(keep), time.resize(keep), value.resize(keep);
}

void RunRecord::add(const MetricEvent& e) {
  if (e.kind == kind::kEvent && e.name == "resumed") {
    // What the interrupted process wrote after S is at the back of every column (file order):
    // popping it costs what it removes plus one look per series (at most kMaxSeries), so a log of
    // many resumes stays linear (filtering every column at each resume was quadratic).
    const double s = static_cast<double>(e.step);
    bool dropped = false;
    for (auto& [name, ser] : series_) {
      const std::size_t before = ser.size();
      ser.truncateAfterStep(s);
      dropped = dropped || ser.size() != before;
    }
    const auto later = [s](const MetricEvent& x) { return static_cast<double>(x.step) > s; };
    while (!rows_.empty() && later(rows_.back())) {
      rows_.pop_back();
      dropped = true;
    }
    // Events are not in step order: the resuming process writes some (e.g. 'tensorboard' at step
    // 0) before 'resumed', so the lost ones are filtered, not popped; at most kMaxNotableEvents.
    const auto kept = std::remove_if(notable_.begin(), notable_.end(), later);
    dropped = dropped || kept != notable_.end();
    notable_.erase(kept, notable_.end());
    for (auto& [split, entries] : perClass_)  // in file order, as the rows
      while (!entries.empty() && static_cast<double>(entries.back().step) > s) {
        entries.pop_back();
        --perClassCount_;
        dropped = true;
      }
    if (dropped) ++generation_;
    count_ = notable_.size() + rows_.size() + perClassCount_;
  }
  ++count_;
  lastStep_ = std::max(lastStep_, static_cast<double>(e.step));
  lastEpoch_ = std::max(lastEpoch_, e.epoch);
  lastTime_ = std::max(lastTime_, e.time_s);
  // Per-class figures are lists, not series: kept apart (a line whose lists did not fit together
  // was read without them and is skipped), and not in the CSV of values.
  if (e.kind == kind::kPerClass) {
    if (!e.perClass) return;
    auto& entries = perClass_[e.perClass->split];
    if (entries.size() < kMaxPerClassEntries) {
      entries.push_back(PerClassEntry{e.step, e.epoch, *e.perClass});
      ++perClassCount_;
    } else {
      ++droppedValues_;
    }
    return;
  }
  if (e.kind == kind::kEvent) {
    if (notable_.size() < kMaxNotableEvents)
      notable_.push_back(e);
    else
      ++droppedValues_;
    return;
  }
  MetricEvent row = e;  // without the values of series beyond the cap, so the CSV agrees
  for (auto v = row.values.begin(); v != row.values.end();) {
    const std::string key = e.kind + "/" + v->first;
    auto it = series_.find(key);
    if (it == series_.end()) {
      if (series_.size() >= kMaxSeries) {
        ++droppedValues_;
        v = row.values.erase(v);
        continue;
      }
      it = series_.emplace(key, Series{}).first;
    }
    Series& s = it->second;
    s.step.push_back(static_cast<double>(e.step));
    s.epoch.push_back(e.epoch);
    s.time.push_back(e.time_s);
    s.value.push_back(v->second);
    ++v;
  }
  rows_.push_back(std::move(row));
}

void RunRecord::addAll(const std::vector<MetricEvent>& events) {
  for (const auto& e : events) add(e);
}

void RunRecord::clear() {
  series_.clear();
  notable_.clear();
  rows_.clear();
  perClass_.clear();
  perClassCount_ = 0;
  count_ = 0;
  droppedValues_ = 0;
  readProblems_.clear();
  lastStep_ = lastEpoch_ = lastTime_ = 0;
  ++generation_;
}

const Series* RunRecord::series(const std::string& kind, const std::string& metric) const {
  auto it = series_.find(kind + "/" + metric);
  return it == series_.end() ? nullptr : &it->second;
}

std::vector<std::string> RunRecord::seriesNames() const {
  std::vector<std::string> names;
  for (const auto& [name, s] : series_) names.push_back(name);
  return names;
}

const PerClassEntry* RunRecord::latestPerClass(const std::string& split) const {
  const auto it = perClass_.find(split);
  return it == perClass_.end() || it->second.empty() ? nullptr : &it->second.back();
}

const std::vector<PerClassEntry>& RunRecord::perClassHistory(const std::string& split) const {
  static const std::vector<PerClassEntry> none;
  const auto it = perClass_.find(split);
  return it == perClass_.end() ? none : it->second;
}

bool RunRecord::multiLabel() const {
  return series(kind::kVal, "map") || series(kind::kTest, "map");
}

RunSummary RunRecord::summary() const {
  RunSummary r;
  r.wallTimeSeconds = lastTime_;
  if (const Series* val = series(kind::kVal, "top1_err"); val && val->size()) {
    double best = 1e300;
    for (double v : val->value)
      if (std::isfinite(v)) best = std::min(best, v);
    if (best < 1e300) r.bestValTop1 = 100.0 - best;
    if (std::isfinite(val->value.back())) r.finalValTop1 = 100.0 - val->value.back();
  }
  // mAP is read from `map`, not `max_map`: the best over what the record holds, so a resume's
  // dropped validations no longer count.
  if (const Series* val = series(kind::kVal, "map"); val && val->size()) {
    for (double v : val->value)
      if (std::isfinite(v)) r.bestValMap = std::max(r.bestValMap.value_or(v), v);
    if (std::isfinite(val->value.back())) r.finalValMap = val->value.back();
  }
  if (const Series* test = series(kind::kTest, "map");
      test && test->size() && std::isfinite(test->value.back()))
    r.testMap = test->value.back();
  r.multiLabel = multiLabel();
  if (const Series* ep = series(kind::kEpoch, "loss"); ep && ep->size()) {
    r.finalLoss = ep->value.back();
  } else if (const Series* tr = series(kind::kTrain, "loss"); tr && tr->size()) {
    const std::size_t n = std::min<std::size_t>(20, tr->size());
    double sum = 0;
    for (std::size_t i = tr->size() - n; i < tr->size(); ++i) sum += tr->value[i];
    r.finalLoss = sum / static_cast<double>(n);
  }
  for (const char* name : {"mem_peak_bytes", "mem_peak_rss_bytes"}) {
    double peak = -1;
    for (const char* k : {kind::kTrain, kind::kEpoch})
      if (const Series* s = series(k, name))
        for (double v : s->value) peak = std::max(peak, v);
    if (peak >= 0) {
      r.peakMemoryBytes = peak;
      break;
    }
  }
  if (const Series* it = series(kind::kTrain, "iter_time_s"); it && it->size()) {
    double total = 0;
    for (double v : it->value) total += v;
    r.steps = static_cast<std::int64_t>(it->size());
    if (total > 0) r.itersPerSecond = static_cast<double>(it->size()) / total;
    if (const Series* w = series(kind::kTrain, "data_wait_s"); w && w->size() && total > 0) {
      double wait = 0;
      for (double v : w->value) wait += v;
      r.dataWaitFraction = wait / total;
    }
  }
  if (const Series* c = series(kind::kTrain, "clips_per_s"); c && c->size()) {
    double sum = 0;
    for (double v : c->value) sum += v;
    r.clipsPerSecond = sum / static_cast<double>(c->size());
  }
  if (const Series* s = series(kind::kTrain, "skipped"))
    for (double v : s->value) r.skippedSteps += v > 0.5 ? 1 : 0;
  if (const Series* l = series(kind::kTrain, "loss"); l && r.steps == 0)
    r.steps = static_cast<std::int64_t>(l->size());
  return r;
}

namespace {
std::string csvNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream out;
  out.precision(10);
  out << v;
  return out.str();
}

// RFC 4180: a field with a comma, quote or line break is quoted (names and kinds come from a
// file, and must not shift the columns).
std::string csvText(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
}  // namespace

std::string RunRecord::toCsv() const {
  std::set<std::string> distinct;
  for (const auto& e : rows_)
    for (const auto& [name, v] : e.values) distinct.insert(name);
  const std::vector<std::string> names(distinct.begin(), distinct.end());
  std::ostringstream out;
  out << "kind,step,epoch,time_s";
  for (const auto& n : names) out << ',' << csvText(n);
  out << '\n';
  for (const auto& e : rows_) {
    out << csvText(e.kind) << ',' << e.step << ',' << csvNumber(e.epoch) << ','
        << csvNumber(e.time_s);
    // Both sorted: one walk per row (a lookup per name and row was names x rows x log).
    auto v = e.values.begin();
    for (const auto& n : names) {
      out << ',';
      if (v != e.values.end() && v->first == n) out << csvNumber((v++)->second);
    }
    out << '\n';
  }
  return out.str();
}

bool RunRecord::loadRunDirectory(const std::string& dir, std::string* error) {
  clear();
  const std::string path = RunDirectory(dir).metricsPath();
  MetricsReader::ReadStats stats;
  auto events = MetricsReader::readAll(path, &stats);
  if (events.empty() && !RunDirectory(dir).exists()) {
    if (error) *error = dir + ": not a run directory (no run.json)";
    return false;
  }
  addAll(events);
  readProblems_ = std::move(stats.problems);
  return true;
}

std::optional<double> ratio(const std::optional<double>& value,
                            const std::optional<double>& baseline) {
  if (!value || !baseline || *baseline == 0) return std::nullopt;
  return *value / *baseline;
}

}  // namespace amp::runlog
