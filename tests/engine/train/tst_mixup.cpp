#include <QtTest>

#include <cmath>

#include "train/Mixup.h"
#include "train/TrainStep.h"

using namespace amp;

namespace {

bool near(const torch::Tensor& a, const torch::Tensor& b, double tol = 1e-6) {
  return a.sizes() == b.sizes() && (a - b).abs().max().item<double>() < tol;
}

train::MixupParams params(double alpha, double cutmix, double prob = 1.0, double switchProb = 0.5) {
  train::MixupParams p;
  p.enabled = true;
  p.alpha = alpha;
  p.cutmix_alpha = cutmix;
  p.prob = prob;
  p.switch_prob = switchProb;
  p.num_classes = 4;
  return p;
}

}  // namespace

class TestMixup : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // mixup_target by hand: K 4, smoothing 0.1 -> off 0.025, on 0.925; lam 0.7.
  void targetsAreSmoothedOneHotsWeightedByLam() {
    const auto t = train::mixTargets(torch::tensor({0, 2}, torch::kLong), 4, 0.7, 0.1);
    const auto expected =
        torch::tensor({{0.7 * 0.925 + 0.3 * 0.025, 0.025, 0.7 * 0.025 + 0.3 * 0.925, 0.025},
                       {0.7 * 0.025 + 0.3 * 0.925, 0.025, 0.7 * 0.925 + 0.3 * 0.025, 0.025}},
                      torch::kFloat);
    QVERIFY(near(t, expected));
    QVERIFY(near(t.sum(1), torch::ones({2})));
    // No smoothing and lam 1: the one-hot labels.
    QVERIFY(near(train::mixTargets(torch::tensor({3, 1}, torch::kLong), 4, 1.0, 0.0),
                 torch::tensor({{0.f, 0.f, 0.f, 1.f}, {0.f, 1.f, 0.f, 0.f}})));
  }

  void mixupWeighsTheBatchWithItsReverse() {
    // Two pathways (SlowFast): both get the same weights.
    auto a = torch::arange(3 * 1 * 1 * 2 * 2, torch::kFloat).view({3, 1, 1, 2, 2});
    auto b = torch::arange(3 * 1 * 2 * 2 * 2, torch::kFloat).view({3, 1, 2, 2, 2}) * 10;
    const auto a0 = a.clone(), b0 = b.clone();
    std::vector<torch::Tensor> x{a, b};
    train::MixDecision m;
    m.lam = 0.25;
    train::applyMix(x, m);
    QVERIFY(near(x[0], 0.25 * a0 + 0.75 * a0.flip(0)));
    QVERIFY(near(x[1], 0.25 * b0 + 0.75 * b0.flip(0), 1e-4));
    QVERIFY(near(x[0][1], a0[1]));  // the middle clip of an odd batch mixes with itself
  }

  void cutmixPastesTheBoxOfTheReverse() {
    auto a = torch::arange(2 * 1 * 2 * 4 * 5, torch::kFloat).view({2, 1, 2, 4, 5});
    const auto a0 = a.clone();
    std::vector<torch::Tensor> x{a};
    train::MixDecision m;
    m.cutmix = true;
    m.lam = 0.7;
    m.y0 = 1, m.y1 = 3, m.x0 = 2, m.x1 = 5;
    train::applyMix(x, m);
    for (int n = 0; n < 2; ++n)
      for (int t = 0; t < 2; ++t)
        for (int y = 0; y < 4; ++y)
          for (int xx = 0; xx < 5; ++xx) {
            const bool inBox = y >= 1 && y < 3 && xx >= 2 && xx < 5;
            QCOMPARE(x[0][n][0][t][y][xx].item<float>(),
                     a0[inBox ? 1 - n : n][0][t][y][xx].item<float>());
          }
  }

  // _get_mixup_params' branches and Beta draws; get_cutmix_bbox's corrected lam.
  void drawsFollowTheSettings() {
    int cutmixes = 0;
    double sum = 0, sumSq = 0;
    const int n = 4000;
    for (int i = 0; i < n; ++i) {
      const auto m = train::drawMix(params(0.8, 0.0), 224, 224, train::mixSeed(0, 0, i, 0, 0));
      cutmixes += m.cutmix;
      sum += m.lam;
      sumSq += m.lam * m.lam;
      QVERIFY(m.lam > 0.0 && m.lam < 1.0);
    }
    QCOMPARE(cutmixes, 0);
    const double mean = sum / n, var = sumSq / n - mean * mean;
    // Beta(0.8, 0.8): mean 0.5, variance ab / ((a + b)^2 (a + b + 1)) = 0.64 / (2.56 * 2.6) =
    // 0.0962.
    QVERIFY2(std::abs(mean - 0.5) < 0.02, qPrintable(QString::number(mean)));
    QVERIFY2(std::abs(var - 0.0962) < 0.006, qPrintable(QString::number(var)));
    // Beta(2, 2): mean 0.5 too, through the other branch of the gamma draws (alpha >= 1).
    sum = 0;
    for (int i = 0; i < n; ++i)
      sum += train::drawMix(params(2.0, 0.0), 8, 8, train::mixSeed(1, 2, i, 0, 0)).lam;
    QVERIFY2(std::abs(sum / n - 0.5) < 0.02, "Beta(2, 2) draws");

    int switched = 0;
    for (int i = 0; i < n; ++i) {
      const auto m =
          train::drawMix(params(0.8, 1.0, 1.0, 0.3), 7, 9, train::mixSeed(5, 1, i, 0, 0));
      if (!m.cutmix) continue;
      ++switched;
      QVERIFY(m.y0 >= 0 && m.y0 <= m.y1 && m.y1 <= 7 && m.x0 >= 0 && m.x0 <= m.x1 && m.x1 <= 9);
      QVERIFY(std::abs(m.lam - (1.0 - static_cast<double>((m.y1 - m.y0) * (m.x1 - m.x0)) / 63.0)) <
              1e-12);
    }
    QVERIFY2(std::abs(switched / double(n) - 0.3) < 0.03, qPrintable(QString::number(switched)));
    for (int i = 0; i < 200; ++i) {
      QVERIFY(train::drawMix(params(0.0, 1.0), 16, 16, train::mixSeed(0, 0, i, 0, 0))
                  .cutmix);  // cutmix only
      const auto none =
          train::drawMix(params(0.8, 1.0, 0.0), 16, 16, train::mixSeed(0, 0, i, 0, 0));
      QVERIFY(!none.cutmix && none.lam == 1.0);  // PROB 0
    }
    int mixed = 0;
    for (int i = 0; i < n; ++i)
      mixed +=
          train::drawMix(params(0.8, 0.0, 0.4), 8, 8, train::mixSeed(9, 0, i, 0, 0)).lam != 1.0;
    QVERIFY2(std::abs(mixed / double(n) - 0.4) < 0.03, "MIXUP.PROB");
  }

  // rand_bbox: cut = int(H * sqrt(1 - lam)); the box is centred at a random point and clipped.
  void cutmixBoxSizeFollowsLam() {
    for (int i = 0; i < 500; ++i) {
      const auto m = train::drawMix(params(0.0, 1.0), 100, 60, train::mixSeed(3, 0, i, 0, 0));
      QVERIFY(m.cutmix);
      // Unclipped boxes are 2 * (cut // 2) on each side; clipped ones are smaller.
      QVERIFY(m.y1 - m.y0 <= 100 && m.x1 - m.x0 <= 60);
      if (m.y0 > 0 && m.y1 < 100 && m.x0 > 0 && m.x1 < 60) {
        // lam here is the corrected one; the uncorrected lam' satisfies cut = int(H sqrt(1 -
        // lam')), so the box area is at most H W (1 - lam') and the sides stay proportional to H
        // and W.
        const double side =
            std::sqrt(1.0 - m.lam);  // area fraction = (h / H) (w / W) with h/H ~ w/W
        QVERIFY(std::abs((m.y1 - m.y0) / 100.0 - side) < 0.05 &&
                std::abs((m.x1 - m.x0) / 60.0 - side) < 0.05);
      }
    }
  }

  void drawsAreKeyedBySeedEpochStepAndRank() {
    const auto p = params(0.8, 1.0);
    auto same = [&](std::uint64_t a, std::uint64_t b) {
      const auto x = train::drawMix(p, 32, 32, a), y = train::drawMix(p, 32, 32, b);
      return x.lam == y.lam && x.cutmix == y.cutmix && x.y0 == y.y0 && x.x0 == y.x0;
    };
    QVERIFY(same(train::mixSeed(1, 2, 3, 0, 0), train::mixSeed(1, 2, 3, 0, 0)));
    QVERIFY(!same(train::mixSeed(1, 2, 3, 0, 0), train::mixSeed(2, 2, 3, 0, 0)));
    QVERIFY(!same(train::mixSeed(1, 2, 3, 0, 0), train::mixSeed(1, 3, 3, 0, 0)));
    QVERIFY(!same(train::mixSeed(1, 2, 3, 0, 0), train::mixSeed(1, 2, 4, 0, 0)));
    QVERIFY(!same(train::mixSeed(1, 2, 3, 0, 0), train::mixSeed(1, 2, 3, 1, 0)));
    QVERIFY(!same(train::mixSeed(1, 2, 3, 0, 0), train::mixSeed(1, 2, 3, 0, 1)));
  }

  // train_net.py's scoring on mixed targets, by hand.
  void errorsOnMixedTargetsAsPySlowFast() {
    const auto logits = torch::tensor({{1.f, 5.f, 3.f, 0.f}, {0.f, 1.f, 2.f, 0.5f}});
    const auto targets = torch::tensor({{0.6f, 0.f, 0.4f, 0.f}, {0.f, 0.3f, 0.f, 0.7f}});
    const auto [preds, labels] = train::mixedPredictionsForErrors(logits, targets);
    // Row 0: label 0, second class 2: logit 0 becomes 1 + 3, logit 2 becomes 0.
    QVERIFY(near(preds[0], torch::tensor({4.f, 5.f, 0.f, 0.f})));
    // Row 1: label 3, second class 1: logit 3 becomes 0.5 + 1 = 1.5, logit 1 becomes 0.
    QVERIFY(near(preds[1], torch::tensor({0.f, 0.f, 2.f, 1.5f})));
    QVERIFY(near(labels, torch::tensor({0, 3}, torch::kLong)));
    QVERIFY(near(logits[0],
                 torch::tensor({1.f, 5.f, 3.f, 0.f})));  // the logits themselves are untouched
  }

  void softTargetLossMatchesTheFormula() {
    const auto x = torch::tensor({{2.0f, -1.0f, 0.5f}, {0.1f, 0.2f, 3.0f}});
    const auto t = torch::tensor({{0.7f, 0.1f, 0.2f}, {0.0f, 0.5f, 0.5f}});
    const auto logp = torch::log_softmax(x, 1);
    const double expected = -(t * logp).sum().item<double>() / 2;
    QVERIFY(std::abs(train::softTargetLoss("soft_cross_entropy", x, t).item<double>() - expected) <
            1e-6);
    QVERIFY(std::abs(train::softTargetLoss("cross_entropy", x, t).item<double>() - expected) <
            1e-6);
    // One-hot soft targets give the hard-label loss.
    const auto y = torch::tensor({0, 2}, torch::kLong);
    const auto oneHot = torch::one_hot(y, 3).to(torch::kFloat);
    QVERIFY(std::abs(train::softTargetLoss("cross_entropy", x, oneHot).item<double>() -
                     train::classificationLoss("cross_entropy", x, y).item<double>()) < 1e-6);
    QVERIFY(std::abs(train::softTargetLoss("bce_logit", x, oneHot).item<double>() -
                     train::classificationLoss("bce_logit", x, y).item<double>()) < 1e-6);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, train::softTargetLoss("mse", x, t));
  }
};

QTEST_GUILESS_MAIN(TestMixup)
#include "tst_mixup.moc"
