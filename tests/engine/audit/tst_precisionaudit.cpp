// The precision audit on tiny models whose gradients are known exactly (powers of two), the dtype
// autocast gives each layer on the CPU, and the finder of the first non-finite gradient.
#include <torch/torch.h>

#include <QtTest>

#include <cmath>

#include "amp/AutocastGuard.h"
#include "amp/GradScaler.h"
#include "amp/NonFiniteGrad.h"
#include "audit/LayerProbe.h"
#include "audit/ModelAudit.h"
#include "audit/PrecisionAudit.h"
#include "models/Net.h"

using namespace amp;

namespace {

torch::nn::Linear square(int64_t n) {
  return torch::nn::Linear(torch::nn::LinearOptions(n, n).bias(false));
}

// [input ->] stem -> gain -> head, bias-free 4x4 linear layers: identities, gain = 2^12 I. On
// x = 2^-8 and loss = sum(y), gain multiplies by 2^12 the gradient flowing back into stem.
struct ChainImpl : torch::nn::Module {
  explicit ChainImpl(bool withInput) {
    if (withInput) input = register_module("input", square(4));
    stem = register_module("stem", square(4));
    gain = register_module("gain", square(4));
    head = register_module("head", square(4));
    torch::NoGradGuard noGrad;
    for (auto& p : parameters()) p.copy_(torch::eye(4));
    gain->weight.mul_(4096.0);
  }
  torch::Tensor forward(torch::Tensor x) {
    if (input) x = input(x);
    return head(gain(stem(x)));
  }
  torch::nn::Linear input{nullptr}, stem{nullptr}, gain{nullptr}, head{nullptr};
};
TORCH_MODULE(Chain);

torch::Tensor chainInput() {
  return torch::full({1, 4}, std::ldexp(1.0, -8));
}

audit::ModelAuditBatch chainBatch(Chain& net, const torch::Tensor& x) {
  return {[&net, x] { return net->forward(x); },
          [](const torch::Tensor& y) { return y.to(torch::kFloat).sum(); }};
}

const audit::LayerAudit* find(const std::vector<audit::LayerAudit>& layers,
                              const std::string& name) {
  for (const auto& l : layers)
    if (l.name == name) return &l;
  return nullptr;
}

// conv3d -> batch norm -> linear -> softmax -> layer norm on a float32 input (as MViT's norm).
struct MixedImpl : torch::nn::Module {
  MixedImpl() {
    conv = register_module("conv", torch::nn::Conv3d(torch::nn::Conv3dOptions(2, 4, 1)));
    bn = register_module("bn", models::batchNorm(4));
    fc = register_module("fc", torch::nn::Linear(32, 6));
    norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({6})));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto y = bn(conv(x)).flatten(1);
    y = torch::softmax(fc(y), 1);
    return norm(y.to(torch::kFloat));
  }
  torch::nn::Conv3d conv{nullptr};
  models::BatchNorm3d bn{nullptr};
  torch::nn::Linear fc{nullptr};
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(Mixed);

}  // namespace

