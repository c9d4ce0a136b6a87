#include "runlog/TensorBoardRun.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>

#include "runlog/PySlowFastLog.h"
#include "runlog/RunDirectory.h"
#include "runlog/TensorBoardReader.h"

namespace amp::runlog {
namespace fs = std::filesystem;

namespace {

// A scalar as read, before it is placed in an event.
struct TbScalar {
  double wall = 0;
  std::int64_t step = 0;
  std::string tag;
  double value = 0;
};

struct TbFileRead {
  std::string path;
  double firstWall = 0;
  std::vector<TbScalar> scalars;
};

std::string tbLowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Builds the studio's events from the scalars in wall-time order (TensorBoardRunRead::events).
class EventAssembler {
 public:
  EventAssembler(std::vector<MetricEvent>& out, double firstWall)
      : out_(out), firstWall_(firstWall) {}

  // A file that starts at or below a step already read is a resumed job: it redid the steps
  // from `firstStep` on, so the earlier file's steps from there are dropped (RunRecord's rule
  // drops what comes after a "resumed" event's step).
  void fileStarts(std::int64_t firstStep) {
    if (maxStep_ < 0 || firstStep > maxStep_) return;
    flushAll();
    MetricEvent e = make(kind::kEvent, firstStep - 1, wall_);
    e.name = "resumed";
    e.message = "a later event file starts again at step " + std::to_string(firstStep);
    out_.push_back(std::move(e));
    maxStep_ = firstStep - 1;
    lastTrainStep_ = std::min(lastTrainStep_, maxStep_);
  }

  void add(const TbScalar& s, const TensorBoardRun::Mapping& m, double value) {
    wall_ = s.wall;
    if (m.kind == "epoch-number") {
      epoch_ = value;
      if (train_ && train_->step == s.step) train_->epoch = value;
      return;
    }
    if (m.kind == kind::kTrain) {
      flushVal();  // a training step ends a validation pass
      flushEpoch();
      if (train_ && train_->step != s.step) flushTrain();
      if (!train_) train_ = make(kind::kTrain, s.step, s.wall);
      train_->values[m.metric] = value;
      lastTrainStep_ = s.step;
      haveTrainStep_ = true;
      maxStep_ = std::max(maxStep_, s.step);
    } else if (m.kind == kind::kVal) {
      flushTrain();
      flushEpoch();
      if (!valOpen_) valStep_ = haveTrainStep_ ? lastTrainStep_ : s.step;
      valOpen_ = true;
      auto& [sum, count] = val_[m.metric];
      sum += value;
      ++count;
      valWall_ = s.wall;
    } else {  // epoch averages
      flushTrain();
      flushVal();
      const std::int64_t step = haveTrainStep_ ? lastTrainStep_ : s.step;
      if (epochEv_ && epochEv_->step != step) flushEpoch();
      if (!epochEv_) epochEv_ = make(kind::kEpoch, step, s.wall);
      epochEv_->values[m.metric] = value;
    }
  }

  void flushAll() {
    flushTrain();
    flushVal();
    flushEpoch();
  }

 private:
  MetricEvent make(const char* k, std::int64_t step, double wall) const {
    MetricEvent e;
    e.kind = k;
    e.step = step;
    e.epoch = epoch_;
    e.unix_time_s = wall;
    e.time_s = std::max(0.0, wall - firstWall_);
    return e;
  }
  void flushTrain() {
    if (train_) out_.push_back(std::move(*train_));
    train_.reset();
  }
  void flushEpoch() {
    if (epochEv_) out_.push_back(std::move(*epochEv_));
    epochEv_.reset();
  }
  void flushVal() {
    if (!valOpen_) return;
    MetricEvent e = make(kind::kVal, valStep_, valWall_);
    for (const auto& [metric, sc] : val_) e.values[metric] = sc.first / sc.second;
    out_.push_back(std::move(e));
    val_.clear();
    valOpen_ = false;
  }

