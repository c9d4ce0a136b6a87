#pragma once
// A finished run folder written the way the trainer writes one (run.json, config.yaml,
// metrics.jsonl), for the suites that read runs: comparison, the studio's window.
//
//   amp::testsupport::recordRun(dir.filePath("fp32"), "fp32", "fp32", 1.0, 900, 40, "TRAIN:\n
//   BATCH_SIZE: 8\n");
//   amp::testsupport::recordMultiLabelRun(dir.filePath("charades"), "charades", "bf16", 1.0, 900,
//                                         0.35, 0.413, "DATA:\n  MULTI_LABEL: True\n");
#include <QString>
#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runlog/MetricsWriter.h"
#include "runlog/RunDirectory.h"

namespace amp::testsupport {

// A finished run of 20 steps: loss from 2 down, 1 s per step / `speed`, peak memory `memMiB`
// MiB, and a validation at each of `vals` (step, values).
inline void recordRunWith(const QString& dir, const std::string& name, const std::string& precision,
                          double speed, double memMiB, const std::string& yaml, double lossScale,
                          const std::vector<std::pair<int, std::map<std::string, double>>>& vals) {
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
  for (const auto& [step, values] : vals) {
    runlog::MetricEvent val;
    val.kind = runlog::kind::kVal;
    val.step = step;
    val.epoch = step / 10.0;
    val.time_s = step / speed;
    val.values = values;
    QVERIFY(w.write(val, nullptr));
  }
  runlog::MetricEvent epoch;
  epoch.kind = runlog::kind::kEpoch;
  epoch.step = 20;
  epoch.epoch = 2;
  epoch.values = {{"loss", 1.0}};
  QVERIFY(w.write(epoch, nullptr));
}

// A finished run validated once, at its end, with `finalErr` percent top-1 error.
inline void recordRun(const QString& dir, const std::string& name, const std::string& precision,
                      double speed, double memMiB, double finalErr, const std::string& yaml,
                      double lossScale = 1.0) {
  recordRunWith(dir, name, precision, speed, memMiB, yaml, lossScale,
                {{20, {{"top1_err", finalErr}}}});
}

// A finished multi-label run (Charades: DATA.MULTI_LABEL): validated at steps 10 and 20 with
// mean average precision `maps` (fractions) and no top-1, as PySlowFast's json_stats.
inline void recordMultiLabelRun(const QString& dir, const std::string& name,
                                const std::string& precision, double speed, double memMiB,
                                double firstMap, double secondMap, const std::string& yaml) {
  recordRunWith(dir, name, precision, speed, memMiB, yaml, 1.0,
                {{10, {{"map", firstMap}, {"max_map", firstMap}}},
                 {20, {{"map", secondMap}, {"max_map", std::max(firstMap, secondMap)}}}});
}

}  // namespace amp::testsupport
