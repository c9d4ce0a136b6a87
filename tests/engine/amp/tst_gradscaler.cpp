#include <torch/torch.h>

#include <QtTest>

#include "amp/GradScaler.h"

using namespace amp::precision;

namespace {

// One weight w; loss = w * x, so d loss / d w = x (scaled: x * scale).
struct Tiny {
  torch::Tensor w = torch::ones({1}, torch::requires_grad());
  torch::optim::SGD opt{{w}, torch::optim::SGDOptions(0.1)};
  void backward(GradScaler& s, double x) {
    opt.zero_grad();
    s.scale((w * x).sum()).backward();
  }
};

}  // namespace

class TestGradScaler : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void scalesThenUnscales() {
    GradScaler s({1024.0, 2.0, 0.5, 3, true});
    Tiny t;
    QCOMPARE(s.scale(torch::tensor({2.0f})).item<float>(), 2048.0f);
    t.backward(s, 3.0);
    QCOMPARE(t.w.grad().item<float>(), 3.0f * 1024);
    s.unscale(t.opt);
    QCOMPARE(t.w.grad().item<float>(), 3.0f);  // clipping sees true gradients
    QVERIFY(s.step(t.opt));
    QVERIFY(std::abs(t.w.item<float>() - (1.0f - 0.1f * 3.0f)) < 1e-6);
    const auto u = s.update();
    QVERIFY(!u.skipped && !u.backed_off && !u.grew);
    QCOMPARE(s.growthTracker(), std::int64_t(1));
  }

  void infSkipsTheStepAndBacksOff() {
    GradScaler s({65536.0, 2.0, 0.5, 2000, true});
    Tiny t;
    t.backward(s, std::numeric_limits<double>::infinity());
    QVERIFY(!s.step(t.opt));
    QCOMPARE(t.w.item<float>(), 1.0f);  // untouched
    const auto u = s.update();
    QVERIFY(u.skipped && u.backed_off);
    QCOMPARE(u.scale_before, 65536.0);
    QCOMPARE(s.currentScale(), 32768.0);
    QCOMPARE(s.growthTracker(), std::int64_t(0));
    t.backward(s, std::nan(""));  // NaN counts too
    QVERIFY(!s.step(t.opt));
    QCOMPARE(s.update().scale_after, 16384.0);
  }

  void growsAfterTheIntervalOfCleanSteps() {
    GradScaler s({8.0, 2.0, 0.5, 3, true});
    Tiny t;
    std::vector<double> scales;
    for (int i = 0; i < 7; ++i) {
      t.backward(s, 1.0);
      QVERIFY(s.step(t.opt));
      scales.push_back(s.update().scale_after);
    }
    QCOMPARE(scales, (std::vector<double>{8, 8, 16, 16, 16, 32, 32}));
  }

  void oneUnscalePerStepWithAccumulation() {
    GradScaler s({256.0, 2.0, 0.5, 2000, true});
    Tiny t;
    t.opt.zero_grad();
    for (double x : {1.0, 2.0}) s.scale((t.w * x).sum()).backward();  // two micro-batches
    s.unscale(t.opt);
    QCOMPARE(t.w.grad().item<float>(), 3.0f);
    QVERIFY_EXCEPTION_THROWN(s.unscale(t.opt), std::logic_error);
    QVERIFY(s.step(t.opt));
    QVERIFY_EXCEPTION_THROWN(s.step(t.opt), std::logic_error);
    s.update();
    t.backward(s, 1.0);
    s.unscale(t.opt);  // allowed again after update()
  }

  void stateRoundTrip() {
    GradScaler a({1024.0, 3.0, 0.25, 10, true});
    Tiny t;
    for (int i = 0; i < 4; ++i) {
      t.backward(a, 1.0);
      a.step(t.opt);
      a.update();
    }
    const auto state = a.stateDict();
    QCOMPARE(state.at("scale"), 1024.0);
    QCOMPARE(state.at("_growth_tracker"), 4.0);
    QCOMPARE(state.at("growth_factor"), 3.0);
    GradScaler b;
    b.loadStateDict(state);
    QCOMPARE(b.currentScale(), 1024.0);
    QCOMPARE(b.growthTracker(), std::int64_t(4));
    QCOMPARE(b.options().growth_interval, std::int64_t(10));
    QVERIFY_EXCEPTION_THROWN(b.loadStateDict({{"scale", 1.0}}), std::invalid_argument);
  }

  void disabledIsPassThrough() {
    GradScaler s({65536.0, 2.0, 0.5, 2000, false});
    Tiny t;
    t.backward(s, 3.0);
    QCOMPARE(t.w.grad().item<float>(), 3.0f);
    QVERIFY(s.step(t.opt));
    QVERIFY(!s.update().skipped);
    QVERIFY(s.stateDict().empty());
  }
};

QTEST_APPLESS_MAIN(TestGradScaler)
#include "tst_gradscaler.moc"
