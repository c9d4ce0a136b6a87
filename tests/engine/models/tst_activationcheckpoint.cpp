#include <QtTest>

#include <cmath>
#include <set>

#include "amp/AutocastGuard.h"
#include "configfile/ConfigLoader.h"
#include "models/ActivationCheckpoint.h"
#include "models/VideoModels.h"
#include "support/Configs.h"

using namespace amp;

namespace {

config::Config load(const std::string& file, const std::vector<std::string>& ov) {
  return testsupport::loadConfigOrDie(testsupport::repoConfig(file), ov);
}

// A tiny MViTv2 with drop path on, so the recomputation must replay the forward's random draws.
std::vector<std::string> tinyMViT() {
  return testsupport::joined(testsupport::tinyMViT(),
                             {"MVIT.DEPTH", "3", "MODEL.NUM_CLASSES", "5", "MVIT.DROPPATH_RATE",
                              "0.3", "MODEL.DROPOUT_RATE", "0.5"});
}
std::vector<std::string> tinyX3D() {
  return {"X3D.DIM_C5", "32", "NUM_GPUS", "0", "MODEL.DROPOUT_RATE", "0.5"};
}
std::vector<std::string> tinySlowFast() {
  return {"RESNET.WIDTH_PER_GROUP",
          "16",
          "RESNET.DEPTH",
          "18",
          "DATA.NUM_FRAMES",
          "8",
          "DATA.TRAIN_CROP_SIZE",
          "32",
          "MODEL.NUM_CLASSES",
          "3",
          "NUM_GPUS",
          "0",
          "RESNET.TRANS_FUNC",
          "basic_transform"};
}

// Checkpointed segments in the autograd graph behind `t` (their backward nodes).
int checkpointNodes(const torch::Tensor& t) {
  std::set<torch::autograd::Node*> seen;
  std::vector<torch::autograd::Node*> todo{t.grad_fn().get()};
  int found = 0;
  while (!todo.empty()) {
    auto* n = todo.back();
    todo.pop_back();
    if (!n || !seen.insert(n).second) continue;
    if (n->name().find("CheckpointFunction") != std::string::npos) ++found;
    for (const auto& e : n->next_edges()) todo.push_back(e.function.get());
  }
  return found;
}

struct Pass {
  int segments = 0;
  torch::Tensor logits;
  std::map<std::string, torch::Tensor> grads, buffers;
};

// One training forward + backward of a fresh model (weights from `seed`), with the random state
// of the forward fixed by `rngSeed`.
Pass trainPass(config::Config c, bool checkpoint, const std::vector<torch::Tensor>& input,
               bool bf16) {
  c.setOrThrow("MODEL.ACT_CHECKPOINT", checkpoint);
  torch::manual_seed(11);
  auto net = models::buildVideoNet(c);
  net->train();
  torch::manual_seed(12);  // drop path and dropout draws
  Pass p;
  {
    precision::AutocastGuard guard(bf16, precision::AutocastDevice::CPU,
                                   precision::AutocastType::BFloat16);
    p.logits = net->forward(input);
  }
  p.segments = checkpointNodes(p.logits);
  const auto target = torch::arange(p.logits.size(0)) % p.logits.size(1);
  torch::nn::functional::cross_entropy(p.logits.to(torch::kFloat), target).backward();
  for (const auto& kv : net->named_parameters())
    if (kv.value().grad().defined()) p.grads[kv.key()] = kv.value().grad().clone();
  for (const auto& kv : net->named_buffers()) p.buffers[kv.key()] = kv.value().clone();
  return p;
}

double maxDiff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

}  // namespace

