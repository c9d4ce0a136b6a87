#include "runlog/PySlowFastLog.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <string_view>

#include "util/BoundedInput.h"

namespace amp::runlog {
namespace fs = std::filesystem;

namespace {

// Epochs and iterations per epoch beyond this are damage: the step, (epoch - 1) x iterations +
// iteration, must fit an int64 (real runs: hundreds of epochs, at most millions of iterations).
constexpr std::int64_t kMaxCount = 1000000000;

// "3/196" -> {3, 196}
bool fraction(const nlohmann::json& j, std::int64_t& cur, std::int64_t& total) {
  if (!j.is_string()) return false;
  const std::string& s = j.get_ref<const std::string&>();
  const auto slash = s.find('/');
  if (slash == std::string::npos) return false;
  try {
    cur = std::stoll(s.substr(0, slash));
    total = std::stoll(s.substr(slash + 1));
  } catch (const std::exception&) {
    return false;
  }
  return total > 0 && total <= kMaxCount && cur >= 0 && cur <= kMaxCount;
}

// A number, or a string holding one ("85.20", "5.63G").
std::optional<double> number(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (!j.is_string()) return std::nullopt;
  try {
    return std::stod(j.get<std::string>());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Whether one of the first 20,000 lines of `path` holds a json_stats record (the first comes with
// the first LOG_PERIOD, after the config and the model's printout: well under 1 MB). Reads at most
// kScanBytes in chunks: this runs for every folder at every 2-s refresh of the run list, and a
// line of any length (or /dev/zero behind a link) must cost no more than that.
constexpr std::uint64_t kScanBytes = std::uint64_t(8) << 20;
constexpr std::uint64_t kScanLines = 20000;

bool holdsStats(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return false;
  }
  constexpr std::string_view kNeedle = "json_stats: {";
  std::string carry;  // the end of the previous chunk: a record may start across the boundary
  std::uint64_t newlines = 0, total = 0;
  char buf[65536];
  bool found = false;
  while (!found && total < kScanBytes && newlines < kScanLines) {
    const ssize_t n = ::read(
        fd, buf, static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, kScanBytes - total)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    total += static_cast<std::uint64_t>(n);
    const std::string hay = carry + std::string(buf, static_cast<std::size_t>(n));
    if (const auto hit = hay.find(kNeedle); hit != std::string::npos) {
      // The needle holds no newline: one starting in `carry` is on the last chunk's last line.
      const auto before = hit > carry.size()
                              ? std::count(hay.begin() + static_cast<std::ptrdiff_t>(carry.size()),
                                           hay.begin() + static_cast<std::ptrdiff_t>(hit), '\n')
                              : 0;
      found = newlines + static_cast<std::uint64_t>(before) < kScanLines;
    }
    newlines += static_cast<std::uint64_t>(std::count(buf, buf + n, '\n'));
    carry = hay.substr(hay.size() - std::min(hay.size(), kNeedle.size() - 1));
  }
  ::close(fd);
  return found;
}

}  // namespace

std::optional<MetricEvent> parsePySlowFastStats(const std::string& line,
                                                PySlowFastLogState& state) {
  const auto at = line.find("json_stats: ");
  if (at == std::string::npos) return std::nullopt;
  const auto parsed = util::parseJson(std::string_view(line).substr(at + 12));
  if (!parsed || !parsed->is_object()) return std::nullopt;
  const nlohmann::json& j = *parsed;
  // Every field by its type: json's value() throws on {"_type": 1}, and nothing above the
  // reader (a GUI timer's slot) may see an exception from a line of a log.
  const auto field = [&](const char* k) -> const nlohmann::json* {
    const auto it = j.find(k);
    return it == j.end() ? nullptr : &*it;
  };
  const auto text = [&](const char* k) {
    const auto* v = field(k);
    return v && v->is_string() ? v->get<std::string>() : std::string();
  };
  const std::string type = text("_type");
  MetricEvent e;
  auto copy = [&](const char* from, const char* to) {
    if (const auto* f = field(from))
      if (const auto v = number(*f)) e.values[to] = *v;
  };
  std::int64_t epoch = 0, epochs = 0, iter = 0, iters = 0;
  const bool hasEpoch = field("epoch") && fraction(*field("epoch"), epoch, epochs);
  if (type.rfind("train_iter", 0) == 0 && type != "train_iter_ssl") {
    if (!hasEpoch || !field("iter") || !fraction(*field("iter"), iter, iters)) return std::nullopt;
    state.iters_per_epoch = iters;
    e.kind = kind::kTrain;
    e.step = (epoch - 1) * iters + iter;
    e.epoch =
        static_cast<double>(epoch - 1) + static_cast<double>(iter) / static_cast<double>(iters);
    copy("loss", "loss");
    copy("lr", "lr");
    copy("grad_norm", "grad_norm");
    copy("top1_err", "top1_err");
    copy("top5_err", "top5_err");
    copy("dt", "iter_time_s");
    copy("dt_data", "data_wait_s");
  } else if ((type == "train_epoch" || type == "val_epoch") && hasEpoch) {
    e.kind = type == "train_epoch" ? kind::kEpoch : kind::kVal;
    e.step = epoch * state.iters_per_epoch;
    e.epoch = static_cast<double>(epoch);
    copy("loss", "loss");
    copy("top1_err", "top1_err");
    copy("top5_err", "top5_err");
    copy("min_top1_err", "min_top1_err");
    copy("map", "map");  // a multi-label run's ValMeter: get_map, a fraction
  } else if (text("split") == "test_final") {
    e.kind = kind::kTest;
    // A multi-label TestMeter writes mAP in percent as "map" and repeats it as top1_acc/top5_acc.
    if (const auto m = field("map") ? number(*field("map")) : std::nullopt) {
      e.values["map"] = *m / 100.0;
    } else {
      if (const auto a = field("top1_acc") ? number(*field("top1_acc")) : std::nullopt)
        e.values["top1_err"] = 100.0 - *a;
      if (const auto a = field("top5_acc") ? number(*field("top5_acc")) : std::nullopt)
        e.values["top5_err"] = 100.0 - *a;
    }
  } else {
    return std::nullopt;
  }
  if (const auto* g = field("gpu_mem"))
    if (const auto gb = number(*g)) e.values["mem_peak_bytes"] = *gb * 1024.0 * 1024.0 * 1024.0;
  return e;
}

bool isPySlowFastStatsPath(const std::string& path) {
  const auto name = fs::path(path).filename().string();
  return name == "json_stats.log" || name == "stdout.log";
}

std::string pySlowFastStatsFile(const std::string& dir) {
  std::error_code ec;
  if (fs::is_regular_file(fs::path(dir) / "run.json", ec)) return {};
  const auto stats = fs::path(dir) / "json_stats.log";
  if (fs::is_regular_file(stats, ec)) return stats.string();
  const auto stdoutLog = fs::path(dir) / "stdout.log";
  if (!fs::is_regular_file(stdoutLog, ec)) return {};
  return holdsStats(stdoutLog.string()) ? stdoutLog.string() : std::string();
}

}  // namespace amp::runlog