class TestPrecisionAudit : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void namesTheOverflowingLayerAndTheSafeRange() {
    Chain net(false);
    const auto x = chainInput();
    audit::ModelAuditOptions o;
    o.report_scale = std::ldexp(1.0, -20);
    const auto r = audit::auditModel(
        *net, 2, [&](int) { return chainBatch(net, x); }, o);
    QCOMPARE(static_cast<int>(r.layers.size()), 3);
    QCOMPARE(QString::fromStdString(r.layers[0].name), QString("stem"));
    QCOMPARE(QString::fromStdString(r.layers[1].name), QString("gain"));
    QCOMPARE(QString::fromStdString(r.layers[2].name), QString("head"));
    for (const auto& l : r.layers) {
      QCOMPARE(QString::fromStdString(l.op),
               QString("matmul"));  // LibTorch's C++ Linear: input.matmul(weight.t())
      QCOMPARE(QString::fromStdString(l.dtype), QString("float32"));
      QVERIFY(l.has_grad);
      QCOMPARE(l.grad_elements,
               std::int64_t{40});  // 4 output + 16 weight gradient elements, two batches
      QVERIFY2(l.bf16_rel_error < 1e-6, l.name.c_str());  // powers of two: exact in bfloat16 too
    }
    // |gradient| maxima: stem 2^12 (its output's), gain 1, head 16 (its weight's: 1 x 16).
    QCOMPARE(r.layers[0].grad_absmax, 4096.0);
    QCOMPARE(r.layers[1].grad_absmax, 1.0);
    QCOMPARE(r.layers[2].grad_absmax, 16.0);
    QCOMPARE(r.layers[0].overflow_scale, 65504.0 / 4096.0);
    QCOMPARE(r.layers[2].overflow_scale, 65504.0 / 16.0);
    // Activations: 2^-8, 16, 16.
    QCOMPARE(r.layers[1].act_absmax, 16.0);
    QCOMPARE(r.layers[1].headroom_log2, std::log2(65504.0 / 16.0));
    // At s = 2^-20: gain's weight gradient 2^-8 x s = 2^-28 is zero in float16 (16 of 20 elements),
    // its output gradient 2^-20 subnormal; stem's weight gradient 16 x s = 2^-16 subnormal.
    QCOMPARE(r.layers[1].fp16_underflow_fraction, 0.8);
    QCOMPARE(r.layers[1].fp16_subnormal_fraction, 1.0);
    QCOMPARE(r.layers[0].fp16_underflow_fraction, 0.0);
    QCOMPARE(r.layers[0].fp16_subnormal_fraction, 0.8);
    QCOMPARE(r.layers[2].fp16_underflow_fraction, 0.0);
    QCOMPARE(r.layers[2].fp16_subnormal_fraction, 1.0);

