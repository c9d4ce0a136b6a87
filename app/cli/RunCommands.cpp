// ampstudio-cli runs list | show | tail: read run directories, also while they are written.
#include <chrono>
#include <csignal>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <memory>
#include <thread>

#include "Commands.h"
#include "RunText.h"
#include "checkpoint/ImportedRun.h"
#include "config/Diagnostic.h"
#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"
#include "runlog/RunFilter.h"
#include "runlog/TensorBoardRun.h"
#include "util/AtomicFile.h"
#include "util/Duration.h"

namespace amp::cli {
namespace {

struct RunArgs {
  std::string dir;
  std::string filter;
  bool follow = false;
  bool config = false;
  std::string kind;
  double pollSeconds = 0.5;
};

std::string localTime(double unixSeconds) {
  if (unixSeconds <= 0) return "-";
  const std::time_t t = static_cast<std::time_t>(unixSeconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

std::string duration(const runlog::RunMetadata& m) {
  const double end = m.endedAt > 0 ? m.endedAt : (m.updatedAt > 0 ? m.updatedAt : m.startedAt);
  return util::formatDuration(end - m.startedAt);
}

std::string statusOf(const runlog::RunMetadata& m) {
  if (runlog::RunDirectory::isAbandoned(m)) return "running?";  // writer process is gone
  return runlog::toString(m.status);
}

void printEvent(const runlog::MetricEvent& e) {
  std::cout << std::left << std::setw(6) << e.kind << " step " << std::setw(7) << e.step
            << " epoch " << std::fixed << std::setprecision(3) << e.epoch << std::defaultfloat;
  if (!e.name.empty()) std::cout << " " << e.name;
  for (const auto& [k, v] : e.values) std::cout << " " << k << "=" << std::setprecision(6) << v;
  if (e.perClass)  // the lists are for the studio's Compare view; one line says what they are
    std::cout << " " << e.perClass->split << " " << e.perClass->metric << " of "
              << e.perClass->classes.size() << " classes";
  if (!e.message.empty()) std::cout << " : " << e.message;
  std::cout << "\n";
}

// What the filter sees of a run: runlog::RunFilter's fields, figures and (when a term names a
// key) its config.yaml.
runlog::RunFilterRow filterRow(const std::string& dir, const runlog::RunMetadata& m,
                               const std::string& status, const runlog::RunSummary& s,
                               bool multiLabel, bool withConfig) {
  runlog::RunFilterRow f;
  f.dir = dir;
  f.name = m.name;
  f.status = status;
  f.precision = m.precision;
  f.model = m.model;
  f.device = m.device;
  f.host = m.host;
  f.note = m.note;
  f.tags = m.tags;
  if (multiLabel ? s.bestValMap.has_value() : s.bestValTop1.has_value())
    f.numbers["best"] = multiLabel ? *s.bestValMap * 100 : *s.bestValTop1;
  if (s.finalLoss) f.numbers["loss"] = *s.finalLoss;
  if (s.peakMemoryBytes) f.numbers["mem_gib"] = *s.peakMemoryBytes / (1024.0 * 1024 * 1024);
  if (m.startedAt > 0) {
    const double end = m.endedAt > 0 ? m.endedAt : (m.updatedAt > 0 ? m.updatedAt : m.startedAt);
    f.numbers["hours"] = (end - m.startedAt) / 3600;
  }
  f.numbers["steps"] = static_cast<double>(s.steps);
  if (withConfig)
    f.config = runlog::RunFilter::readConfigValues(runlog::RunDirectory(dir).configPath());
  return f;
}

int runList(const RunArgs& a) {
  auto runs = runlog::RunDirectory::findRuns(a.dir);
  // A TensorBoard logdir keeps its runs deeper (logdir/name/version_0), as --logdir reads it.
  if (runs.empty()) runs = runlog::TensorBoardRun::findRunFolders(a.dir);
  if (runs.empty()) {
    std::cout << "no runs under '" << a.dir
              << "' (a run is a folder holding run.json, a PySlowFast OUTPUT_DIR or a folder of "
                 "TensorBoard event files)\n";
    return 0;
  }
  const runlog::RunFilter filter(a.filter);
  for (const auto& p : filter.problems()) std::cerr << "--filter: " << p << "\n";
  // BEST: the best validation, top-1 accuracy or a multi-label run's mAP (RunText.h).
  std::cout << std::left << std::setw(28) << "NAME" << std::setw(10) << "STATUS" << std::setw(18)
            << "MODEL" << std::setw(10) << "PRECISION" << std::setw(13) << "BEST" << std::setw(18)
            << "STARTED"
            << "DURATION\n";
  int bad = 0;
  for (const auto& r : runs) {
    std::string err;
    auto m = runlog::RunDirectory(r).readMetadata(&err);
    if (!m) {
      std::cerr << err << "\n";
      ++bad;
      continue;
    }
    checkpoint::describeImportedRun(*m, r);
    runlog::RunRecord record;
    (void)record.loadRunDirectory(r, nullptr);  // an unreadable log: no figure ("-")
    const bool multiLabel = record.multiLabel() || m->multiLabel;
    const runlog::RunSummary summary = record.summary();
    if (!filter.empty() &&
        !filter.matches(filterRow(r, *m, statusOf(*m), summary, multiLabel, filter.needsConfig())))
      continue;
    const std::string best = bestValText(summary, multiLabel);
    std::cout << std::setw(28) << (m->name.empty() ? r : m->name) << std::setw(10) << statusOf(*m)
              << std::setw(18) << m->model << std::setw(10) << m->precision << std::setw(13) << best
              << std::setw(18) << localTime(m->startedAt) << duration(*m) << "\n";
  }
  return bad ? 1 : 0;
}

// The config a run trained with: ours as config.yaml holds it, a PySlowFast run's from the
// "cfg" of its newest checkpoint (keys this studio does not know are named on stderr).
int printRunConfig(const runlog::RunDirectory& run) {
  if (!run.isPySlowFast()) {
    std::string text, err;
    if (!util::readFile(run.configPath(), text, &err)) {
      std::cerr << err << "\n";
      return 1;
    }
    std::cout << text;
    return 0;
  }
  std::string err;
  const auto imported = checkpoint::readImportedRunConfig(run.dir(), &err);
  if (!imported) {
    std::cerr << err << "\n";
    return 1;
  }
  std::cout << "# from " << imported->checkpoint << " (PySlowFast's cfg.dump())\n"
            << imported->yaml;
  if (!imported->yaml.empty() && imported->yaml.back() != '\n') std::cout << "\n";
  std::cerr << config::formatDiagnostics(imported->loaded.diagnostics);
  return 0;
}

int runShow(const RunArgs& a) {
  runlog::RunDirectory run(a.dir);
  std::string err;
  auto m = run.readMetadata(&err);
  if (!m) {
    std::cerr << err << "\n";
    return 1;
  }
  checkpoint::describeImportedRun(*m, a.dir);
  if (a.config) return printRunConfig(run);
  std::cout << m->toJson().dump(2) << "\n";
  runlog::MetricsReader::ReadStats stats;
  const auto events = runlog::MetricsReader::readAll(run.metricsPath(), &stats);
  std::cout << events.size() << " metric events";
  if (stats.skippedLines) std::cout << " (" << stats.skippedLines << " damaged lines skipped)";
  std::cout << "\n";
  for (const auto& p : stats.problems) std::cerr << p << "\n";
  if (!events.empty()) {
    std::cout << "last: ";
    printEvent(events.back());
  }
  return 0;
}

volatile std::sig_atomic_t gInterrupted = 0;

int runTail(const RunArgs& a) {
  runlog::RunDirectory run(a.dir);
  runlog::MetricsReader reader(run.metricsPath());
  std::signal(SIGINT, [](int) { gInterrupted = 1; });
  while (true) {
    auto m = run.readMetadata();
    const bool live = a.follow && m && m->status == runlog::RunStatus::Running &&
                      !runlog::RunDirectory::isAbandoned(*m);
    for (const auto& e : live ? reader.poll() : reader.pollFinal())
      if (a.kind.empty() || e.kind == a.kind) printEvent(e);
    std::cout.flush();
    if (!live || gInterrupted) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(a.pollSeconds));
  }
  for (const auto& p : reader.problems()) std::cerr << p << "\n";
  return 0;
}

}  // namespace

void addRunCommands(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* runs =
      app.add_subcommand("runs", "Inspect run directories (local or copied from a GPU server)");
  runs->require_subcommand(1);

  CLI::App* list =
      runs->add_subcommand("list",
                           "Runs in a folder: name, status, model, precision, best validation "
                           "(top-1, or mAP for a multi-label run), time");
  list->add_option("dir", args->dir, "Folder holding run directories")
      ->required()
      ->check(CLI::ExistingDirectory);
  list->add_option("--filter", args->filter,
                   std::string("Only the runs that match, as the studio's filter line:\n") +
                       runlog::RunFilter::syntaxHelp());
  list->callback([args, &exitCode] { exitCode = runList(*args); });

  CLI::App* show = runs->add_subcommand("show", "A run's metadata and its last metric event");
  show->add_option("run", args->dir, "Run directory")->required()->check(CLI::ExistingDirectory);
  show->add_flag("--config", args->config,
                 "Print the config the run trained with instead (a PySlowFast run's from its "
                 "newest checkpoint)");
  show->callback([args, &exitCode] { exitCode = runShow(*args); });

  CLI::App* tail = runs->add_subcommand(
      "tail", "Print a run's metric events; --follow keeps reading while it runs");
  tail->add_option("run", args->dir, "Run directory")->required()->check(CLI::ExistingDirectory);
  tail->add_flag("-f,--follow", args->follow, "Keep following until the run stops");
  tail->add_option("--kind", args->kind,
                   "Only events of this kind (train, epoch, val, test, event)");
  tail->add_option("--poll-seconds", args->pollSeconds, "Follow: seconds between reads")
      ->check(CLI::PositiveNumber);
  tail->callback([args, &exitCode] { exitCode = runTail(*args); });
}

}  // namespace amp::cli
