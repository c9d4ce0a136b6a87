// ampstudio-gui-bench replot [--points N] [--series S] [--repeats R]
//   Replot time of one chart holding S series of N points (random walks with rare spikes), with
//   QCustomPlot's adaptive sampling (what the studio uses) and without it, side by side.
// ampstudio-gui-bench stall --cfg FILE [--seconds T] [--follow]
//   Trains FILE through the studio's controller and dashboard (charts visible, replotted every
//   tick) and measures how late a 10 ms GUI timer fires: the event-loop stall a user feels.
//   --follow: meanwhile `ampstudio-cli train` trains FILE in a child process and a second
//   dashboard follows its run folder from disk, as the studio follows a run started elsewhere.
// ampstudio-gui-bench scale [--runs 100] [--steps 10000] [--dir DIR] [--repeats R]
//   A sweep of finished fake runs (written once into DIR with the run writers, FakeSweep) opened
//   in Compare at 1600x1000: the time to open them, to group and regroup them, a replot of all
//   charts (a curve per run, and grouped), and the process's memory.
// ampstudio-gui-bench sweep --dir DIR [--runs 50] [--steps 2000] [--precisions fp32,bf16]
//   Only writes such a sweep (5 learning rates x precisions x seeds), for screenshots.
// ampstudio-gui-bench runs [--runs N] [--steps S]
//   The run list at a sweep's scale: listing, refresh, filters, sort and memory (RunListBench.h).
// Run with QT_QPA_PLATFORM=offscreen (or under xvfb-run) on a quiet machine; compare ratios.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTableWidget>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "ComparisonPanel.h"
#include "DashboardPanel.h"
#include "FakeSweep.h"
#include "LaunchedRun.h"
#include "MetricChart.h"
#include "RunListBench.h"
#include "TrainingController.h"
#include "configfile/ConfigLoader.h"
#include "runlog/RunRecord.h"
#include "system/MemoryProbe.h"

using amp::widgets::MetricChart;

namespace {

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1,
                    static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

std::vector<double> replotTimes(MetricChart& chart, int repeats) {
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    // Pan a little each time so nothing is cached between replots.
    chart.xAxis->moveRange(i % 2 ? 1.0 : -1.0);
    QElapsedTimer t;
    t.start();
    chart.replot(QCustomPlot::rpImmediateRefresh);
    ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
  }
  return ms;
}

// Fills a chart with `series` random walks of `points` points (rare spikes) and times replots.
std::vector<double> replotChart(int points, int series, int repeats, bool envelope,
                                double* fillMs) {
  MetricChart chart("bench", "bench", "value");
  if (!envelope)
    chart.setDirectPointLimit(static_cast<std::size_t>(points) + 1);  // QCustomPlot alone
  chart.resize(900, 500);
  chart.show();
  std::mt19937_64 rng(1);
  std::normal_distribution<double> step(0, 1);
  std::uniform_real_distribution<double> u(0, 1);
  QElapsedTimer fill;
  fill.start();
  for (int s = 0; s < series; ++s) {
    const int idx =
        chart.addSeries(QStringLiteral("series %1").arg(s), amp::widgets::seriesColor(s));
    QVector<double> x(points), y(points);
    double v = 0;
    for (int i = 0; i < points; ++i) {
      v += step(rng);
      x[i] = i;
      y[i] = v + (u(rng) < 1e-5 ? 500 : 0);  // rare spikes must stay visible
    }
    chart.appendPoints(idx, x, y);
  }
  *fillMs = static_cast<double>(fill.nsecsElapsed()) / 1e6;
  chart.fitIfFollowing();
  chart.replot();
  QApplication::processEvents();
  return replotTimes(chart, repeats);
}

int replot(int points, int series, int repeats) {
  double fillEnvelope = 0, fillPlain = 0;
  const auto studio = replotChart(points, series, repeats, true, &fillEnvelope);
  const auto plain = replotChart(points, series, std::max(3, repeats / 4), false, &fillPlain);
  std::printf("chart 900x500, %d series x %d points, whole run in view, 1 px lines\n", series,
              points);
  std::printf(
      "studio (min/max envelope from a pyramid, then adaptive sampling): median %.1f ms, p90 %.1f "
      "ms, max %.1f ms "
      "(%d replots; appending the points took %.0f ms)\n",
      percentile(studio, 0.5), percentile(studio, 0.9), percentile(studio, 1.0), repeats,
      fillEnvelope);
  std::printf(
      "QCustomPlot alone (every point, its adaptive sampling): median %.1f ms (%zu replots)\n",
      percentile(plain, 0.5), plain.size());
  std::printf("studio / QCustomPlot alone: %.3f\n",
              percentile(studio, 0.5) / std::max(1e-9, percentile(plain, 0.5)));
  return 0;
}