  std::vector<MetricEvent>& out_;
  double firstWall_;
  double wall_ = 0, epoch_ = 0, valWall_ = 0;
  std::optional<MetricEvent> train_, epochEv_;
  std::map<std::string, std::pair<double, int>> val_;
  bool valOpen_ = false, haveTrainStep_ = false;
  std::int64_t valStep_ = 0, lastTrainStep_ = 0, maxStep_ = -1;
};

}  // namespace

TensorBoardRun::Mapping TensorBoardRun::mapTag(const std::string& tag) {
  // PySlowFast's writer (and ours, which writes the same tags): tools/train_net.py.
  static const std::map<std::string, Mapping> exact = {
      {"Train/loss", {kind::kTrain, "loss"}},
      {"Train/lr", {kind::kTrain, "lr"}},
      {"Train/Top1_err", {kind::kTrain, "top1_err"}},
      {"Train/Top5_err", {kind::kTrain, "top5_err"}},
      {"Val/Top1_err", {kind::kVal, "top1_err"}},
      {"Val/Top5_err", {kind::kVal, "top5_err"}},
      {"Val/mAP", {kind::kVal, "map"}},
  };
  if (auto it = exact.find(tag); it != exact.end()) return it->second;
  // Lightning's self.log names (with its _step/_epoch suffixes), LearningRateMonitor's lr-<Opt>,
  // and the slash spellings of other trainers; compared in lower case.
  static const std::map<std::string, Mapping> folded = {
      {"loss", {kind::kTrain, "loss"}},
      {"train_loss", {kind::kTrain, "loss"}},
      {"train_loss_step", {kind::kTrain, "loss"}},
      {"train/loss", {kind::kTrain, "loss"}},
      {"loss/train", {kind::kTrain, "loss"}},
      {"train_loss_epoch", {kind::kEpoch, "loss"}},
      {"lr", {kind::kTrain, "lr"}},
      {"learning_rate", {kind::kTrain, "lr"}},
      {"train/learning_rate", {kind::kTrain, "lr"}},
      {"train_acc", {kind::kTrain, "top1_err", true}},
      {"train_acc_step", {kind::kTrain, "top1_err", true}},
      {"train/acc", {kind::kTrain, "top1_err", true}},
      {"val_loss", {kind::kVal, "loss"}},
      {"val_loss_epoch", {kind::kVal, "loss"}},
      {"val/loss", {kind::kVal, "loss"}},
      {"loss/val", {kind::kVal, "loss"}},
      {"eval/loss", {kind::kVal, "loss"}},
      {"val_acc", {kind::kVal, "top1_err", true}},
      {"val_acc_epoch", {kind::kVal, "top1_err", true}},
      {"val_accuracy", {kind::kVal, "top1_err", true}},
      {"val_acc1", {kind::kVal, "top1_err", true}},
      {"val_top1", {kind::kVal, "top1_err", true}},
      {"val/acc", {kind::kVal, "top1_err", true}},
      {"val/acc1", {kind::kVal, "top1_err", true}},
      {"val/top1", {kind::kVal, "top1_err", true}},
      {"accuracy/val", {kind::kVal, "top1_err", true}},
      {"eval/accuracy", {kind::kVal, "top1_err", true}},
      {"val_acc5", {kind::kVal, "top5_err", true}},
      {"val_top5", {kind::kVal, "top5_err", true}},
      {"val/acc5", {kind::kVal, "top5_err", true}},
      {"val/top5", {kind::kVal, "top5_err", true}},
      {"val_map", {kind::kVal, "map"}},
      {"val/map", {kind::kVal, "map"}},
      {"epoch", {"epoch-number", "epoch"}},
  };
  const std::string low = tbLowered(tag);
  if (auto it = folded.find(low); it != folded.end()) return it->second;
  // LearningRateMonitor: "lr-SGD", "lr-AdamW" (one parameter group; "lr-SGD/pg2" stays its own).
  if (low.rfind("lr-", 0) == 0 && low.find('/') == std::string::npos) return {kind::kTrain, "lr"};
  return {kind::kTrain, tag};
}

bool TensorBoardRun::isEventFileName(const std::string& fileName) {
  return fileName.rfind("events.out.tfevents.", 0) == 0;
}

std::vector<std::string> TensorBoardRun::eventFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (isEventFileName(it->path().filename().string()) && it->is_regular_file(ec))
      out.push_back(it->path().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool TensorBoardRun::isRunFolder(const std::string& dir) {
  std::error_code ec;
  if (fs::is_regular_file(fs::path(dir) / RunDirectory::kMetadataFile, ec)) return false;
  return !eventFiles(dir).empty() && pySlowFastStatsFile(dir).empty();
}

std::vector<std::string> TensorBoardRun::findRunFolders(const std::string& logdir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (isRunFolder(logdir)) out.push_back(logdir);
  // Three levels hold what trainers write (logdir/name/version_0); symlinks are not followed,
  // so a link loop cannot make this walk forever.
  for (fs::recursive_directory_iterator it(logdir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it.depth() >= 2) it.disable_recursion_pending();
    if (it->is_directory(ec) && !it->is_symlink(ec) && isRunFolder(it->path().string()))
      out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

double TensorBoardRun::startTimeOf(const std::string& dir, std::string* host) {
  double first = 0;
  for (const auto& path : eventFiles(dir)) {
    // events.out.tfevents.<seconds>.<host>[.<pid>.<n>][<suffix>]
    const std::string name = fs::path(path).filename().string().substr(20);
    const std::size_t dot = name.find('.');
    const std::string seconds = name.substr(0, dot);
    if (seconds.empty() || seconds.size() > 12 ||
        seconds.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const double t = std::stod(seconds);
    if (t <= 0 || (first != 0 && t >= first)) continue;
    first = t;
    if (host) {
      // The host name may hold dots: the pid and the counter are the last two numeric fields.
      std::string rest = dot == std::string::npos ? std::string() : name.substr(dot + 1);
      for (int i = 0; i < 2; ++i) {
        const auto last = rest.find_last_of('.');
        if (last == std::string::npos || last + 1 == rest.size() ||
            rest.find_first_not_of("0123456789", last + 1) != std::string::npos)
          break;
        rest.erase(last);
      }
      *host = rest;
    }
  }
  return first;
}

TensorBoardRunRead TensorBoardRun::read(const std::string& dir) {
  TensorBoardRunRead out;
  std::vector<TbFileRead> files;
  for (const auto& path : eventFiles(dir)) {
    TensorBoardFile f = readTensorBoardFile(path);
    if (!f.error.empty())
      out.problems.push_back(f.error + (f.events.empty()
                                            ? std::string()
                                            : "; the " + std::to_string(f.events.size()) +
                                                  " whole records before it are read"));
    TbFileRead r;
    r.path = path;
    bool first = true;
    for (const auto& e : f.events) {
      if (first && e.wall_time > 0) r.firstWall = e.wall_time;
      first = first && e.wall_time <= 0;
      for (const auto& s : e.scalars) r.scalars.push_back({e.wall_time, e.step, s.tag, s.value});
    }
    files.push_back(std::move(r));
  }
  // A resumed job writes a new file: files in the order their writers started.
  std::stable_sort(files.begin(), files.end(), [](const TbFileRead& a, const TbFileRead& b) {
    return a.firstWall < b.firstWall;
  });
  // Accuracy logged as a fraction (Lightning's torchmetrics) or in percent: judged per tag.
  std::map<std::string, double> largest;
  double firstWall = 0;
  for (const auto& f : files) {
    out.files.push_back(f.path);
    for (const auto& s : f.scalars) {
      double& m = largest[s.tag];
      if (std::isfinite(s.value)) m = std::max(m, std::abs(s.value));
      if (firstWall == 0 || (s.wall > 0 && s.wall < firstWall)) firstWall = s.wall;
    }
  }
  EventAssembler build(out.events, firstWall);
  std::map<std::string, Mapping> mapped;  // each tag looked up once
  for (const auto& f : files) {
    if (!f.scalars.empty()) build.fileStarts(f.scalars.front().step);
    for (const auto& s : f.scalars) {
      auto it = mapped.find(s.tag);
      if (it == mapped.end()) it = mapped.emplace(s.tag, mapTag(s.tag)).first;
      double v = s.value;
      if (it->second.errorFromAccuracy) v = 100.0 - (largest[s.tag] <= 1.0 ? 100.0 * v : v);
      build.add(s, it->second, v);
    }
  }
  build.flushAll();
  return out;
}

}  // namespace amp::runlog
