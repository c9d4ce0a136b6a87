// ampstudio-cli train: one training run, headless; Ctrl-C stops it cleanly.
#include <csignal>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "CliConfig.h"
#include "Commands.h"
#include "train/Trainer.h"

namespace amp::cli {
namespace {

volatile std::sig_atomic_t gStop = 0;

std::string eta(double seconds) {
  const long s = static_cast<long>(std::max(0.0, seconds));
  std::ostringstream o;
  o << s / 3600 << ":" << std::setw(2) << std::setfill('0') << (s / 60) % 60 << ":" << std::setw(2) << s % 60;
  return o.str();
}

int runTrain(const std::string& path, const std::vector<std::string>& overrides) {
  auto cfg = loadConfigForCommand(path, overrides);
  if (!cfg) return 2;
  train::Trainer trainer(*cfg, path);
  const std::int64_t logPeriod = std::max<std::int64_t>(1, cfg->getInt("LOG_PERIOD"));
  double timeSum = 0;
  std::int64_t timed = 0;
  trainer.setEventSink([&](const runlog::MetricEvent& e) {
    std::ostringstream line;
    line << std::fixed;
    if (e.kind == runlog::kind::kTrain) {
      timeSum += e.value("iter_time_s").value_or(0);
      ++timed;
      if (e.step % logPeriod != 0) return;
      const auto p = trainer.progress();
      const double remaining = static_cast<double>(p.max_epoch * p.steps_per_epoch - e.step) * timeSum / timed;
      line << "[epoch " << std::setprecision(2) << e.epoch << "/" << p.max_epoch << "][step " << e.step << "] loss "
           << std::setprecision(4) << e.value("loss").value_or(0) << "  top1_err " << std::setprecision(1)
           << e.value("top1_err").value_or(0) << "  lr " << std::setprecision(5) << e.value("lr").value_or(0) << "  scale "
           << std::setprecision(0) << e.value("loss_scale").value_or(1) << "  grad_norm " << std::setprecision(3)
           << e.value("grad_norm").value_or(0) << "  clips/s " << std::setprecision(1) << e.value("clips_per_s").value_or(0)
           << "  eta " << eta(remaining);
    } else if (e.kind == runlog::kind::kVal) {
      line << "[val epoch " << std::setprecision(0) << e.epoch << "] top1_err " << std::setprecision(2)
           << e.value("top1_err").value_or(0) << "  top5_err " << e.value("top5_err").value_or(0) << "  best top1_err "
           << e.value("min_top1_err").value_or(0);
    } else if (e.kind == runlog::kind::kEvent) {
      line << "[" << e.name << "] " << e.message;
    } else {
      return;
    }
    std::cout << line.str() << std::endl;
  });
  std::string error;
  if (!trainer.start(&error)) {
    std::cerr << path << ": " << error << "\n";
    return 1;
  }
  std::cout << "run directory: " << trainer.runDir() << " (follow it with: ampstudio-cli runs tail -f " << trainer.runDir()
            << ")" << std::endl;
  std::signal(SIGINT, [](int) { gStop = 1; });
  while (trainer.state() == train::TrainerState::Running || trainer.state() == train::TrainerState::Paused) {
    if (gStop) {
      std::cout << "stopping after this iteration..." << std::endl;
      trainer.stop();
      gStop = 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  trainer.wait();
  std::cout << "run " << train::toString(trainer.state()) << (trainer.error().empty() ? "" : ": " + trainer.error()) << std::endl;
  return trainer.state() == train::TrainerState::Finished ? 0 : trainer.state() == train::TrainerState::Stopped ? 130 : 1;
}

}  // namespace

void addTrainCommand(CLI::App& app, int& exitCode) {
  auto cfg = std::make_shared<std::string>();
  CLI::App* train = app.add_subcommand("train", "Train the config's model; metrics go to OUTPUT_DIR (Ctrl-C stops cleanly)");
  train->add_option("--cfg", *cfg, "PySlowFast YAML config")->required()->check(CLI::ExistingFile);
  acceptOverrides(train);
  train->callback([cfg, train, &exitCode] { exitCode = runTrain(*cfg, overridesOf(train)); });
}

}  // namespace amp::cli