amp::bench::SweepShape sweepShape(int runs, int steps, const QString& precisions) {
  amp::bench::SweepShape shape;  // 5 learning rates x precisions x seeds
  shape.precisions.clear();
  for (const QString& p : precisions.split(',', Qt::SkipEmptyParts))
    shape.precisions.push_back(p.toStdString());
  if (shape.precisions.empty()) shape.precisions = {"fp32"};
  shape.seeds = std::max(1, runs / static_cast<int>(5 * shape.precisions.size()));
  shape.steps = steps;
  return shape;
}

std::vector<std::string> sweep(const QString& dir, int runs, int steps,
                               const QString& precisions = "fp32,bf16") {
  QElapsedTimer t;
  t.start();
  std::string error;
  const auto dirs =
      amp::bench::writeFakeSweep(dir.toStdString(), sweepShape(runs, steps, precisions), &error);
  if (dirs.empty())
    std::fprintf(stderr, "cannot write the sweep: %s\n", error.c_str());
  else
    std::printf("sweep: %zu runs x %d steps in %s (ready in %.1f s)\n", dirs.size(), steps,
                qPrintable(dir), static_cast<double>(t.elapsed()) / 1000.0);
  return dirs;
}

// Replots every shown chart at once (as a resize or a linked zoom does), `repeats` times.
std::vector<double> replotAll(amp::widgets::ComparisonPanel& panel, int repeats) {
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    for (MetricChart* c : panel.charts()) c->xAxis->moveRange(i % 2 ? 1.0 : -1.0);
    QElapsedTimer t;
    t.start();
    for (MetricChart* c : panel.charts()) c->replot(QCustomPlot::rpImmediateRefresh);
    ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
  }
  return ms;
}

int scale(const QString& dir, int runs, int steps, int repeats) {
  const auto dirs = sweep(dir, runs, steps);
  if (dirs.empty()) return 1;
  QStringList list;
  for (const auto& d : dirs) list << QString::fromStdString(d);
  const double mib = 1024.0 * 1024.0;
  const double rssBefore = static_cast<double>(amp::system::processRssBytes()) / mib;
  amp::widgets::ComparisonPanel panel;
  panel.resize(1600, 1000);
  panel.show();
  QApplication::processEvents();
  const auto timed = [](const std::function<void()>& f) {
    QElapsedTimer t;
    t.start();
    f();
    QApplication::processEvents();  // the queued replots
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
  };
  // What opening costs besides drawing: each run's metrics log and config read alone.
  const double readLogs = timed([&] {
    for (const auto& d : dirs) {
      amp::runlog::RunRecord record;
      (void)record.loadRunDirectory(d, nullptr);
    }
  });
  const double readConfigs = timed([&] {
    for (const auto& d : dirs) (void)amp::config::ConfigLoader().loadFile(d + "/config.yaml");
  });
  const double open = timed([&] { panel.setRuns(list); });
  const double rssOpen = static_cast<double>(amp::system::processRssBytes()) / mib;
  const auto perRun = replotAll(panel, repeats);
  struct Step {
    const char* what;
    QStringList keys;
  };
  const std::vector<Step> steps_ = {
      {"group by SOLVER.BASE_LR (5 groups)", {"SOLVER.BASE_LR"}},
      {"regroup by BASE_LR x precision (10 groups)", {"SOLVER.BASE_LR", "precision"}},
      {"regroup by precision (2 groups)", {"precision"}},
      {"ungroup (a curve per run)", {}},
      {"group by SOLVER.BASE_LR again", {"SOLVER.BASE_LR"}}};
  std::printf("Compare, 1600x1000, %d runs x %d steps (%d charts)\n", static_cast<int>(dirs.size()),
              steps, static_cast<int>(panel.charts().size()));
  std::printf("open in Compare (read %d run folders, draw every chart): %.0f ms\n",
              static_cast<int>(dirs.size()), open);
  std::printf("  of which at most: reading the metrics logs %.0f ms, the configs %.0f ms\n",
              readLogs, readConfigs);
  for (const Step& s : steps_) {
    QString error;
    bool ok = true;
    const double ms = timed([&] { ok = panel.setGroupBy(s.keys, &error); });
    if (!ok) {
      const QTableWidget* t = panel.summaryTable();
      std::fprintf(stderr, "%s\n(the first run: %s)\n", qPrintable(error),
                   t->rowCount() ? qPrintable(t->item(0, t->columnCount() - 1)->text()) : "");
      return 1;
    }
    std::printf("%s: %.0f ms (%zu groups)\n", s.what, ms, panel.groups().size());
  }
  const auto grouped = replotAll(panel, repeats);
  panel.setShowMembers(true);
  QApplication::processEvents();
  const auto withMembers = replotAll(panel, repeats);
  std::printf("replot of all charts, a curve per run: median %.1f ms, max %.1f ms (%d replots)\n",
              percentile(perRun, 0.5), percentile(perRun, 1.0), repeats);
  std::printf("replot of all charts, 5 groups (mean + band): median %.1f ms, max %.1f ms\n",
              percentile(grouped, 0.5), percentile(grouped, 1.0));
  std::printf("replot of all charts, 5 groups with their runs thin: median %.1f ms, max %.1f ms\n",
              percentile(withMembers, 0.5), percentile(withMembers, 1.0));
  std::printf(
      "memory: process RSS %.0f MiB before, %.0f MiB with the runs open (+%.0f MiB), "
      "%.0f MiB at the end; peak %.0f MiB\n",
      rssBefore, rssOpen, rssOpen - rssBefore,
      static_cast<double>(amp::system::processRssBytes()) / mib,
      static_cast<double>(amp::system::processPeakRssBytes()) / mib);
  return 0;
}

