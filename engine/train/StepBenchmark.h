#pragma once
// Times the training step (forward + loss + backward + optimizer step) of a config's model in
// FP32 and in mixed precision, side by side in one run: on random clips (bench step, bench
// precision --synthetic) or on the config's training set (bench precision), through the same
// TrainStep, optimizer and schedule as the trainer. Torch-free header for the CLI.
#include <cstdint>
#include <string>
#include <vector>

namespace amp::config {
class Config;
}

namespace amp::train {

struct StepBenchOptions {
  int batch = 1;
  int iterations = 5;
  int warmup = 1;
  int threads = 0;  ///< CPU threads (0: all cores)
  std::vector<std::string> precisions = {"fp32", "amp"};
  bool real_data = false;  ///< clips from DATA.PATH_TO_DATA_DIR's train list instead of random ones
  bool max_batch = false;  ///< also search the largest batch that fits (CUDA only)
  /// CUDA: FP32 convolutions and matrix products may use TF32 (1), may not (0: IEEE FP32, as a
  /// V100 computes), or PyTorch's defaults (-1: cuDNN may, cuBLAS may not).
  int tf32 = -1;
};

struct StepBenchResult {
  std::string precision;  ///< "fp32", "bf16" or "fp16"
  std::string device;     ///< "cpu" or "cuda:0"
  double median_step_s = 0;
  double median_forward_s = 0;  ///< the median step's forward and loss
  double median_backward_s =
      0;  ///< the median step's backward (with the recomputation under activation checkpointing)
  double iterations_per_s = 0;
  double clips_per_s = 0;
  double macs_per_step = 0;     ///< forward multiply-adds x 3 (forward + backward)
  double achieved_flops = 0;    ///< 2 x macs_per_step / median step time
  std::int64_t peak_bytes = 0;  ///< CUDA: allocator peak; CPU: peak RSS growth during the run
  double first_loss = 0, last_loss = 0;
  bool finite = true;
  int batch = 0;
  double data_wait_s = 0;  ///< mean wait for the next batch (real data)
  int skipped_steps = 0;   ///< steps the gradient scaler skipped
  double final_loss_scale = 1.0;
  int max_batch = 0;  ///< largest batch found to fit, within 1/16 (0: not searched)
  bool tf32_cudnn = false, tf32_cublas = false;  ///< CUDA: whether FP32 math could use TF32
};

/// Engine overhead: the config's model and batch trained through the Trainer (events, metrics
/// log, progress, LR schedule, grad norm: everything but data decoding, which both sides skip
/// by training on one fixed random batch) against a bare LibTorch loop (zero_grad, forward under
/// autocast, loss, backward, scaler step) with no logging. Rounds alternate bare / trainer.
struct OverheadOptions {
  int iterations = 20;  ///< timed iterations per round
  int warmup = 5;       ///< untimed iterations first
  int rounds = 8;
  std::string work_dir;  ///< where the trainer's throw-away run directories go
};
struct OverheadResult {
  std::string precision, device;
  int batch = 0;
  std::vector<double> bare_s, trainer_s;  ///< median seconds per iteration, one per round
  std::vector<double>
      bookkeeping_s;  ///< per round: the trainer's time between steps outside the step itself
  double bare_median_s = 0, trainer_median_s = 0, bookkeeping_median_s = 0;
  double overhead = 0;  ///< median over rounds of trainer / bare, minus 1
};
[[nodiscard]] bool benchmarkEngineOverhead(const config::Config& cfg,
                                           const OverheadOptions& options, OverheadResult& out,
                                           std::string* error);

/// Runs the benchmark. False with `error` naming the config key or device problem.
[[nodiscard]] bool benchmarkTrainingStep(const config::Config& cfg, const StepBenchOptions& options,
                                         std::vector<StepBenchResult>& out, std::string* error);

}  // namespace amp::train
