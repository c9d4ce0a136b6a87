#pragma once
// A finished run folder written the way the trainer writes one (run.json, config.yaml,
// metrics.jsonl), for the suites that read runs: comparison, the studio's window.
//
//   amp::testsupport::recordRun(dir.filePath("fp32"), "fp32", "fp32", 1.0, 900, 40, "TRAIN:\n
//   BATCH_SIZE: 8\n");
#include <QString>
#include <fstream>
#include <string>

#include "runlog/MetricsWriter.h"
#include "runlog/RunDirectory.h"

namespace amp::testsupport {

// A finished run of `steps` steps: loss from 2 down, 10 s per step / `speed`, peak memory `mem`
// MiB.
inline void recordRun(const QString& dir, const std::string& name, const std::string& precision,
                      double speed, double memMiB, double finalErr, const std::string& yaml,
                      double lossScale = 1.0) {
  runlog::RunDirectory run(dir.toStdString());
  QVERIFY(run.ensureExists(nullptr));
  runlog::RunMetadata m;
  m.name = name;
  m.status = runlog::RunStatus::Finished;
  m.precision = precision;
  m.startedAt = 1.79e9;
  m.endedAt = 1.79e9 + 100;
  QVERIFY(run.writeMetadata(m, nullptr));
  std::ofstream(run.configPath()) << yaml;
  runlog::MetricsWriter w;
  QVERIFY(w.open(run.metricsPath(), nullptr));
  for (int s = 1; s <= 20; ++s) {
    runlog::MetricEvent e;
    e.step = s;
    e.epoch = s / 10.0;
    e.time_s = s * 1.0 / speed;
    e.values = {{"loss", 2.0 - s * 0.05},
                {"iter_time_s", 1.0 / speed},
                {"clips_per_s", 8 * speed},
                {"lr", 0.1},
                {"loss_scale", lossScale},
                {"skipped", 0.0},
                {"mem_peak_rss_bytes", memMiB * 1024 * 1024}};
    QVERIFY(w.write(e, nullptr));
  }
  runlog::MetricEvent val;
  val.kind = runlog::kind::kVal;
  val.step = 20;
  val.epoch = 2;
  val.time_s = 20.0 / speed;
  val.values = {{"top1_err", finalErr}};
  QVERIFY(w.write(val, nullptr));
  runlog::MetricEvent epoch;
  epoch.kind = runlog::kind::kEpoch;
  epoch.step = 20;
  epoch.epoch = 2;
  epoch.values = {{"loss", 1.0}};
  QVERIFY(w.write(epoch, nullptr));
}

}  // namespace amp::testsupport
