// Trainer::Impl's evaluation (TrainerImpl.h): validation, precise batch-norm statistics and the
// multi-view test after training or in a test-only run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "metrics/ConfusionRecord.h"
#include "metrics/MeanAveragePrecision.h"
#include "train/DetectionEval.h"
#include "train/EvalAnalysis.h"
#include "train/MultiViewTest.h"
#include "train/PerClassAp.h"
#include "train/PreciseBn.h"
#include "train/TrainerImpl.h"
#include "util/FaultInjection.h"

namespace amp::train {

EvalAnalysis& Trainer::Impl::evalAnalysis() {
  if (!analysis) analysis = std::make_unique<EvalAnalysis>(c, rec);
  return *analysis;
}

// PySlowFast's run_net: train when TRAIN.ENABLE, then the multi-view test when TEST.ENABLE, in
// FP32 on the model as trained (the last checkpoint) unless TEST.CHECKPOINT_FILE_PATH names
// another. With several ranks each tests its share of the views. False when stopped meanwhile.
bool Trainer::Impl::multiViewTest(models::VideoNetImpl& model, std::string weights,
                                  std::int64_t atStep, double atEpoch) {
  const config::Config& cfg = t.cfg_;
  if (const std::string other = cfg.getString("TEST.CHECKPOINT_FILE_PATH"); !other.empty()) {
    loadTestWeights(cfg, other, model);
    weights = other;
  }
  // TEST.NUM_TEMPORAL_CLIPS: one test per number of temporal clips, as test_net.py.
  for (const int clips : temporalClipCounts(cfg)) {
    const config::Config tc = withTemporalClips(cfg, clips);
    const auto params = data::ClipParams::fromConfig(tc);
    rec.event("testing",
              "multi-view test of " + weights + ": " + std::to_string(params.viewsPerTestVideo()) +
                  " views per video (" + std::to_string(clips) +
                  " temporal clips x TEST.NUM_SPATIAL_CROPS)",
              atStep, atEpoch);
    TestOptions options;
    options.cancel = &t.stopRequested_;
    TestResult r;
    try {
      testLoadedModel(tc, model, device, channelsLast, *ddp, options, r);
    } catch (const TestCancelled&) {
      return false;  // stopped while testing, here or on another rank: the run is complete
                     // otherwise
    } catch (const std::exception&) {
      if (t.stopRequested_) return false;
      throw;
    }
    runlog::MetricEvent e;
    e.kind = runlog::kind::kTest;
    e.step = atStep;
    e.epoch = atEpoch;
    e.values = {{"videos", static_cast<double>(r.videos)},
                {"views_per_video", static_cast<double>(r.views_per_video)},
                {"temporal_clips", static_cast<double>(clips)}};
    if (r.detection) {  // AVA: frame-mAP over the keyframes' boxes
      e.values["map"] = r.map;
      e.values["boxes"] = static_cast<double>(r.boxes);
      rec.record(e);
      rec.recordPerClass(r.per_class_ap, atStep, atEpoch);
      char line[240];
      std::snprintf(line, sizeof line,
                    "test: frame-mAP@0.5IoU %.4f over %lld boxes on %d keyframes (%d classes with "
                    "ground truth)%s%s",
                    r.map, static_cast<long long>(r.boxes), r.videos, r.map_classes,
                    r.detections_csv.empty() ? "" : "; detections: ", r.detections_csv.c_str());
      rec.log(line);
      continue;
    }
    if (r.multi_label) {
      e.values["map"] = r.map;
      rec.record(e);
      rec.recordPerClass(r.per_class_ap, atStep, atEpoch);
      char line[200];
      std::snprintf(line, sizeof line,
                    "test: mAP %.4f over %d videos x %d views (%d temporal clips; %d classes with "
                    "a positive video)",
                    r.map, r.videos, r.views_per_video, clips, r.map_classes);
      rec.log(line);
      continue;
    }
    e.values.insert(
        {{"top1_err", r.top1_err}, {"top5_err", r.top5_err}, {"view_top1_err", r.view_top1_err}});
    rec.record(e);
    auto confusion = testConfusionRecord(r, static_cast<int>(c.getInt("MODEL.NUM_CLASSES")),
                                         tc.getString("DATA.ENSEMBLE_METHOD") == "max", weights);
    evalAnalysis().record(std::move(confusion), atStep, atEpoch, 0);
    char line[240];
    std::snprintf(line, sizeof line,
                  "test: top-1 error %.2f%%, top-5 %.2f%% over %d videos x %d views (%d temporal "
                  "clips; one view: %.2f%%)",
                  r.top1_err, r.top5_err, r.videos, r.views_per_video, clips, r.view_top1_err);
    rec.log(line);
  }
  return true;
}

// TRAIN.ENABLE False: PySlowFast's test_net on the checkpoint it names or the run's last.
void Trainer::Impl::testOnly() {
  if (t.synthetic_)
    throw std::runtime_error("TRAIN.ENABLE: False; random clips are for training benchmarks");
  if (!c.getBool("TEST.ENABLE"))
    throw std::runtime_error(
        "TRAIN.ENABLE and TEST.ENABLE are both False: nothing to run; set one of them to True");
  const std::string weights = testCheckpoint(c);
  if (weights.empty())
    throw std::runtime_error(
        "TRAIN.ENABLE: False, and there is no checkpoint to test: set TEST.CHECKPOINT_FILE_PATH "
        "(or "
        "TRAIN.CHECKPOINT_FILE_PATH), or train into OUTPUT_DIR first");
  net = models::buildVideoNet(c);
  loadTestWeights(c, weights, *net);
  net->to(device);
  if (channelsLast) toChannelsLast3d(*net);
  finish(multiViewTest(*net, weights, 0, 0) ? TrainerState::Finished : TrainerState::Stopped, "");
}

// Validation, in FP32 as PySlowFast, of the clips the loader draws for `epoch` (0-based); the
// records carry epoch + 1, TensorBoard's steps are len(val_loader) * tbEpoch + cur_iter.
void Trainer::Impl::validate(int epoch, int tbEpoch) {
  if (valList.kind == data::DatasetKind::Ava) return validateDetection(epoch, tbEpoch);
  if (multiLabel) return validateMultiLabel(epoch, tbEpoch);
  torch::NoGradGuard noGrad;
  net->eval();
  valLoader->startEpoch(epoch);
  double correct1 = 0, correct5 = 0, n = 0, lossSum = 0;
  std::vector<double>
      batchCounts;  // per batch: clips wrong at top-1, at top-5, clips (TensorBoard)
  const std::string headAct = t.cfg_.getString("MODEL.HEAD_ACT");
  // Per video of the list: clips seen, then the last clip's top-1, its score, the true class's
  // score and rank; summed over the ranks (each clip is seen by one), for the confusion matrix.
  auto perVideo =
      torch::zeros({static_cast<std::int64_t>(valList.videos.size()), 5}, torch::kDouble);
  auto pv = perVideo.accessor<double, 2>();
  while (auto vb = valLoader->next()) {
    if (t.stopRequested_) break;
    auto inputs = batchTensors(*vb, device, channelsLast);
    auto labels = torch::tensor(vb->labels, torch::kLong).to(device);
    auto probs = net->forward(inputs);
    // Cross entropy from what the head gives: probabilities (softmax) or logits (none); a sigmoid
    // head's outputs are no distribution over the classes, so no loss is logged.
    if (headAct == "softmax")
      lossSum += torch::nn::functional::nll_loss(torch::log(probs.clamp_min(1e-12)), labels)
                     .item<double>() *
                 labels.size(0);
    else if (headAct == "none")
      lossSum +=
          torch::nn::functional::cross_entropy(probs.to(torch::kFloat), labels).item<double>() *
          labels.size(0);
    const auto [e1, e5] = topErrors(probs, labels);
    correct1 += (100.0 - e1) * labels.size(0) / 100.0;
    correct5 += (100.0 - e5) * labels.size(0) / 100.0;
    n += static_cast<double>(labels.size(0));
    {
      const auto p = probs.to(torch::kCPU, torch::kDouble);
      const auto truth = labels.to(torch::kCPU).unsqueeze(1);
      const auto [score, pred] = p.max(1);
      const auto trueScore = p.gather(1, truth);
      const auto rank = (p > trueScore).sum(1);
      for (int i = 0; i < vb->size; ++i) {
        const auto v = static_cast<std::int64_t>(vb->videos[static_cast<std::size_t>(i)]);
        if (v < 0 || v >= perVideo.size(0)) continue;
        pv[v][0] = pv[v][0] == 0 ? 1 : 2;  // more than one clip: not one sample's row
        pv[v][1] = static_cast<double>(pred[i].item<std::int64_t>());
        pv[v][2] = score[i].item<double>();
        pv[v][3] = trueScore[i][0].item<double>();
        pv[v][4] = static_cast<double>(rank[i].item<std::int64_t>() + 1);
      }
    }
    if (tensorBoardWanted)
      batchCounts.insert(batchCounts.end(),
                         {e1 * labels.size(0) / 100.0, e5 * labels.size(0) / 100.0,
                          static_cast<double>(labels.size(0))});
    valLoader->recycle(std::move(*vb));
    util::killIfArmed("validation");
  }
  valLoader->stop();
  if (!valLoader->error().empty()) throw std::runtime_error(valLoader->error());
  const bool stopped = stopAgreed();  // a rank stopped inside: no result for the set
  // Each rank evaluated its own share: the counts add up to one process's over the whole set.
  std::tie(correct1, correct5, n, lossSum) = ddp->sum(correct1, correct5, n, lossSum);
  ddp->sumInPlace(perVideo, "validation predictions per video");
  if (tensorBoardWanted) {
    // PySlowFast: each batch's errors averaged over the ranks, at len(val_loader) * cur_epoch +
    // cur_iter. Ranks' shares differ by at most one clip; batch i pools rank r's batch i.
    auto batches = torch::tensor({static_cast<double>(batchCounts.size() / 3)}, torch::kDouble);
    ddp->maxInPlace(batches, "validation batches");
    const auto perRank = static_cast<std::int64_t>(batches.item<double>());
    auto counts = torch::zeros({perRank * 3}, torch::kDouble);
    std::copy(batchCounts.begin(), batchCounts.end(), counts.data_ptr<double>());
    ddp->sumInPlace(counts, "validation batch errors");
    const double* k = counts.data_ptr<double>();
    for (std::int64_t i = 0; i < perRank && !stopped; ++i)
      if (k[3 * i + 2] > 0)
        rec.toTensorBoard({{"Val/Top1_err", 100.0 * k[3 * i] / k[3 * i + 2]},
                           {"Val/Top5_err", 100.0 * k[3 * i + 1] / k[3 * i + 2]}},
                          perRank * tbEpoch + i, step, epoch + 1);
  }
  if (n > 0 && !stopped) {
    const double top1 = 100.0 * (1.0 - correct1 / n), top5 = 100.0 * (1.0 - correct5 / n);
    bestTop1 = std::min(bestTop1, top1);
    runlog::MetricEvent v;
    v.kind = runlog::kind::kVal;
    v.step = step;
    v.epoch = epoch + 1;
    v.values = {{"top1_err", top1}, {"top5_err", top5}, {"min_top1_err", bestTop1}};
    if (headAct != "sigmoid") v.values["loss"] = lossSum / n;
    rec.record(v);
    recordValConfusion(perVideo, epoch, tbEpoch);
    char line[160];
    std::snprintf(line, sizeof line,
                  "epoch %d/%d: val top-1 error %.2f%%, top-5 %.2f%%, best top-1 %.2f%%", epoch + 1,
                  maxEpoch, top1, top5, bestTop1);
    rec.log(line);
  }
}

// The validation's confusion matrix, one sample per clip as PySlowFast's ValMeter keeps its
// all_preds (a validation draws one clip per video). A video seen more than once (no loader here
// does: ranks share the videos without padding) is left out rather than counted wrongly.
void Trainer::Impl::recordValConfusion(const torch::Tensor& perVideo, int epoch, int tbEpoch) {
  const int classes = static_cast<int>(c.getInt("MODEL.NUM_CLASSES"));
  metrics::ConfusionRecord r;
  r.split = "val";
  r.unit = "clip";
  r.matrix = metrics::ConfusionMatrix(classes);
  const auto pv = perVideo.accessor<double, 2>();
  for (std::int64_t v = 0; v < perVideo.size(0); ++v) {
    if (pv[v][0] != 1) continue;
    const auto& s = valList.videos[static_cast<std::size_t>(v)];
    metrics::addSample(r, s.frames.empty() ? s.path : s.name, s.label, static_cast<int>(pv[v][1]),
                       pv[v][2], pv[v][3], static_cast<int>(pv[v][4]));
  }
  evalAnalysis().record(std::move(r), step, epoch + 1, tbEpoch);
}

// A multi-label run's validation (PySlowFast's ValMeter with DATA.MULTI_LABEL): the head's
// sigmoid scores of every clip and its multi-hot target, gathered over the ranks, then get_map.
// Each clip lands in its video's row, so the ranks' shares add up to one process's matrix.
void Trainer::Impl::validateMultiLabel(int epoch, int tbEpoch) {
  torch::NoGradGuard noGrad;
  net->eval();
  valLoader->startEpoch(epoch);
  const auto videos = static_cast<std::int64_t>(valList.videos.size());
  const std::int64_t classes = c.getInt("MODEL.NUM_CLASSES");
  // Per video: scores, targets, clips seen.
  auto rows = torch::zeros({videos, 2 * classes + 1}, torch::kDouble);
  while (auto vb = valLoader->next()) {
    if (t.stopRequested_) break;
    auto scores = net->forward(batchTensors(*vb, device, channelsLast))
                      .to(torch::kCPU, torch::kDouble)
                      .contiguous();
    const auto targets = torch::tensor(vb->targets, torch::kFloat)
                             .view({vb->size, vb->num_classes})
                             .to(torch::kDouble);
    for (int i = 0; i < vb->size; ++i) {
      auto row = rows[vb->videos[static_cast<std::size_t>(i)]];
      row.narrow(0, 0, classes) += scores[i];
      row.narrow(0, classes, classes) += targets[i];
      row[2 * classes] += 1;
    }
    valLoader->recycle(std::move(*vb));
    util::killIfArmed("validation");
  }
  valLoader->stop();
  if (!valLoader->error().empty()) throw std::runtime_error(valLoader->error());
  const bool stopped = stopAgreed();
  ddp->sumInPlace(rows, "validation scores and targets");
  const auto counts = rows.select(1, 2 * classes);
  const auto seen = rows.index({counts > 0});
  if (seen.size(0) == 0 || stopped) return;
  const auto perClip = seen.narrow(1, 0, 2 * classes) / seen.narrow(1, 2 * classes, 1);
  const auto scores = perClip.narrow(1, 0, classes).to(torch::kFloat).contiguous();
  const auto targets = perClip.narrow(1, classes, classes).to(torch::kFloat).contiguous();
  const auto m = metrics::meanAveragePrecision(scores.data_ptr<float>(), targets.data_ptr<float>(),
                                               static_cast<std::size_t>(seen.size(0)),
                                               static_cast<std::size_t>(classes));
  bestMap = std::max(bestMap, m.map);
  runlog::MetricEvent v;
  v.kind = runlog::kind::kVal;
  v.step = step;
  v.epoch = epoch + 1;
  v.values = {{"map", m.map}, {"max_map", bestMap}};
  rec.record(v);
  rec.recordPerClass(perClassAp(m, "val", classNames(c)), step, epoch + 1);
  rec.toTensorBoard({{"Val/mAP", m.map}}, tbEpoch, step, epoch + 1);
  char line[200];
  std::snprintf(line, sizeof line,
                "epoch %d/%d: val mAP %.4f over %d classes with a positive clip, best %.4f",
                epoch + 1, maxEpoch, m.map, m.classes_used, bestMap);
  rec.log(line);
}

// AVA's validation (PySlowFast's AVAMeter in val mode): every predicted box's scores, gathered
// over the ranks, scored by frame-mAP against the ground truth of every 4th second (every second
// with AVA.FULL_TEST_ON_VAL).
void Trainer::Impl::validateDetection(int epoch, int tbEpoch) {
  torch::NoGradGuard noGrad;
  net->eval();
  valLoader->startEpoch(epoch);
  BoxScores mine(c.getInt("MODEL.NUM_CLASSES"));
  while (auto vb = valLoader->next()) {
    if (t.stopRequested_) break;
    if (vb->num_boxes > 0)
      mine.add(net->forward(batchTensors(*vb, device, channelsLast), batchBoxes(*vb, device)), *vb);
    valLoader->recycle(std::move(*vb));
    util::killIfArmed("validation");
  }
  valLoader->stop();
  if (!valLoader->error().empty()) throw std::runtime_error(valLoader->error());
  const bool stopped = stopAgreed();
  const BoxScores all = gatherBoxScores(mine, *ddp);
  if (stopped || all.boxes() == 0) return;
  const auto r = evaluateBoxScores(c, all, *valList.ava, c.getBool("AVA.FULL_TEST_ON_VAL"));
  const double map = std::isnan(r.ava.map) ? 0.0 : r.ava.map;
  bestMap = std::max(bestMap, map);
  runlog::MetricEvent v;
  v.kind = runlog::kind::kVal;
  v.step = step;
  v.epoch = epoch + 1;
  v.values = {{"map", map}, {"max_map", bestMap}, {"boxes", static_cast<double>(r.boxes)}};
  rec.record(v);
  rec.recordPerClass(perClassAp(r.ava, "val"), step, epoch + 1);
  rec.toTensorBoard({{"Val/mAP", map}}, tbEpoch, step, epoch + 1);
  char line[220];
  std::snprintf(line, sizeof line,
                "epoch %d/%d: val frame-mAP@0.5IoU %.4f over %d classes with ground truth (%lld "
                "boxes on %lld keyframes), best %.4f",
                epoch + 1, maxEpoch, map, r.ava.classes_with_groundtruth,
                static_cast<long long>(r.boxes), static_cast<long long>(r.keyframes), bestMap);
  rec.log(line);
}

// PySlowFast: precise BN statistics before the checkpoint and the evaluation, in FP32.
void Trainer::Impl::preciseBn(int epoch) {
  const int want = static_cast<int>(
      std::min<std::int64_t>(c.getInt("BN.NUM_BATCHES_PRECISE"),
                             static_cast<std::int64_t>(preciseLoader->batchesPerEpoch())));
  preciseLoader->startEpoch(epoch);
  const bool canStop =
      !ddp->active();  // with several ranks every one runs all batches (sync BN meets in them)
  const auto pr = updatePreciseBnStats(*net, want, [&](std::vector<torch::Tensor>& in) {
    if (canStop && t.stopRequested_) return false;
    auto b = preciseLoader->next();
    if (!b) return false;
    in = batchTensors(*b, device, channelsLast);
    preciseLoader->recycle(std::move(*b));
    return true;
  });
  preciseLoader->stop();
  if (!preciseLoader->error().empty()) throw std::runtime_error(preciseLoader->error());
  if (pr.layers > 0 && !pr.aborted)
    rec.event("precise_bn",
              "running statistics of " + std::to_string(pr.layers) +
                  " batch norms recomputed over " + std::to_string(pr.batches) +
                  " training batches (BN.USE_PRECISE_STATS, BN.NUM_BATCHES_PRECISE)",
              step, epoch + 1, {{"layers", pr.layers}, {"batches", pr.batches}});
}

}  // namespace amp::train