class TestActivationCheckpoint : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { torch::set_num_threads(2); }

  // Checkpointed segments give the plain model's logits, gradients and batch-norm statistics.
  void sameGradientsAsWithout_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("bf16");
    for (const bool bf16 : {false, true}) {
      const char* tag = bf16 ? " bf16" : " fp32";
      QTest::newRow((std::string("mvit") + tag).c_str()) << "mvit" << bf16;
      QTest::newRow((std::string("x3d") + tag).c_str()) << "x3d" << bf16;
      QTest::newRow((std::string("slowfast") + tag).c_str()) << "slowfast" << bf16;
    }
  }
  void sameGradientsAsWithout() {
    QFETCH(QString, model);
    QFETCH(bool, bf16);
    config::Config c;
    std::vector<torch::Tensor> input;
    torch::manual_seed(1);
    if (model == "mvit") {
      c = load("Kinetics/MVITv2_S_16x4.yaml", tinyMViT());
      input = {torch::randn({2, 3, 4, 32, 32})};
    } else if (model == "x3d") {
      c = load("demo/DEMO_X3D_TINY.yaml", tinyX3D());
      input = {torch::randn({2, 3, static_cast<int64_t>(c.getInt("DATA.NUM_FRAMES")),
                             c.getInt("DATA.TRAIN_CROP_SIZE"), c.getInt("DATA.TRAIN_CROP_SIZE")})};
    } else {
      c = load("Kinetics/SLOWFAST_8x8_R50.yaml", tinySlowFast());
      input = {torch::randn({2, 3, 2, 32, 32}), torch::randn({2, 3, 8, 32, 32})};
    }
    const Pass plain = trainPass(c, false, input, bf16);
    const Pass ckpt = trainPass(c, true, input, bf16);
    // PySlowFast's segments: MViT's patch embedding and its 3 blocks; s1 and s2 of the others.
    QCOMPARE(plain.segments, 0);
    QCOMPARE(ckpt.segments, model == "mvit" ? 4 : 2);
    // Same operations on the same values in the same order: equal up to float summation order
    // inside the kernels (1e-6 relative); under bf16 autocast the recomputation runs in bf16 too.
    const double tol = 1e-6;
    QVERIFY2(maxDiff(plain.logits, ckpt.logits) == 0.0, "the forward is the plain forward");
    QCOMPARE(ckpt.grads.size(), plain.grads.size());
    QVERIFY(plain.grads.size() > 10);
    for (const auto& [name, g] : plain.grads) {
      QVERIFY2(ckpt.grads.count(name), name.c_str());
      const double scale = std::max(1e-3, g.abs().max().item<double>());
      QVERIFY2(maxDiff(g, ckpt.grads.at(name)) <= tol * scale,
               qPrintable(QString("%1: %2 vs scale %3")
                              .arg(name.c_str())
                              .arg(maxDiff(g, ckpt.grads.at(name)))
                              .arg(scale)));
    }
    // Batch norm's running statistics updated once, as without checkpointing.
    for (const auto& [name, b] : plain.buffers)
      QVERIFY2(maxDiff(b, ckpt.buffers.at(name)) == 0.0, name.c_str());
  }

  // The generic segment: parameters' and inputs' gradients, the inputs that need none left out.
  void segmentGradients() {
    torch::manual_seed(3);
    torch::nn::Linear fc(4, 3);
    auto x = torch::randn({5, 4}, torch::requires_grad());
    const auto constant = torch::randn({5, 3});
    int calls = 0;
    auto segment = [&](const std::vector<torch::Tensor>& in) {
      ++calls;
      return std::vector<torch::Tensor>{torch::tanh(fc(in[0])) * in[1],
                                        torch::dropout(fc(in[0]), 0.5, true)};
    };
    torch::manual_seed(4);
    auto plain = segment({x, constant});
    (plain[0].sum() + plain[1].pow(2).sum()).backward();
    const auto gx = x.grad().clone(), gw = fc->weight.grad().clone(), gb = fc->bias.grad().clone();
    x.grad().zero_();
    fc->weight.grad().zero_();
    fc->bias.grad().zero_();
    torch::manual_seed(4);
    auto ck = models::runCheckpointed(*fc, segment, {x, constant});
    QVERIFY(ck[0].grad_fn() != nullptr);
    torch::manual_seed(
        99);  // the random state moves on before backward: the recomputation must not care
    torch::randn({10});
    calls = 0;
    (ck[0].sum() + ck[1].pow(2).sum()).backward();
    QCOMPARE(calls, 1);  // backward ran the segment again
    QVERIFY(torch::allclose(x.grad(), gx, 1e-6, 1e-7));
    QVERIFY(torch::allclose(fc->weight.grad(), gw, 1e-6, 1e-7));
    QVERIFY(torch::allclose(fc->bias.grad(), gb, 1e-6, 1e-7));
    QVERIFY(!constant.grad().defined());
    // ... and the random state after backward is the one before it, not the forward's.
    torch::manual_seed(99);
    torch::randn({10});
    const auto expectedNext = torch::rand({3});
    torch::manual_seed(4);
    auto again = models::runCheckpointed(*fc, segment, {x, constant});
    torch::manual_seed(99);
    torch::randn({10});
    (again[0].sum() + again[1].sum()).backward();
    QVERIFY(torch::equal(torch::rand({3}), expectedNext));
  }

  // Without gradients (evaluation, inference) the segment just runs: no graph, no saved state.
  void noGradRunsPlainly() {
    torch::nn::Linear fc(4, 3);
    const auto x = torch::randn({2, 4});
    torch::NoGradGuard noGrad;
    auto y = models::runCheckpointed(
        *fc,
        [&](const std::vector<torch::Tensor>& in) { return std::vector<torch::Tensor>{fc(in[0])}; },
        {x});
    QVERIFY(!y[0].requires_grad());
    QVERIFY(torch::equal(y[0], fc(x)));
  }
};

QTEST_GUILESS_MAIN(TestActivationCheckpoint)
#include "tst_activationcheckpoint.moc"
