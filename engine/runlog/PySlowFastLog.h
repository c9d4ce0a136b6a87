#pragma once
// PySlowFast's own run logs read as a run (read-only): the `json_stats: {...}` lines its
// logging.log_json_stats writes to OUTPUT_DIR/json_stats.log and, behind the logger's prefix, to
// stdout.log. train_iter, train_epoch, val_epoch and test_final records become the studio's
// train / epoch / val / test events, so a run trained in Python and one trained here overlay in
// the comparison view (by step or by epoch).
#include <cstdint>
#include <optional>
#include <string>

#include "runlog/MetricEvent.h"

namespace amp::runlog {

/// What a PySlowFast log tells about itself as it is read (records before the first train_iter
/// have no iterations-per-epoch to place them on the step axis).
struct PySlowFastLogState {
  std::int64_t iters_per_epoch = 0;
};

/// One line; nullopt when it holds no json_stats record or one of a kind not charted (val_iter,
/// test_iter, self-supervised records).
/// Mapping: loss, lr, grad_norm, top1_err, top5_err as they are; dt -> iter_time_s, dt_data ->
/// data_wait_s, gpu_mem "5.63G" (torch.cuda.max_memory_allocated) -> mem_peak_bytes; the step is
/// (epoch - 1) x iterations per epoch + iter; test_final's top1_acc/top5_acc -> top1_err/top5_err.
std::optional<MetricEvent> parsePySlowFastStats(const std::string& line, PySlowFastLogState& state);

/// The stats file of a PySlowFast OUTPUT_DIR: json_stats.log, else stdout.log when it holds
/// json_stats lines; "" when the folder has neither (or is one of ours: run.json).
std::string pySlowFastStatsFile(const std::string& dir);

/// True for a file name PySlowFast writes its stats to (json_stats.log, stdout.log).
bool isPySlowFastStatsPath(const std::string& path);

}  // namespace amp::runlog
