#pragma once
// Trainer::Impl, the state and steps of one run on the engine thread (PySlowFast's run_net for
// one process), shared by TrainerRun.cpp (the run and its epochs), TrainerData.cpp (lists,
// loaders, multigrid phases, batches) and TrainerEval.cpp (validation, precise BN, the
// multi-view test). Internal to engine/train.
#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/Config.h"
#include "config/LrSchedule.h"
#include "data/Dataset.h"
#include "data/VideoLoader.h"
#include "models/VideoModels.h"
#include "multigrid/Schedule.h"
#include "runlog/RunRecorder.h"
#include "train/DataParallel.h"
#include "train/EvalAnalysis.h"
#include "train/LossExplosion.h"
#include "train/Mixup.h"
#include "train/TrainStep.h"
#include "train/Trainer.h"

namespace amp::train {
// The members are built in this order (prepare(), then the data, the model, the position) and
// destroyed in reverse: the model and the loaders before the process group they use.
struct Trainer::Impl {
  Impl(Trainer& trainer, runlog::RunRecorder& record) : t(trainer), rec(record) {}

  Trainer& t;
  runlog::RunRecorder& rec;

  using Clock = std::chrono::steady_clock;
  /// Seconds since `t0`.
  static double since(Clock::time_point t0);
  /// Top-1 and top-5 error (%) of a batch: PySlowFast's topks_correct.
  static std::pair<double, double> topErrors(const torch::Tensor& logits,
                                             const torch::Tensor& labels);
  /// The batch's clips on the device, in tensors that own their memory (the batch's buffers go
  /// back to the loader): a copy to the GPU, a clone on the CPU.

  // An epoch's training averages (the "epoch" record).
  struct EpochTotals {
    double loss = 0, top1 = 0, top5 = 0;
    int iterations = 0;
  };

  // The run: multigrid's schedule, the config it trains with (the user's, or the first phase's),
  // device, process group and precision.
  std::optional<multigrid::Schedule> mg;
  int machineProcesses = 1;
  const multigrid::Phase* firstPhase = nullptr;
  config::Config c;
  torch::Device device{torch::kCPU};
  std::unique_ptr<DataParallel> ddp;
  PrecisionPolicy policy;
  bool channelsLast = false;
  bool cuda = false;
  bool tensorBoardWanted = false;
  bool earlierLog = false;  // the metrics log holds lines of an earlier start in this folder
  std::string resumeFrom;

  // Data: loaders rebuilt for each multigrid phase.
  data::SampleList trainList, valList;
  /// Multi-label dataset (Charades): multi-hot targets, mAP instead of top-1 (as PySlowFast's
  /// meters with DATA.MULTI_LABEL).
  bool multiLabel = false;
  std::int64_t accum = 1;
  std::unique_ptr<data::VideoLoader> trainLoader, valLoader, preciseLoader;
  std::int64_t itersPerEpoch = 0;
  const multigrid::Phase* loadersPhase = nullptr;
  std::int64_t totalSteps = 0;

  // Model, optimizer, schedule, precision.
  std::shared_ptr<models::VideoNetImpl> net;
  std::vector<double> layerDecay;  // SOLVER.LAYER_DECAY's multiplier of each parameter group
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<TrainStep> stepper;
  bool scaling = false;
  std::string noScaler;
  MicroBatch syntheticBatch;
  std::unique_ptr<config::LrSchedule> schedule;
  MixupParams mixup;
  double killFactor = 0;
  int maxEpoch = 0, evalPeriod = 1, checkpointPeriod = 1;
  std::int64_t maxSkipped = 0;
  double minScale = 0;

  // Where the run is.
  int startEpoch = 0;
  std::int64_t step = 0, startIter = 0;
  double bestTop1 = 100.0;
  double bestMap = 0.0;  ///< multi-label runs: the best validation mAP (a fraction)
  const multigrid::Phase* phase = nullptr;
  int skippedInARow = 0;
  std::unique_ptr<LossExplosionGuard> explosion;
  /// Single-label evaluations' confusion matrices and figures (made at the first evaluation).
  std::unique_ptr<EvalAnalysis> analysis;
  EvalAnalysis& evalAnalysis();

  void run();
  void prepare();
  void describeRun();
  void finish(TrainerState s, const std::string& err);
  bool multiViewTest(models::VideoNetImpl& model, std::string weights, std::int64_t atStep,
                     double atEpoch);
  void testOnly();
  data::SampleList readList(const char* split) const;
  std::unique_ptr<data::VideoLoader> makeTrainLoader(const config::Config& pc,
                                                     const multigrid::Phase* ph) const;
  void buildLoaders(const config::Config& pc, const multigrid::Phase* ph);
  void prepareData();
  void buildModel();
  void restore();
  std::string preTrainedCheckpoint() const;
  void enterPhase(int epoch);
  void checkpoint(int epochsDone, std::int64_t iterInEpoch);
  bool stopAgreed();
  void validate(int epoch, int tbEpoch);
  void recordValConfusion(const torch::Tensor& perVideo, int epoch, int tbEpoch);
  void validateMultiLabel(int epoch, int tbEpoch);
  void validateDetection(int epoch, int tbEpoch);
  bool waitWhilePaused();
  std::vector<MicroBatch> nextMicroBatches(int epoch, std::int64_t it, double& dataWait);
  void checkStep(const StepOutcome& out, double fracEpoch);
  void recordStep(const StepOutcome& out, double top1, double top5, double lr, double iterTime,
                  double dataWait, int epoch, std::int64_t it);
  bool trainEpoch(int epoch);
  void preciseBn(int epoch);
  void endEpoch(int epoch, const EpochTotals& totals);
};

}  // namespace amp::train
