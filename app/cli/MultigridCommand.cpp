// ampstudio-cli multigrid schedule: the long-cycle phases, short-cycle shapes and rewritten solver
// keys PySlowFast's multigrid training derives from a config.
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "CliConfig.h"
#include "Commands.h"
#include "multigrid/Schedule.h"

namespace amp::cli {
namespace {

struct MultigridArgs {
  std::string cfg;
  std::vector<std::string> overrides;
  bool json = false;
};

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::string listText(const std::vector<double>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + num(v[i]);
  return out + "]";
}

std::string bnText(const multigrid::BnChoice& bn) {
  if (bn.norm_type == "sub_batchnorm")
    return "sub_batchnorm, " + std::to_string(bn.num_splits) + " splits";
  if (bn.norm_type == "sync_batchnorm")
    return "sync_batchnorm over " + std::to_string(bn.num_sync_devices);
  return bn.norm_type;
}

std::string lrText(const multigrid::Phase& p) {
  if (p.lrs.empty()) return "(policy)";
  std::string out;
  for (size_t i = 0; i < p.lrs.size(); ++i)
    out += (i ? ", " : "") + num(p.lrs[i].relative_lr) +
           (i ? " from " + num(p.lrs[i].from_epoch) : "");
  return out;
}

std::string shortText(const multigrid::Phase& p) {
  std::string out;
  for (const auto& sh : p.short_cycle)
    out += (out.empty() ? "" : " ") + std::to_string(sh.crop) + ":" +
           std::to_string(p.per_device_batch * sh.batch_mult);
  return out.empty() ? "-" : out;
}

std::string pad(const std::string& s, size_t w, bool left = false) {
  if (s.size() >= w) return s;
  return left ? s + std::string(w - s.size(), ' ') : std::string(w - s.size(), ' ') + s;
}

void printText(const multigrid::Schedule& s) {
  auto onOff = [](bool b) { return b ? "on" : "off"; };
  if (!s.long_cycle && !s.short_cycle)
    std::cout << "multigrid is off (MULTIGRID.LONG_CYCLE and MULTIGRID.SHORT_CYCLE are False): the "
                 "plain schedule\n";
  else
    std::cout << "multigrid schedule (PySlowFast's slowfast/utils/multigrid.py): long cycles "
              << onOff(s.long_cycle) << ", short cycles " << onOff(s.short_cycle) << "\n";
  std::cout << "default shape: TRAIN.BATCH_SIZE " << s.default_b << ", DATA.NUM_FRAMES "
            << s.default_t << ", DATA.TRAIN_CROP_SIZE " << s.default_s << "\n\n";
  std::cout << "phase stage   epochs  batch /device frames crop rate  relative LR          BN      "
               "                   "
               "short cycle crop:batch/device\n";
  for (const auto& p : s.phases) {
    const std::string rate =
        p.long_cycle_sampling_rate > p.sampling_rate
            ? std::to_string(p.sampling_rate) + "-" + std::to_string(p.long_cycle_sampling_rate)
            : std::to_string(p.sampling_rate);
    std::cout << pad(std::to_string(p.index), 5)
              << pad((p.fine_tune ? "ft " : "") + std::to_string(p.lr_stage), 6)
              << pad(std::to_string(p.start_epoch) + "-" + std::to_string(p.end_epoch), 9)
              << pad(std::to_string(p.batch_size), 7) << pad(std::to_string(p.per_device_batch), 8)
              << pad(std::to_string(p.t), 7) << pad(std::to_string(p.s), 5) << "  "
              << pad(rate, 5, true) << " " << pad(lrText(p), 20, true) << " "
              << pad(bnText(p.bn), 26, true) << " " << shortText(p) << "\n";
  }
  std::cout << "\nbatch: TRAIN.BATCH_SIZE in the phase (per machine); rate: DATA.SAMPLING_RATE, or "
               "the range clips draw it "
               "from; relative LR: multiple of SOLVER.BASE_LR\n\n";
  std::cout << "SOLVER.STEPS     " << listText(s.steps) << "\n"
            << "SOLVER.LRS       " << listText(s.lrs) << "\n"
            << "SOLVER.MAX_EPOCH " << s.max_epoch
            << (s.max_epoch != s.original_max_epoch
                    ? " (was " + std::to_string(s.original_max_epoch) + ")"
                    : "")
            << "\n\n";
  std::cout << "theoretical iteration saving: " << num(s.overall_saving) << "x over the run ("
            << s.original_max_epoch << " epochs at TRAIN.BATCH_SIZE " << s.default_b << " vs "
            << s.max_epoch << " epochs taking the iterations of "
            << num(s.multigrid_iterations_epochs) << " such epochs)";
  if (s.long_cycle)
    std::cout << "; " << num(s.iter_saving) << "x at equal epochs (PySlowFast's iter_saving)";
  std::cout << "\n";
  for (const auto& n : s.notes) std::cout << "note: " << n << "\n";
}

nlohmann::json toJson(const multigrid::Schedule& s) {
  using nlohmann::json;
  json phases = json::array();
  for (const auto& p : s.phases) {
    json lrs = json::array(), shorts = json::array();
    for (const auto& l : p.lrs)
      lrs.push_back({{"from_epoch", l.from_epoch}, {"relative_lr", l.relative_lr}});
    for (const auto& sh : p.short_cycle)
      shorts.push_back({{"crop", sh.crop},
                        {"batch_mult", sh.batch_mult},
                        {"per_device_batch", p.per_device_batch * sh.batch_mult},
                        {"schedule_b", sh.schedule_b},
                        {"jitter_min_scale", sh.jitter_min_scale}});
    phases.push_back({{"phase", p.index},
                      {"lr_stage", p.lr_stage},
                      {"fine_tune", p.fine_tune},
                      {"b", p.b},
                      {"num_frames", p.t},
                      {"crop_size", p.s},
                      {"start_epoch", p.start_epoch},
                      {"end_epoch", p.end_epoch},
                      {"batch_size", p.batch_size},
                      {"per_device_batch", p.per_device_batch},
                      {"sampling_rate", p.sampling_rate},
                      {"long_cycle_sampling_rate", p.long_cycle_sampling_rate},
                      {"jitter_min_scale", p.jitter_min_scale},
                      {"avg_b", p.avg_b},
                      {"bn",
                       {{"norm_type", p.bn.norm_type},
                        {"num_splits", p.bn.num_splits},
                        {"num_sync_devices", p.bn.num_sync_devices}}},
                      {"relative_lrs", lrs},
                      {"short_cycle", shorts}});
  }
  return {{"long_cycle", s.long_cycle},
          {"short_cycle", s.short_cycle},
          {"default",
           {{"batch_size", s.default_b}, {"num_frames", s.default_t}, {"crop_size", s.default_s}}},
          {"phases", phases},
          {"solver",
           {{"STEPS", s.steps},
            {"LRS", s.lrs},
            {"MAX_EPOCH", s.max_epoch},
            {"original_MAX_EPOCH", s.original_max_epoch}}},
          {"iteration_saving",
           {{"overall", s.overall_saving},
            {"at_equal_epochs", s.iter_saving},
            {"multigrid_iterations_in_epochs", s.multigrid_iterations_epochs}}},
          {"notes", s.notes}};
}

int runSchedule(const MultigridArgs& a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  multigrid::Schedule s;
  try {
    s = multigrid::buildSchedule(*cfg);
  } catch (const std::exception& e) {
    std::cerr << a.cfg << ": " << e.what() << "\n";
    return 2;
  }
  if (a.json)
    std::cout << toJson(s).dump(2) << "\n";
  else
    printText(s);
  return 0;
}

}  // namespace

void addMultigridCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<MultigridArgs>();
  CLI::App* mg = app.add_subcommand(
      "multigrid", "Multigrid training (Wu et al., CVPR 2020) as PySlowFast schedules it");
  mg->require_subcommand(1);
  CLI::App* schedule = mg->add_subcommand(
      "schedule",
      "The long-cycle phases (epochs, batch, frames, crop, sampling rate, relative LR, BN), "
      "short-cycle shapes, "
      "rewritten SOLVER.STEPS/LRS/MAX_EPOCH and the theoretical iteration saving");
  schedule->add_option("--cfg", args->cfg, "Config file")->required()->check(CLI::ExistingFile);
  schedule->add_flag("--json", args->json, "Print the schedule as one JSON object");
  acceptOverrides(schedule);
  schedule->callback([args, schedule, &exitCode] {
    args->overrides = overridesOf(schedule);
    exitCode = runSchedule(*args);
  });
}

}  // namespace amp::cli
