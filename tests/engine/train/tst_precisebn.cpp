#include <torch/torch.h>

#include <QtTest>

#include "models/Net.h"
#include "train/PreciseBn.h"

using namespace amp;

namespace {

struct TinyNet : models::VideoNetImpl {
  models::BatchNorm3d bn{nullptr};
  TinyNet() { bn = register_module("bn", models::BatchNorm3d(2)); }
  torch::Tensor forward(std::vector<torch::Tensor> x) override { return bn(x[0]); }
};

std::vector<torch::Tensor> batches() {
  torch::manual_seed(5);
  std::vector<torch::Tensor> out;
  for (int k = 1; k <= 3; ++k) out.push_back(torch::randn({4, 2, 2, 3, 3}) * k + 2.0 * k);
  return out;
}

}  // namespace

class TestPreciseBn : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // fvcore's update_bn_stats: running statistics = the mean over batches of each batch's mean and
  // unbiased variance; momentum restored, weights untouched, the model's mode kept.
  void averagesPerBatchStatistics() {
    TinyNet net;
    net.eval();
    net.bn->weight.data().fill_(3.0);
    const auto data = batches();
    size_t k = 0;
    const auto r = train::updatePreciseBnStats(net, 3, [&](std::vector<torch::Tensor>& in) {
      if (k == data.size()) return false;
      in = {data[k++]};
      return true;
    });
    QCOMPARE(r.layers, 1);
    QCOMPARE(r.batches, 3);
    QVERIFY(!r.aborted);
    torch::Tensor mean = torch::zeros({2}), var = torch::zeros({2});
    for (const auto& b : data) {
      mean += b.mean({0, 2, 3, 4}) / 3.0;
      var += b.var({0, 2, 3, 4}, /*unbiased=*/true) / 3.0;
    }
    QVERIFY(torch::allclose(net.bn->running_mean, mean, 1e-5, 1e-6));
    QVERIFY(torch::allclose(net.bn->running_var, var, 1e-5, 1e-6));
    QCOMPARE(net.bn->momentum(), 0.1);
    QVERIFY(torch::equal(net.bn->weight, torch::full({2}, 3.0)));
    QVERIFY(!net.is_training());
    // not the exponential average that three training steps with momentum 0.1 would leave
    TinyNet plain;
    plain.train();
    for (const auto& b : data) plain.forward({b});
    QVERIFY(!torch::allclose(plain.bn->running_mean, mean, 1e-3, 1e-3));
  }

  // Stopped (or out of data) before the last batch: the statistics stay as they were.
  void abortedLeavesStatisticsAlone() {
    TinyNet net;
    net.bn->running_mean.fill_(0.5);
    net.bn->running_var.fill_(2.0);
    const auto data = batches();
    size_t k = 0;
    const auto r = train::updatePreciseBnStats(net, 3, [&](std::vector<torch::Tensor>& in) {
      if (k == 1) return false;
      in = {data[k++]};
      return true;
    });
    QVERIFY(r.aborted);
    QCOMPARE(r.batches, 1);
    QVERIFY(torch::equal(net.bn->running_mean, torch::full({2}, 0.5)));
    QVERIFY(torch::equal(net.bn->running_var, torch::full({2}, 2.0)));
    QCOMPARE(net.bn->num_batches_tracked.item<std::int64_t>(), std::int64_t(0));
    QCOMPARE(net.bn->momentum(), 0.1);
  }
};

QTEST_APPLESS_MAIN(TestPreciseBn)
#include "tst_precisebn.moc"
