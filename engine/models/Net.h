#pragma once
// Base of every video network: a list of pathway tensors (N x C x T x H x W) in, logits out.
// Internal to the engine (includes LibTorch); front ends use ModelFactory.h.
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace amp::models {

/// How a sync batch norm sees the other processes of its group: every member's vector, in
/// group order, differentiably (the gradient of a member's row flows back to that member). Set
/// by data-parallel training (engine/dist), never by the models.
class BatchNormSync {
 public:
  virtual ~BatchNormSync() = default;
  /// G x D: the D-vector of each of the G group members.
  virtual torch::Tensor gatherGroup(const torch::Tensor& vec) = 0;
};

/// Batch norm over N x C x T x H x W with torch's BatchNorm3d parameters, buffers and
/// state-dict names (weight, bias, running_mean, running_var, num_batches_tracked) and its
/// arithmetic. Given a BatchNormSync and in training mode, it normalises with the statistics of
/// its whole group as PySlowFast's BN.NORM_TYPE sync_batchnorm does (NaiveSyncBatchNorm3d: the
/// group's mean and biased variance, each member weighted equally, the biased variance also in
/// the running statistics). The variance is combined from each member's own mean and variance
/// (the parallel-variance formula), which equals PySlowFast's E[x^2] - E[x]^2 without its
/// cancellation in float32. (Its own class: LibTorch's BatchNorm3dImpl cannot be derived from
/// outside the library, whose template base is not exported.)
class SyncableBatchNorm3dImpl : public torch::nn::Cloneable<SyncableBatchNorm3dImpl> {
 public:
  explicit SyncableBatchNorm3dImpl(int64_t channels, double eps = 1e-5, double momentum = 0.1);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  torch::Tensor forward(const torch::Tensor& input);
  void setSync(std::shared_ptr<BatchNormSync> sync) { sync_ = std::move(sync); }
  double momentum() const { return momentum_; }
  /// Precise BN sets 1 (running statistics = the last batch's) and restores it afterwards.
  void setMomentum(double m) { momentum_ = m; }
  bool synced() const { return sync_ != nullptr; }
  /// PySlowFast's sub_batchnorm (SubBatchNorm3d, BN.NUM_SPLITS): in training the batch is
  /// normalised in `splits` groups of clips (clip n in group n % splits), each with its own
  /// statistics and running statistics, then scaled by the one weight and bias. The registered
  /// running_mean / running_var always hold the groups' merged statistics (mean of the means;
  /// mean of the variances plus the variance of the means), which evaluation uses and checkpoints
  /// keep, so a state dict stays plain batch norm. Setting the splits (1: plain batch norm)
  /// starts every group's running statistics from the merged ones, as PySlowFast's
  /// normal_to_sub_bn does on loading.
  void setSplits(int64_t splits);
  int64_t splits() const { return splits_; }
  /// The groups' running statistics, splits x C (only with splits > 1).
  torch::Tensor& splitMean() { return splitMean_; }
  torch::Tensor& splitVar() { return splitVar_; }
  /// running_mean / running_var from the groups' running statistics.
  void mergeSplits();

  torch::Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 private:
  int64_t channels_;
  double eps_, momentum_;
  std::shared_ptr<BatchNormSync> sync_;
  int64_t splits_ = 1;
  torch::Tensor splitMean_, splitVar_;  ///< splits x C, not in the state dict
};
TORCH_MODULE(SyncableBatchNorm3d);
/// The batch norm every model is built with.
using BatchNorm3d = SyncableBatchNorm3d;

class VideoNetImpl : public torch::nn::Module {
 public:
  /// Training: logits (N x classes). Evaluation: the head activation averaged over any
  /// remaining positions, as PySlowFast's heads do.
  virtual torch::Tensor forward(std::vector<torch::Tensor> pathways) = 0;
  /// Detection (DETECTION.ENABLE, PySlowFast's forward(x, bboxes)): `boxes` is K x 5, each row
  /// the index of its clip in the batch, then x1, y1, x2, y2 in the input's pixels; returns
  /// K x classes, one row of scores per box, the head's activation applied in training too (as
  /// PySlowFast's ResNetRoIHead). Throws std::logic_error for a model built without detection;
  /// such a model's forward(pathways) is the one to call.
  virtual torch::Tensor forward(std::vector<torch::Tensor> pathways, const torch::Tensor& boxes);
  /// Whether the model was built with DETECTION.ENABLE: then only forward(pathways, boxes) runs.
  virtual bool detection() const { return false; }
  /// Name fragments of parameters trained without weight decay (PySlowFast's no_weight_decay,
  /// e.g. MViT's positional embeddings and class token when MVIT.ZERO_DECAY_POS_CLS).
  virtual std::vector<std::string> noWeightDecayNames() const { return {}; }
};

/// Batch norms whose weight starts at zero with RESNET.ZERO_INIT_FINAL_BN (the last BN of each
/// residual transform, as PySlowFast's `transform_final_bn`), and convolutions whose weight starts
/// at zero with RESNET.ZERO_INIT_FINAL_CONV (PySlowFast marks `final_conv` on the basic
/// transform's b and the X3D transform's c only; the bottleneck's c is not one).
struct FinalBnRegistry {
  std::vector<BatchNorm3d> bns;
  std::vector<torch::nn::Conv3d> convs;
};

/// PySlowFast's init_weights: MSRA fill (fan_out, relu) for 3D convolutions, ones/zeros for
/// batch norm (zeros for the final ones when zeroInitFinalBn), normal(0, fcInitStd) for linear.
void initWeights(torch::nn::Module& net, double fcInitStd, bool zeroInitFinalBn,
                 const FinalBnRegistry& finals, bool zeroInitFinalConv = false);

/// Counts multiply-accumulates of convolutions, linear layers and attention products on this
/// thread while it lives (fvcore's convention, which PySlowFast reports as "FLOPs": one
/// multiply-add is one FLOP; normalisation and activations are not counted).
class FlopCounter {
 public:
  FlopCounter();
  ~FlopCounter();
  FlopCounter(const FlopCounter&) = delete;
  FlopCounter& operator=(const FlopCounter&) = delete;
  std::int64_t macs() const;
  static void add(std::int64_t macs);

 private:
  std::int64_t* previous_;
  std::int64_t count_ = 0;
};

/// Applies a layer and counts its multiply-adds when a FlopCounter is active.
torch::Tensor run(torch::nn::Conv3d& conv, const torch::Tensor& x);
torch::Tensor run(torch::nn::Linear& fc, const torch::Tensor& x);

/// ReLU as PySlowFast's nn.ReLU(inplace): in place, the ReLU writes over its input (a batch
/// norm's or a sum's output, which their backward does not need) instead of allocating a second
/// activation-sized buffer while both are alive, which lowers the peak. A view (sub-batch norm's
/// regrouped output) is done out of place: in place, autograd would copy it back in backward.
torch::Tensor relu(torch::Tensor x, bool inplace = true);

/// BatchNorm3d with PySlowFast's eps 1e-5 and momentum 0.1.
BatchNorm3d batchNorm(int64_t channels);
/// Gives every batch norm of `net` the statistics sync `sync` (nullptr: plain batch norm again).
/// Returns how many it reached.
int setBatchNormSync(torch::nn::Module& net, const std::shared_ptr<BatchNormSync>& sync);
/// BN.NUM_SPLITS of every batch norm of `net` (1: plain batch norm); returns how many.
int setBatchNormSplits(torch::nn::Module& net, int64_t splits);
/// PySlowFast's misc.frozen_bn_stats (MODEL.FROZEN_BN): every batch norm of `net` in evaluation
/// mode, so that it normalises with its running statistics and leaves them as they are, while
/// its weight and bias still learn; the next net.train() undoes it. PySlowFast matches
/// nn.BatchNorm3d, which its sync batch norm derives from and its sub batch norm holds (there the
/// frozen split statistics, copies of the merged ones since loading, normalise each group: the
/// same as the merged statistics this model's sub batch norm uses in evaluation). Returns how
/// many.
int freezeBatchNormStats(torch::nn::Module& net);
/// Conv3d without bias.
torch::nn::Conv3d conv3d(int64_t in, int64_t out, std::vector<int64_t> kernel,
                         std::vector<int64_t> stride, std::vector<int64_t> padding,
                         int64_t groups = 1, std::vector<int64_t> dilation = {1, 1, 1},
                         bool bias = false);

}  // namespace amp::models
