#include "RunListBench.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "RunListPanel.h"
#include "config/Config.h"
#include "configfile/ConfigWriter.h"
#include "runlog/MetricsWriter.h"
#include "runlog/RunDirectory.h"

namespace amp::bench {
namespace {

// The process's resident memory in MiB, from /proc/self/status.
double residentMiB() {
  QFile status("/proc/self/status");
  if (!status.open(QIODevice::ReadOnly)) return 0;
  for (const QByteArray& line : status.readAll().split('\n'))
    if (line.startsWith("VmRSS:"))
      return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024;
  return 0;
}

bool writeRun(const std::string& dir, int i, int steps, bool running) {
  runlog::RunDirectory run(dir);
  if (!run.ensureExists(nullptr)) return false;
  runlog::RunMetadata m;
  m.name = "sweep-" + std::to_string(i);
  m.status = running ? runlog::RunStatus::Running
                     : (i % 17 == 0 ? runlog::RunStatus::Failed : runlog::RunStatus::Finished);
  m.precision = i % 3 == 0 ? "fp32" : (i % 3 == 1 ? "bf16" : "fp16");
  m.model = i % 2 ? "X3D-XS" : "SlowFast R50";
  m.device = "cuda:0 NVIDIA H100";
  m.host = runlog::hostName();
  m.pid = running ? static_cast<std::int64_t>(QCoreApplication::applicationPid()) : 0;
  m.startedAt = 1.79e9 + i * 60.0;
  m.endedAt = running ? 0 : m.startedAt + 3600 + i;
  m.tags = {"sweep-" + std::to_string(i % 10)};
  if (i % 50 == 0) m.note = "diverged after warm-up";
  if (!run.writeMetadata(m, nullptr)) return false;
  config::Config cfg;
  (void)cfg.set("SOLVER.BASE_LR", 0.0125 * (1 + i % 8));
  (void)cfg.set("TRAIN.BATCH_SIZE", 8 * (1 + i % 4));
  if (!config::saveConfigFile(cfg, run.configPath(), nullptr)) return false;
  runlog::MetricsWriter w;
  if (!w.open(run.metricsPath(), nullptr)) return false;
  for (int s = 1; s <= steps; ++s) {
    runlog::MetricEvent e;
    e.step = s;
    e.epoch = s / 100.0;
    e.time_s = s * 0.5;
    e.values = {{"loss", 4.0 / (1 + s * 0.01)},
                {"lr", 0.1},
                {"top1_err", 90.0 - s * 0.1},
                {"mem_peak_bytes", 2.0e9 + i * 1e6},
                {"iter_time_s", 0.5}};
    if (!w.write(e, nullptr)) return false;
    if (s % std::max(1, steps / 10) == 0) {
      runlog::MetricEvent v;
      v.kind = runlog::kind::kVal;
      v.step = s;
      v.values = {{"top1_err", 80.0 - s * 0.05 - (i % 13)}};
      if (!w.write(v, nullptr)) return false;
    }
  }
  return true;
}

double timedMs(const std::function<void()>& f) {
  QElapsedTimer t;
  t.start();
  f();
  return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

}  // namespace

int runListBench(int runs, int stepsPerRun) {
  QTemporaryDir tmp;
  if (!tmp.isValid()) return 1;
  constexpr int kLive = 20;  // runs "being written" during the live refresh
  QElapsedTimer writing;
  writing.start();
  for (int i = 0; i < runs; ++i)
    if (!writeRun(tmp.filePath(QString("run-%1").arg(i, 4, 10, QChar('0'))).toStdString(), i,
                  stepsPerRun, i < kLive)) {
      std::fprintf(stderr, "cannot write run %d under %s\n", i, qPrintable(tmp.path()));
      return 1;
    }
  std::printf("%d runs of %d steps written in %.1f s (%s)\n", runs, stepsPerRun,
              static_cast<double>(writing.elapsed()) / 1000.0, qPrintable(tmp.path()));
  const double rssBefore = residentMiB();
  widgets::RunListPanel panel;
  panel.resize(1200, 800);
  panel.show();
  QApplication::processEvents();
  const double first = timedMs([&] { panel.setRunsFolder(tmp.path()); });
  const double rssListed = residentMiB();
  // The figures (best, memory, loss) arrive from the loader's thread while the event loop runs:
  // how late a 10 ms timer fires meanwhile is the stall a user would feel.
  std::vector<double> lateMs;
  const double figures = timedMs([&] {
    QElapsedTimer sinceTick;
    sinceTick.start();
    QTimer probe;
    probe.setInterval(10);
    QObject::connect(&probe, &QTimer::timeout, [&] {
      lateMs.push_back(std::max(0.0, static_cast<double>(sinceTick.nsecsElapsed()) / 1e6 - 10));
      sinceTick.restart();
    });
    QEventLoop loop;
    QTimer check;
    check.setInterval(20);
    QObject::connect(&check, &QTimer::timeout, [&] {
      if (!panel.summariesPending()) loop.quit();
    });
    probe.start();
    check.start();
    loop.exec();
  });
  std::sort(lateMs.begin(), lateMs.end());
  const auto late = [&lateMs](double p) {
    return lateMs.empty()
               ? 0.0
               : lateMs[std::min(lateMs.size() - 1,
                                 static_cast<std::size_t>(p * static_cast<double>(lateMs.size())))];
  };
  const double rssFigures = residentMiB();
  QApplication::processEvents();
  const double again = timedMs([&] { panel.refresh(); });
  // 20 runs write a step each and their heartbeat, as live trainers do between two refreshes;
  // three rounds: the first re-reads their logs, later ones follow them from where they were.
  double live = 0, liveFigures = 0, liveLater = 0, liveLaterFigures = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kLive; ++i) {
      runlog::RunDirectory run(
          tmp.filePath(QString("run-%1").arg(i, 4, 10, QChar('0'))).toStdString());
      runlog::MetricsWriter w;
      if (!w.open(run.metricsPath(), nullptr)) return 1;
      runlog::MetricEvent e;
      e.step = stepsPerRun + 1 + round;
      e.values = {{"loss", 0.5}};
      (void)w.write(e, nullptr);
      auto m = run.readMetadata();
      if (m) {
        m->updatedAt = runlog::unixTimeNow();
        (void)run.writeMetadata(*m, nullptr);
      }
    }
    QThread::msleep(5);  // a later modification time than the last read
    const double refreshMs = timedMs([&] { panel.refresh(); });
    const double figuresMs = timedMs([&] { panel.waitForSummaries(); });
    if (round == 0) {
      live = refreshMs;
      liveFigures = figuresMs;
    } else {
      liveLater = refreshMs;
      liveLaterFigures = figuresMs;
    }
  }
  const double text = timedMs([&] { panel.setFilterText("sweep-1"); });
  const int textShown = panel.shownRunCount();
  const double fields =
      timedMs([&] { panel.setFilterText("status:finished precision=bf16 tag:sweep-3"); });
  const int fieldShown = panel.shownRunCount();
  const double configFirst = timedMs([&] { panel.setFilterText("SOLVER.BASE_LR<0.05"); });
  const int configShown = panel.shownRunCount();
  const double configAgain =
      timedMs([&] { panel.setFilterText("SOLVER.BASE_LR=0.025 TRAIN.BATCH_SIZE>=16"); });
  const double figure = timedMs([&] { panel.setFilterText("best>75 hours<2"); });
  const double cleared = timedMs([&] { panel.setFilterText(""); });
  const double sort = timedMs(
      [&] { panel.table()->sortByColumn(widgets::RunListPanel::BestTop1, Qt::DescendingOrder); });
  QApplication::processEvents();
  const double paint = timedMs([&] { panel.table()->viewport()->repaint(); });
  const double rssEnd = residentMiB();
  std::printf("run list of %d runs (%d being written):\n", panel.runCount(), kLive);
  std::printf("  first listing (every run.json; GUI thread):          %8.1f ms\n", first);
  std::printf(
      "  then every metrics log read and shown (worker):      %8.1f ms; GUI timer late "
      "by median %.1f, p99 %.1f, max %.1f ms meanwhile\n",
      figures, late(0.5), late(0.99), late(1.0));
  std::printf("  refresh, nothing changed:                            %8.1f ms\n", again);
  std::printf(
      "  refresh, %d runs wrote a step and their run.json:    %8.1f ms (+%.1f ms until "
      "their figures are shown: logs read whole)\n",
      kLive, live, liveFigures);
  std::printf("  the same again (their logs followed):                %8.1f ms (+%.1f ms)\n",
              liveLater, liveLaterFigures);
  std::printf("  filter 'sweep-1' (text):                             %8.1f ms (%d shown)\n", text,
              textShown);
  std::printf("  filter status/precision/tag:                         %8.1f ms (%d shown)\n",
              fields, fieldShown);
  std::printf("  filter SOLVER.BASE_LR<0.05, configs read:            %8.1f ms (%d shown)\n",
              configFirst, configShown);
  std::printf("  filter two config keys, configs cached:              %8.1f ms\n", configAgain);
  std::printf("  filter best>75 hours<2:                              %8.1f ms\n", figure);
  std::printf("  filter cleared:                                      %8.1f ms\n", cleared);
  std::printf("  sort by best val top-1:                              %8.1f ms\n", sort);
  std::printf("  repaint of the visible rows:                         %8.1f ms\n", paint);
  std::printf(
      "memory (RSS): %.0f MiB before the panel, %.0f MiB listed (+%.1f), %.0f MiB with the "
      "figures (+%.1f), %.0f MiB after the filters (+%.1f)\n",
      rssBefore, rssListed, rssListed - rssBefore, rssFigures, rssFigures - rssBefore, rssEnd,
      rssEnd - rssBefore);
  return 0;
}

}  // namespace amp::bench
