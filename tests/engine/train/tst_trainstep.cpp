#include <QtTest>

#include <QTemporaryDir>

#include <algorithm>
#include <thread>

#include "checkpoint/TorchFile.h"
#include "configfile/ConfigLoader.h"
#include "models/VideoModels.h"
#include "train/Checkpoint.h"
#include "train/Optimizer.h"
#include "train/TrainStep.h"

#include "support/Configs.h"

using namespace amp;

namespace {

// A tiny MViT: layer norms only, so a batch split in micro-batches sees exactly the same model
// (batch norm would not) and gradient accumulation must equal the big batch.
config::Config tinyMViT(std::vector<std::string> extra = {}) {
  auto ov = testsupport::joined(
      testsupport::tinyMViT(),
      {"MODEL.NUM_CLASSES", "4", "MVIT.DROPPATH_RATE", "0.0", "MODEL.DROPOUT_RATE", "0.0",
       "SOLVER.OPTIMIZING_METHOD", "sgd", "SOLVER.MOMENTUM", "0.9", "SOLVER.BASE_LR", "0.1",
       "SOLVER.WEIGHT_DECAY", "0.0", "SOLVER.CLIP_GRAD_L2NORM", "None"});
  return testsupport::loadConfigOrDie(testsupport::repoConfig("Kinetics/MVITv2_S_16x4.yaml"),
                                      testsupport::joined(ov, extra));
}

train::MicroBatch batch(const torch::Tensor& x, const torch::Tensor& y) {
  return {{x}, y, {}};
}

}  // namespace

