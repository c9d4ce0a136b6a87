#include "runlog/PySlowFastLog.h"

#include <filesystem>
#include <fstream>

namespace amp::runlog {
namespace fs = std::filesystem;

namespace {

// "3/196" -> {3, 196}
bool fraction(const nlohmann::json& j, std::int64_t& cur, std::int64_t& total) {
  if (!j.is_string()) return false;
  const std::string s = j.get<std::string>();
  const auto slash = s.find('/');
  if (slash == std::string::npos) return false;
  try {
    cur = std::stoll(s.substr(0, slash));
    total = std::stoll(s.substr(slash + 1));
  } catch (const std::exception&) {
    return false;
  }
  return total > 0;
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

}  // namespace

std::optional<MetricEvent> parsePySlowFastStats(const std::string& line, PySlowFastLogState& state) {
  const auto at = line.find("json_stats: ");
  if (at == std::string::npos) return std::nullopt;
  const auto j = nlohmann::json::parse(line.begin() + static_cast<std::ptrdiff_t>(at + 12), line.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const std::string type = j.value("_type", std::string());
  MetricEvent e;
  auto copy = [&](const char* from, const char* to) {
    if (j.contains(from))
      if (const auto v = number(j[from])) e.values[to] = *v;
  };
  std::int64_t epoch = 0, epochs = 0, iter = 0, iters = 0;
  const bool hasEpoch = j.contains("epoch") && fraction(j["epoch"], epoch, epochs);
  if (type.rfind("train_iter", 0) == 0 && type != "train_iter_ssl") {
    if (!hasEpoch || !j.contains("iter") || !fraction(j["iter"], iter, iters)) return std::nullopt;
    state.iters_per_epoch = iters;
    e.kind = kind::kTrain;
    e.step = (epoch - 1) * iters + iter;
    e.epoch = static_cast<double>(epoch - 1) + static_cast<double>(iter) / static_cast<double>(iters);
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
  } else if (j.value("split", std::string()) == "test_final") {
    e.kind = kind::kTest;
    if (const auto a = j.contains("top1_acc") ? number(j["top1_acc"]) : std::nullopt) e.values["top1_err"] = 100.0 - *a;
    if (const auto a = j.contains("top5_acc") ? number(j["top5_acc"]) : std::nullopt) e.values["top5_err"] = 100.0 - *a;
  } else {
    return std::nullopt;
  }
  if (j.contains("gpu_mem"))
    if (const auto g = number(j["gpu_mem"])) e.values["mem_peak_bytes"] = *g * 1024.0 * 1024.0 * 1024.0;
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
  std::ifstream in(stdoutLog);
  std::string line;
  for (int n = 0; n < 20000 && std::getline(in, line); ++n)  // the first record comes with the first LOG_PERIOD
    if (line.find("json_stats: {") != std::string::npos) return stdoutLog.string();
  return {};
}

}  // namespace amp::runlog