int stall(const QString& cfgPath, double seconds, bool follow) {
  const QString trained = "/tmp/ampstudio-gui-bench-run",
                followed = "/tmp/ampstudio-gui-bench-followed";
  QDir(trained).removeRecursively();  // fresh runs, not resumed ones
  QDir(followed).removeRecursively();
  auto r = amp::config::ConfigLoader().loadFile(cfgPath.toStdString(),
                                                {"OUTPUT_DIR", trained.toStdString()});
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", amp::config::formatDiagnostics(r.diagnostics).c_str());
    return 1;
  }
  amp::widgets::DashboardPanel dashboard;
  dashboard.resize(1400, 850);
  dashboard.show();
  amp::widgets::DashboardPanel other;  // --follow: the run trained by another process
  QProcess otherRun;
  if (follow) {
    const QString cli = amp::widgets::LaunchedRun::findCli();
    if (cli.isEmpty()) {
      std::fprintf(stderr,
                   "--follow needs ampstudio-cli beside this program or in AMPSTUDIO_CLI\n");
      return 1;
    }
    otherRun.setStandardOutputFile(QProcess::nullDevice());
    otherRun.start(cli, {"train", "--cfg", cfgPath, "OUTPUT_DIR", followed});
    QElapsedTimer wait;
    wait.start();
    while (!QFile::exists(followed + "/metrics.jsonl") && wait.elapsed() < 60000)
      QThread::msleep(50);
    QString error;
    if (!other.openRunDirectory(followed, &error)) {
      std::fprintf(stderr, "cannot follow %s: %s\n", qPrintable(followed), qPrintable(error));
      return 1;
    }
    other.resize(1400, 850);
    other.show();
  }
  amp::widgets::TrainingController controller;
  QObject::connect(&controller, &amp::widgets::TrainingController::eventsReady, &dashboard,
                   &amp::widgets::DashboardPanel::appendEvents);
  std::vector<double> updateMs;
  QObject::connect(&controller, &amp::widgets::TrainingController::eventsReady, &dashboard, [&] {
    // The tick queued one replot per chart; read their durations once they have run.
    QTimer::singleShot(0, &dashboard, [&] {
      double sum = 0;
      for (MetricChart* c : dashboard.charts()) sum += c->replotTime();
      updateMs.push_back(sum);
    });
  });
  dashboard.beginRun("bench");
  QString error;
  if (!controller.start(r.config, cfgPath, &error)) {
    std::fprintf(stderr, "%s\n", qPrintable(error));
    return 1;
  }
  std::vector<double> lateMs;
  QElapsedTimer clock;
  clock.start();
  qint64 last = clock.nsecsElapsed();
  QTimer probe;
  probe.setTimerType(Qt::PreciseTimer);
  probe.setInterval(10);
  QObject::connect(&probe, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    lateMs.push_back(std::max(0.0, static_cast<double>(now - last) / 1e6 - 10.0));
    last = now;
    if (now > static_cast<qint64>(seconds * 1e9)) {
      controller.stop();
      controller.waitForEnd();
      QApplication::quit();
    }
  });
  probe.start();
  QApplication::exec();
  const auto p = controller.progress();
  std::printf(
      "trained %lld steps in %.0f s through the controller; dashboard with 8 charts visible\n",
      static_cast<long long>(p.step), seconds);
  if (follow) {
    otherRun.terminate();  // SIGTERM: the CLI stops after its step, with a checkpoint
    if (!otherRun.waitForFinished(60000)) otherRun.kill();
    std::printf(
        "meanwhile ampstudio-cli trained %s in another process, followed from disk by a second "
        "dashboard (%zu steps read)\n",
        qPrintable(followed), static_cast<std::size_t>(other.chart("loss")->pointCount(0)));
  }
  std::printf(
      "GUI timer lateness (10 ms timer, %zu ticks): median %.1f ms, p99 %.1f ms, max %.1f ms\n",
      lateMs.size(), percentile(lateMs, 0.5), percentile(lateMs, 0.99), percentile(lateMs, 1.0));
  std::printf(
      "replot of all 8 charts per tick (%zu ticks with data): median %.1f ms, max %.1f ms\n",
      updateMs.size(), percentile(updateMs, 0.5), percentile(updateMs, 1.0));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QCommandLineParser parser;
  parser.addPositionalArgument("mode", "replot, stall, scale, sweep or runs");
  QCommandLineOption points("points", "Points per series (replot).", "n", "1000000");
  QCommandLineOption series("series", "Series (replot).", "n", "8");
  QCommandLineOption repeats("repeats", "Replots measured (replot).", "n", "20");
  QCommandLineOption cfg("cfg", "Config to train (stall).", "file",
                         "configs/demo/DEMO_X3D_TINY.yaml");
  QCommandLineOption secs("seconds", "How long to train (stall).", "s", "30");
  QCommandLineOption follow(
      "follow", "Also follow a run trained by ampstudio-cli in another process (stall).");
  QCommandLineOption runs("runs", "Runs of the sweep (scale, sweep: 100; runs: 1000).", "n");
  QCommandLineOption steps("steps", "Steps of each run (scale, sweep: 10000; runs: 200).", "n");
  QCommandLineOption precisions("precisions", "Precisions of the sweep (sweep).", "list",
                                "fp32,bf16");
  QCommandLineOption dir("dir", "Where the sweep is written (scale, sweep).", "dir",
                         "/tmp/ampstudio-gui-bench-sweep");
  parser.addOptions({points, series, repeats, cfg, secs, follow, runs, steps, precisions, dir});
  parser.addHelpOption();
  parser.process(app);
  const QString mode = parser.positionalArguments().value(0);
  if (mode == "replot")
    return replot(parser.value(points).toInt(), parser.value(series).toInt(),
                  parser.value(repeats).toInt());
  if (mode == "stall")
    return stall(parser.value(cfg), parser.value(secs).toDouble(), parser.isSet(follow));
  // Each mode's own scale unless --runs / --steps say otherwise.
  const auto count = [&parser](const QCommandLineOption& o, int fallback) {
    return parser.isSet(o) ? parser.value(o).toInt() : fallback;
  };
  if (mode == "scale")
    return scale(parser.value(dir), count(runs, 100), count(steps, 10000),
                 parser.value(repeats).toInt());
  if (mode == "sweep")
    return sweep(parser.value(dir), count(runs, 100), count(steps, 10000), parser.value(precisions))
        .empty();
  if (mode == "runs") return amp::bench::runListBench(count(runs, 1000), count(steps, 200));
  std::fprintf(stderr,
               "usage: ampstudio-gui-bench replot|stall|scale|sweep|runs [options]; --help lists "
               "them\n");
  return 2;
}