class TestTrainStep : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // MODEL.LOSS_FUNC, against the formulas of PySlowFast's losses on one-hot targets.
  void lossFunctions() {
    const auto x = torch::tensor({{2.0f, -1.0f, 0.5f}, {0.1f, 0.2f, 3.0f}});
    const auto y = torch::tensor({0, 1}, torch::kLong);
    const auto logp = torch::log_softmax(x, 1);
    const double ce = -(logp[0][0].item<double>() + logp[1][1].item<double>()) / 2;
    QVERIFY(std::abs(train::classificationLoss("cross_entropy", x, y).item<double>() - ce) < 1e-6);
    QVERIFY(std::abs(train::classificationLoss("soft_cross_entropy", x, y).item<double>() - ce) <
            1e-6);
    double bce = 0;  // mean over all 6 entries of -[t log s(x) + (1-t) log(1-s(x))]
    const float t[2][3] = {{1, 0, 0}, {0, 1, 0}};
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 3; ++k) {
        const double s = 1 / (1 + std::exp(-x[i][k].item<double>()));
        bce -= (t[i][k] * std::log(s) + (1 - t[i][k]) * std::log(1 - s)) / 6;
      }
    QVERIFY(std::abs(train::classificationLoss("bce_logit", x, y).item<double>() - bce) < 1e-6);
    for (const char* refused : {"bce", "contrastive_loss", "mse", "multi_mse"}) {
      try {
        train::classificationLoss(refused, x, y);
        QFAIL(refused);
      } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).startsWith("MODEL.LOSS_FUNC: "), e.what());
      }
    }
    // and TrainStep refuses it when built, before any training
    auto c = tinyMViT({"MODEL.LOSS_FUNC", "mse"});
    torch::manual_seed(0);
    auto net = models::buildVideoNet(c);
    auto opt = train::buildOptimizer(c, *net);
    QVERIFY_EXCEPTION_THROWN(train::TrainStep(c, *net, *opt, train::PrecisionPolicy::fromConfig(c)),
                             std::invalid_argument);
  }

  void initTestCase() { torch::set_num_threads(2); }

  void cpuThreadsFollowOmpNumThreads() {
    const QByteArray saved = qgetenv("OMP_NUM_THREADS");
    qputenv("OMP_NUM_THREADS", "1");
    QCOMPARE(train::cpuTrainingThreads(), 1);
    qputenv("OMP_NUM_THREADS", "zero");  // not a number: ignored
    const int fromAffinity = train::cpuTrainingThreads();
    qunsetenv("OMP_NUM_THREADS");
    QCOMPARE(train::cpuTrainingThreads(), fromAffinity);
    QVERIFY(fromAffinity >= 1 &&
            fromAffinity <= static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    if (!saved.isNull()) qputenv("OMP_NUM_THREADS", saved);
  }

  void precisionPolicyFollowsTheConfig() {
    auto p = train::PrecisionPolicy::fromConfig(tinyMViT({"TRAIN.MIXED_PRECISION", "True"}));
    QCOMPARE(p.name, std::string("bf16"));     // auto on the CPU
    QVERIFY(p.mixed && !p.fp16 && !p.scaler);  // AMP.SCALER auto: off for bfloat16
    p = train::PrecisionPolicy::fromConfig(
        tinyMViT({"TRAIN.MIXED_PRECISION", "True", "AMP.SCALER", "on"}));
    QVERIFY(p.scaler);
    p = train::PrecisionPolicy::fromConfig(
        tinyMViT({"TRAIN.MIXED_PRECISION", "False", "AMP.SCALER", "on"}));
    QVERIFY(!p.mixed && !p.scaler);
    QCOMPARE(p.name, std::string("fp32"));
    try {
      train::PrecisionPolicy::forced(tinyMViT(), "fp16");
      QFAIL("float16 on the CPU must be refused");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).rfind("AMP.DTYPE: ", 0) == 0, e.what());
    }
  }

  void gradientAccumulationEqualsOneBigBatch() {
    const auto c = tinyMViT();
    torch::manual_seed(1);
    const auto x = torch::randn({4, 3, 4, 32, 32});
    const auto y = torch::tensor({0, 1, 2, 3}, torch::kLong);
    auto run = [&](bool split) {
      torch::manual_seed(7);
      auto net = models::buildVideoNet(c);
      auto opt = train::buildOptimizer(c, *net);
      train::TrainStep step(c, *net, *opt, train::PrecisionPolicy::fromConfig(c));
      std::vector<train::MicroBatch> micro;
      if (split)
        micro = {batch(x.slice(0, 0, 2), y.slice(0, 0, 2)),
                 batch(x.slice(0, 2, 4), y.slice(0, 2, 4))};
      else
        micro = {batch(x, y)};
      const auto out = step.run(micro);
      step.run(micro);  // a second step: momentum buffers agree too
      std::vector<torch::Tensor> params;
      for (const auto& p : net->parameters()) params.push_back(p.detach().clone());
      return std::make_pair(out, params);
    };
    const auto [big, bigParams] = run(false);
    const auto [acc, accParams] = run(true);
    QVERIFY(big.stepped && acc.stepped);
    QVERIFY(std::abs(big.loss - acc.loss) < 1e-5);
    QVERIFY(std::abs(big.grad_norm - acc.grad_norm) < 1e-4 * std::max(1.0, big.grad_norm));
    QCOMPARE(acc.labels.size(0), int64_t(4));
    for (size_t i = 0; i < bigParams.size(); ++i)
      QVERIFY2(torch::allclose(bigParams[i], accParams[i], 1e-5, 1e-6), std::to_string(i).c_str());
  }

  // PySlowFast's mt_adamw is torch.optim._multi_tensor.AdamW with adamw's arguments: the same
  // update, so two steps from the same start give the same weights.
  void mtAdamwStepsAsAdamw() {
    auto run = [&](const char* method) {
      const auto c = tinyMViT({"SOLVER.OPTIMIZING_METHOD", method, "SOLVER.BASE_LR", "0.01",
                               "SOLVER.WEIGHT_DECAY", "0.05"});
      torch::manual_seed(3);
      auto net = models::buildVideoNet(c);
      auto opt = train::buildOptimizer(c, *net);
      train::TrainStep step(c, *net, *opt, train::PrecisionPolicy::fromConfig(c));
      torch::manual_seed(4);
      const auto b = batch(torch::randn({2, 3, 4, 32, 32}), torch::tensor({0, 1}, torch::kLong));
      step.run({b});
      step.run({b});
      std::vector<torch::Tensor> params;
      for (const auto& p : net->parameters()) params.push_back(p.detach().clone());
      return params;
    };
    const auto adamw = run("adamw"), mt = run("mt_adamw"), sgd = run("sgd");
    QCOMPARE(mt.size(), adamw.size());
    for (size_t i = 0; i < mt.size(); ++i) QVERIFY(torch::equal(mt[i], adamw[i]));
    bool differs = false;  // and the optimizer was applied at all
    for (size_t i = 0; i < sgd.size(); ++i) differs = differs || !torch::equal(sgd[i], adamw[i]);
    QVERIFY(differs);
  }

  void fp32NonFiniteLossLeavesTheWeights() {
    const auto c = tinyMViT();
    auto net = models::buildVideoNet(c);
    auto opt = train::buildOptimizer(c, *net);
    train::TrainStep step(c, *net, *opt, train::PrecisionPolicy::fromConfig(c));
    const auto before = net->parameters()[0].detach().clone();
    auto x = torch::randn({2, 3, 4, 32, 32});
    x[0][0][0][0][0] = std::numeric_limits<float>::quiet_NaN();
    const auto out = step.run({batch(x, torch::tensor({0, 1}, torch::kLong))});
    QVERIFY(!out.finite_loss);
    QVERIFY(!out.stepped);
    QVERIFY(torch::equal(before, net->parameters()[0]));
  }

  void ampNonFiniteGradientsSkipTheStepAndBackOff() {
    const auto c =
        tinyMViT({"TRAIN.MIXED_PRECISION", "True", "AMP.SCALER", "on", "AMP.INIT_SCALE", "1024"});
    auto net = models::buildVideoNet(c);
    auto opt = train::buildOptimizer(c, *net);
    train::TrainStep step(c, *net, *opt, train::PrecisionPolicy::fromConfig(c));
    std::vector<torch::Tensor> before;
    for (const auto& p : net->parameters()) before.push_back(p.detach().clone());
    auto x = torch::randn({2, 3, 4, 32, 32});
    x[1][2][3][4][5] = std::numeric_limits<float>::infinity();
    const auto out = step.run({batch(x, torch::tensor({0, 1}, torch::kLong))});
    QVERIFY(out.finite_loss);  // under AMP a skipped step is normal
    QVERIFY(!out.stepped);
    QVERIFY(out.update.backed_off);
    QCOMPARE(out.update.scale_after, 512.0);
    const auto params = net->parameters();
    for (size_t i = 0; i < params.size(); ++i)
      QVERIFY(torch::equal(before[i], params[i]));  // bit-identical
    const auto ok =
        step.run({batch(torch::randn({2, 3, 4, 32, 32}), torch::tensor({0, 1}, torch::kLong))});
    QVERIFY(ok.stepped);
    QVERIFY(std::isfinite(ok.grad_norm) && ok.grad_norm > 0);
  }

  void withoutAScalerNonFiniteGradientsSkipTheStep_data() {
    QTest::addColumn<QString>("mixed");
    QTest::newRow("bf16") << "True";  // bfloat16 on the CPU: AMP.SCALER auto runs no scaler
    QTest::newRow("fp32") << "False";
  }
  void withoutAScalerNonFiniteGradientsSkipTheStep() {
    QFETCH(QString, mixed);
    const auto c = tinyMViT({"TRAIN.MIXED_PRECISION", mixed.toStdString()});
    auto net = models::buildVideoNet(c);
    auto opt = train::buildOptimizer(c, *net);
    train::TrainStep step(c, *net, *opt, train::PrecisionPolicy::fromConfig(c));
    QVERIFY(!step.scaler().enabled());
    std::vector<torch::Tensor> before;
    for (const auto& p : net->parameters()) before.push_back(p.detach().clone());
    // A finite loss whose gradients are not (as a faulty convolution backward returns them).
    auto target = net->parameters()[1];
    const auto hook = target.register_hook([](torch::Tensor g) {
      return torch::full_like(g, std::numeric_limits<float>::quiet_NaN());
    });
    const auto bad =
        step.run({batch(torch::randn({2, 3, 4, 32, 32}), torch::tensor({0, 1}, torch::kLong))});
    target.remove_hook(hook);
    QVERIFY(bad.finite_loss && std::isfinite(bad.loss));
    QVERIFY(!std::isfinite(bad.grad_norm));
    QVERIFY(!bad.stepped);
    QCOMPARE(bad.update.scale_after, 1.0);
    auto params = net->parameters();
    for (size_t i = 0; i < params.size(); ++i)
      QVERIFY(torch::equal(before[i], params[i]));  // bit-identical
    const auto ok =
        step.run({batch(torch::randn({2, 3, 4, 32, 32}), torch::tensor({0, 1}, torch::kLong))});
    QVERIFY(ok.stepped && std::isfinite(ok.grad_norm));
    QVERIFY(!torch::equal(before[1], net->parameters()[1]));
    for (const auto& p : net->parameters()) QVERIFY(torch::isfinite(p).all().item<bool>());

    // A non-finite loss: nothing to skip without a scaler, the weights are kept and the caller
    // told.
    for (const auto& p : net->parameters()) before.push_back(p.detach().clone());
    before.erase(before.begin(), before.begin() + static_cast<long>(params.size()));
    auto x = torch::randn({2, 3, 4, 32, 32});
    x[0][0][0][0][0] = std::numeric_limits<float>::quiet_NaN();
    const auto nan = step.run({batch(x, torch::tensor({0, 1}, torch::kLong))});
    QVERIFY(!nan.finite_loss && !nan.stepped);
    params = net->parameters();
    for (size_t i = 0; i < params.size(); ++i) QVERIFY(torch::equal(before[i], params[i]));
  }

  // SOLVER.LAYER_DECAY: PySlowFast's get_param_groups, group by group, by hand for DEPTH 2.
  void layerDecayGroupsAsPySlowFast() {
    const auto c = tinyMViT({"SOLVER.LAYER_DECAY", "0.5", "SOLVER.WEIGHT_DECAY", "0.05",
                             "SOLVER.ZERO_WD_1D_PARAM", "True", "MVIT.ZERO_DECAY_POS_CLS", "True"});
    auto net = models::buildVideoNet(c);
    std::vector<double> decay;
    auto opt = train::buildOptimizer(c, *net, &decay);
    auto& groups = opt->param_groups();
    QCOMPARE(decay.size(), groups.size());
    // Layer 0 (embeddings) 0.5^3, block 0 0.5^2, block 1 0.5, the rest 1; each as non_bn and zero.
    QCOMPARE(groups.size(), size_t(8));
    auto groupOf = [&](const std::string& name) -> int {
      const auto& p = net->named_parameters()[name];
      for (size_t g = 0; g < groups.size(); ++g)
        for (const auto& q : groups[g].params())
          if (q.unsafeGetTensorImpl() == p.unsafeGetTensorImpl()) return static_cast<int>(g);
      return -1;
    };
    struct Expect {
      const char* name;
      double decay, wd;
    };
    const Expect expected[] = {
        {"patch_embed.proj.weight", 0.125, 0.05},
        {"patch_embed.proj.bias", 0.125, 0.0},
        {"cls_token", 0.125, 0.0},  // named by no_weight_decay: exact top-level name
        {"blocks.0.norm1.weight", 0.25, 0.0},
        {"blocks.0.attn.qkv.weight", 0.25, 0.05},
        {"blocks.0.attn.rel_pos_h", 0.25,
         0.05},  // 2-D and not an exact no_weight_decay name: decayed, as PySlowFast
        {"blocks.1.mlp.fc1.weight", 0.5, 0.05},
        {"blocks.1.mlp.fc1.bias", 0.5, 0.0},
        {"norm.weight", 1.0, 0.0},
        {"head.projection.weight", 1.0, 0.05},
    };
    for (const auto& e : expected) {
      const int g = groupOf(e.name);
      QVERIFY2(g >= 0, e.name);
      QVERIFY2(std::abs(decay[static_cast<size_t>(g)] - e.decay) < 1e-12, e.name);
      QVERIFY2(std::abs(groups[static_cast<size_t>(g)].options().get_lr() - 0.1 * e.decay) < 1e-12,
               e.name);
      const auto& o =
          static_cast<const torch::optim::SGDOptions&>(groups[static_cast<size_t>(g)].options());
      QVERIFY2(std::abs(o.weight_decay() - e.wd) < 1e-12, e.name);
    }
    // Groups in the order of their first parameter; as in torch, a module's own parameters (the
    // class token, no weight decay) come before its children's (the patch embedding).
    QCOMPARE(net->named_parameters().keys().front(), std::string("cls_token"));
    QCOMPARE(groupOf("cls_token"), 0);
    QCOMPARE(groupOf("patch_embed.proj.weight"), 1);
    size_t total = 0;
    for (const auto& g : groups) total += g.params().size();
    QCOMPARE(total, net->parameters().size());
    train::setLearningRate(*opt, 0.2, decay);  // PySlowFast's set_lr: lr x layer_decay
    QVERIFY(
        std::abs(groups[static_cast<size_t>(groupOf("blocks.0.norm1.weight"))].options().get_lr() -
                 0.05) < 1e-12);
    QVERIFY(
        std::abs(groups[static_cast<size_t>(groupOf("head.projection.weight"))].options().get_lr() -
                 0.2) < 1e-12);

    // The multipliers go into the checkpoint's param_groups, where PySlowFast's set_lr reads them.
    QTemporaryDir dir;
    train::CheckpointInfo info;
    info.layer_decay = decay;
    const auto path =
        train::saveCheckpoint(dir.path().toStdString(), *net, opt.get(), nullptr, info);
    const auto saved = checkpoint::loadTorchFile(path)
                           .toGenericDict()
                           .at("optimizer_state")
                           .toGenericDict()
                           .at("param_groups")
                           .toList();
    QCOMPARE(saved.size(), groups.size());
    for (size_t g = 0; g < saved.size(); ++g)
      QCOMPARE(saved.get(g).toGenericDict().at("layer_decay").toDouble(), decay[g]);

    // 1.0 is the three PySlowFast groups at multiplier 1; batch norm is refused with layer decay.
    const auto plain = tinyMViT({"SOLVER.ZERO_WD_1D_PARAM", "True"});
    auto net2 = models::buildVideoNet(plain);
    train::buildOptimizer(plain, *net2, &decay);
    QCOMPARE(decay, std::vector<double>(decay.size(), 1.0));
    auto x3d = config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml",
        {"SOLVER.LAYER_DECAY", "0.75"});
    QVERIFY(x3d.ok());
    auto bnNet = models::buildVideoNet(x3d.config);
    try {
      train::buildOptimizer(x3d.config, *bnNet);
      QFAIL("layer decay with batch norm must be refused");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).rfind("SOLVER.LAYER_DECAY", 0) == 0, e.what());
    }
  }

  void checkpointRoundTrip() {
    QTemporaryDir dir;
    const auto c = tinyMViT(
        {"TRAIN.MIXED_PRECISION", "True", "AMP.SCALER", "on", "SOLVER.OPTIMIZING_METHOD", "adamw"});
    torch::manual_seed(3);
    auto net = models::buildVideoNet(c);
    auto opt = train::buildOptimizer(c, *net);
    train::TrainStep step(c, *net, *opt, train::PrecisionPolicy::fromConfig(c));
    step.run({batch(torch::randn({2, 3, 4, 32, 32}), torch::tensor({0, 1}, torch::kLong))});
    train::CheckpointInfo info;
    info.epochs_done = 3;
    info.global_step = 42;
    info.iter_in_epoch = 5;
    info.best_top1_err = 12.5;
    info.cfg_yaml = "TRAIN:\n  ENABLE: True\n";
    const std::string path =
        train::saveCheckpoint(dir.path().toStdString(), *net, opt.get(), &step.scaler(), info);
    QVERIFY2(
        path.find("checkpoints/checkpoint_epoch_00003_step_00000042.pyth") != std::string::npos,
        path.c_str());
    QCOMPARE(train::latestCheckpoint(dir.path().toStdString()), path);

    torch::manual_seed(4);
    auto net2 = models::buildVideoNet(c);
    auto opt2 = train::buildOptimizer(c, *net2);
    train::TrainStep step2(c, *net2, *opt2, train::PrecisionPolicy::fromConfig(c));
    const auto back =
        train::loadCheckpoint(path, {net2.get(), opt2.get(), &step2.scaler(), true, {}});
    QCOMPARE(back.epochs_done, 3);
    QCOMPARE(back.global_step, std::int64_t(42));
    QCOMPARE(back.iter_in_epoch, std::int64_t(5));
    QCOMPARE(back.best_top1_err, 12.5);
    QCOMPARE(back.cfg_yaml, info.cfg_yaml);
    QCOMPARE(step2.scaler().currentScale(), step.scaler().currentScale());
    const auto a = net->named_parameters(), b = net2->named_parameters();
    for (const auto& p : a) QVERIFY2(torch::equal(p.value(), b[p.key()]), p.key().c_str());
    // The same next step from both: optimizer moments restored.
    torch::manual_seed(9);
    const auto x = torch::randn({2, 3, 4, 32, 32});
    const auto y = torch::tensor({2, 3}, torch::kLong);
    step.run({batch(x, y)});
    step2.run({batch(x, y)});
    for (const auto& p : a)
      QVERIFY2(torch::allclose(p.value(), b[p.key()], 1e-6, 1e-7), p.key().c_str());

    // A checkpoint of another model is refused with the file and the entries named.
    auto other = models::buildVideoNet(tinyMViT({"MVIT.EMBED_DIM", "16"}));
    try {
      train::loadCheckpoint(path, {other.get(), nullptr, nullptr, false, {}});
      QFAIL("a mismatching checkpoint must be refused");
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      QVERIFY2(what.rfind(path + ": ", 0) == 0 && what.find("wrong shape") != std::string::npos,
               e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestTrainStep)
#include "tst_trainstep.moc"