    audit::AuditSummary s;
    s.report_scale = 8;
    audit::summarizeAudit(r.layers, s);
    QCOMPARE(QString::fromStdString(s.overflow_layer), QString("stem"));
    QCOMPARE(s.safe_scale_max, 65504.0 / 4096.0);
    QCOMPARE(QString::fromStdString(s.underflow_layer), QString("gain"));
    QCOMPARE(s.safe_scale_min,
             std::ldexp(1.0, -14));  // gain's largest gradient, 1, reaches 2^-14 there
    QVERIFY(s.safe_range_exists);
    QCOMPARE(s.suggested_init_scale, 8.0);
    QCOMPARE(s.layers_overflowing, 0);
    QVERIFY(!s.bf16_safer);
    QVERIFY2(s.recommendation.find("AMP.INIT_SCALE 2^3") != std::string::npos,
             s.recommendation.c_str());
    QVERIFY(s.recommendation.find("rule of thumb") != std::string::npos);
    s.report_scale = 16;  // 4096 x 16 = 65536 > 65504: stem overflows, head (16 x 16) does not
    audit::summarizeAudit(r.layers, s);
    QCOMPARE(s.layers_overflowing, 1);
    s.report_scale =
        65536;  // PyTorch's default initial scale: all three (even gain's 1 x 2^16 > 65504)
    audit::summarizeAudit(r.layers, s);
    QCOMPARE(s.layers_overflowing, 3);
  }

  void noSafeScaleRecommendsBf16() {
    audit::LayerAudit big, tiny;
    big.name = "big";
    big.has_grad = tiny.has_grad = true;
    big.grad_absmax = 1e6;  // overflows float16 from 0.0655
    tiny.name = "tiny";
    tiny.grad_absmax = 1e-4;  // reaches 2^-14 only from 0.61
    audit::AuditSummary s;
    audit::summarizeAudit({big, tiny}, s);
    QVERIFY(!s.safe_range_exists);
    QVERIFY(s.bf16_safer);
    QVERIFY2(s.recommendation.find("bfloat16 is safer") != std::string::npos,
             s.recommendation.c_str());
  }

  void dtypePerLayerUnderCpuBf16Autocast() {
    torch::manual_seed(0);
    Mixed net;
    const auto x = torch::randn({2, 2, 2, 2, 2});
    audit::ModelAuditOptions o;
    o.mixed = true;  // CPU bfloat16 autocast, as the studio's mixed precision on the CPU
    const auto r = audit::auditModel(
        *net, 1,
        [&](int) {
          return audit::ModelAuditBatch{[&] { return net->forward(x); },
                                        [](const torch::Tensor& y) { return y.pow(2).mean(); }};
        },
        o);
    QCOMPARE(static_cast<int>(r.layers.size()), 5);
    const auto& conv = r.layers[0];
    QCOMPARE(QString::fromStdString(conv.name), QString("conv"));
    QCOMPARE(QString::fromStdString(conv.dtype), QString("bfloat16"));
    QVERIFY2(conv.why.find("conv3d is on autocast's lower-precision list") != std::string::npos,
             conv.why.c_str());
    const auto& bn = r.layers[1];
    QCOMPARE(QString::fromStdString(bn.name), QString("bn"));
    QCOMPARE(QString::fromStdString(bn.dtype), QString("bfloat16"));  // follows its bfloat16 input
    QVERIFY2(bn.why.find("not on autocast's lists") != std::string::npos, bn.why.c_str());
    const auto& fc = r.layers[2];
    QCOMPARE(QString::fromStdString(fc.name), QString("fc"));
    QCOMPARE(QString::fromStdString(fc.dtype), QString("bfloat16"));
    QCOMPARE(QString::fromStdString(fc.op),
             QString("addmm"));  // LibTorch's C++ Linear on a 2-D input with a bias
    QVERIFY2(fc.why.find("addmm is on autocast's lower-precision list") != std::string::npos,
             fc.why.c_str());
    const auto& softmax = r.layers[3];
    QCOMPARE(QString::fromStdString(softmax.name), QString("softmax (after fc)"));
    // What LibTorch's own CPU autocast does with softmax on a bfloat16 input decides the row (1.13:
    // softmax is on no CPU list and stays bfloat16; CUDA autocast lists it as fp32).
    torch::ScalarType expected;
    {
      precision::AutocastGuard g(true, precision::AutocastDevice::CPU,
                                 precision::AutocastType::BFloat16);
      expected = torch::softmax(torch::ones({2, 3}, torch::kBFloat16), 1).scalar_type();
    }
    QCOMPARE(QString::fromStdString(softmax.dtype),
             QString(expected == torch::kFloat ? "float32" : "bfloat16"));
    QVERIFY2(
        softmax.why.find(expected == torch::kFloat ? "fp32 list" : "not on autocast's lists") !=
            std::string::npos,
        softmax.why.c_str());
    const auto& norm = r.layers[4];
    QCOMPARE(QString::fromStdString(norm.name), QString("norm"));
    QCOMPARE(QString::fromStdString(norm.dtype), QString("float32"));
    QVERIFY2(norm.why.find("already float32") != std::string::npos, norm.why.c_str());
    for (const auto& l : r.layers) {
      QVERIFY2(l.has_grad, l.name.c_str());
      QVERIFY2(l.bf16_rel_error > 0 && l.bf16_rel_error < 0.25,
               l.name.c_str());  // bfloat16 rounds, a little
    }
    // The audit left nothing behind: no hooks on the parameters, no callback on the thread.
    net->zero_grad();
    net->forward(x).pow(2).mean().backward();
    QVERIFY(net->conv->weight.grad().defined());
  }

  void firstNonFiniteGradientInBackwardOrder() {
    Chain net(true);  // input -> stem -> gain -> head
    // At loss scale 2^120, gain's 2^12 pushes the gradient into stem to 2^132: inf in float32;
    // input inherits it, gain's and head's own gradients stay finite.
    (net->forward(chainInput()).sum() * std::ldexp(1.0, 120)).backward();
    QVERIFY(!torch::isfinite(net->input->weight.grad()).all().item<bool>());
    QVERIFY(torch::isfinite(net->gain->weight.grad()).all().item<bool>());
    QCOMPARE(QString::fromStdString(precision::firstNonFiniteGradLayer(*net)), QString("stem"));
    // An explicit forward order reverses the search: "input" is then the closest to the loss.
    QCOMPARE(QString::fromStdString(
                 precision::firstNonFiniteGradLayer(*net, {"head", "gain", "stem", "input"})),
             QString("input"));
    net->zero_grad();
    (net->forward(chainInput()).sum()).backward();
    QCOMPARE(QString::fromStdString(precision::firstNonFiniteGradLayer(*net)), QString());
    // A NaN planted in head's gradient: head is first in backward order.
    net->head->weight.mutable_grad()[0][0] = std::nan("");
    QCOMPARE(QString::fromStdString(precision::firstNonFiniteGradLayer(*net)), QString("head"));
  }

  void auditSkipsTheOverflowingStepAndNamesTheLayer() {
    Chain net(true);
    const auto x = chainInput();
    torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.1));
    precision::GradScaler scaler({std::ldexp(1.0, 120), 2.0, 0.5, 2000, true});
    audit::ModelAuditOptions o;
    o.scaler = &scaler;
    o.optimizer = &sgd;
    const auto r = audit::auditModel(
        *net, 1, [&](int) { return chainBatch(net, x); }, o);
    QCOMPARE(QString::fromStdString(r.nonfinite_layer), QString("stem"));
    QCOMPARE(r.skipped_steps, 1);
    QCOMPARE(r.applied_scale, std::ldexp(1.0, 120));
    QCOMPARE(scaler.currentScale(), std::ldexp(1.0, 119));  // backed off
    const auto* stem = find(r.layers, "stem");
    QVERIFY(stem && stem->nonfinite_grad && stem->overflow_scale == 0);
    const auto* input = find(r.layers, "input");  // inf x 0 in its backward: NaN
    QVERIFY(input && input->nonfinite_grad && std::isnan(input->grad_absmax));
    const auto* head = find(r.layers, "head");
    QVERIFY(head && !head->nonfinite_grad);
    QCOMPARE(head->grad_absmax, 16.0);  // unscaled: 2^124 / 2^120
  }

  void gradientStatisticsOfEachType() {
    // |g| = 0, 2^-30, 2^-20, 1, 4 at loss scale 1: 2^-30 is zero in float16, 2^-20 subnormal.
    const auto g = torch::tensor({0.0, std::ldexp(1.0, -30), std::ldexp(1.0, -20), 1.0, -4.0});
    for (const auto type : {torch::kFloat, torch::kBFloat16, torch::kDouble}) {
      const auto s = audit::gradStats(g.to(type), 1.0, 1.0);
      QCOMPARE(s.absmax, 4.0);
      QCOMPARE(s.elements, std::int64_t{5});
      QCOMPARE(s.nonzero, std::int64_t{4});
      QCOMPARE(s.zero16, std::int64_t{1});
      QCOMPARE(s.subnormal16, std::int64_t{2});
      QVERIFY(!s.nonfinite);
      // Computed at scale 2^4, reported at 2^10: unscaled |g| / 16, then x 1024.
      const auto t = audit::gradStats(g.to(type), 16.0, 1024.0);
      QCOMPARE(t.absmax, 0.25);
      QCOMPARE(t.zero16, std::int64_t{0});       // 2^-30 / 2^4 x 2^10 = 2^-24: not below
      QCOMPARE(t.subnormal16, std::int64_t{1});  // 2^-20 / 2^4 x 2^10 = 2^-14: not below either
    }
    auto bad = g.clone();
    bad[1] = std::numeric_limits<double>::infinity();
    QVERIFY(audit::gradStats(bad, 1.0, 1.0).nonfinite);
    bad[1] = std::nan("");
    QVERIFY(std::isnan(audit::gradStats(bad.to(torch::kBFloat16), 1.0, 1.0).absmax));
  }

  void scaleText() {
    QCOMPARE(QString::fromStdString(audit::scaleText(65536)), QString("2^16"));
    QCOMPARE(QString::fromStdString(audit::scaleText(std::ldexp(1.0, -14))), QString("2^-14"));
    QCOMPARE(QString::fromStdString(audit::scaleText(15.9921875)), QString("15.99"));
  }
};

QTEST_GUILESS_MAIN(TestPrecisionAudit)
#include "tst_precisionaudit.moc"
