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

// Precise BN over all of `data`, one batch per call, up to 3 batches.
train::PreciseBnResult updateOver(models::VideoNetImpl& net,
                                  const std::vector<torch::Tensor>& data) {
  std::size_t k = 0;
  return train::updatePreciseBnStats(net, 3, [&](std::vector<torch::Tensor>& in) {
    if (k == data.size()) return false;
    in = {data[k++]};
    return true;
  });
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
    const auto r = updateOver(net, data);
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

  // BN.NORM_TYPE sub_batchnorm (PySlowFast's SubBatchNorm3d): clip n is normalised with the
  // statistics of the clips n % splits; the weight and bias are shared.
  void subBatchNormNormalisesEachGroup() {
    torch::manual_seed(11);
    models::SyncableBatchNorm3d bn(3);
    bn->weight.data().copy_(torch::tensor({1.5, -0.5, 2.0}));
    bn->bias.data().copy_(torch::tensor({0.1, 0.2, -0.3}));
    bn->setSplits(2);
    bn->train();
    const auto x =
        torch::randn({6, 3, 2, 4, 4}) * torch::arange(1, 7).view({6, 1, 1, 1, 1}).to(torch::kFloat);
    const auto y = bn(x);
    for (int g = 0; g < 2; ++g) {
      const auto idx = torch::arange(g, 6, 2);
      const auto xg = x.index_select(0, idx), yg = y.index_select(0, idx);
      const auto mean = xg.mean({0, 2, 3, 4}, true),
                 var = xg.var({0, 2, 3, 4}, /*unbiased=*/false, true);
      const auto expected =
          (xg - mean) / torch::sqrt(var + 1e-5) * bn->weight.view({1, 3, 1, 1, 1}) +
          bn->bias.view({1, 3, 1, 1, 1});
      QVERIFY2(torch::allclose(yg, expected, 1e-5, 1e-5), qPrintable(QString("group %1").arg(g)));
    }
    // The shared weight and bias get the gradients of normalising each group on its own and then
    // scaling and shifting (SubBatchNorm3d's order), summed over the groups.
    const auto w = bn->weight.detach().clone().requires_grad_(true),
               b = bn->bias.detach().clone().requires_grad_(true);
    const auto xr = x.clone().requires_grad_(true);
    std::vector<torch::Tensor> parts;
    for (int g = 0; g < 2; ++g) {
      const auto xg = xr.index_select(0, torch::arange(g, 6, 2));
      const auto mean = xg.mean({0, 2, 3, 4}, true),
                 var = xg.var({0, 2, 3, 4}, /*unbiased=*/false, true);
      parts.push_back((xg - mean) / torch::sqrt(var + 1e-5));
    }
    const auto upstream = torch::randn_like(x);
    const auto ref = torch::cat(parts).index_select(0, torch::tensor({0, 3, 1, 4, 2, 5})) *
                         w.view({1, 3, 1, 1, 1}) +
                     b.view({1, 3, 1, 1, 1});
    QVERIFY(torch::allclose(ref.detach(), y.detach(), 1e-5, 1e-5));
    (ref * upstream).sum().backward();
    const auto xIn = x.clone().requires_grad_(true);
    bn->eval();
    bn->train();  // the same groups again for the input's gradient
    (bn(xIn) * upstream).sum().backward();
    QVERIFY(torch::allclose(bn->weight.grad(), w.grad(), 1e-4, 1e-5));
    QVERIFY(torch::allclose(bn->bias.grad(), b.grad(), 1e-4, 1e-5));
    QVERIFY(torch::allclose(xIn.grad(), xr.grad(), 1e-4, 1e-5));
    // Evaluation uses the merged running statistics, as plain batch norm.
    bn->eval();
    const auto z = bn(x);
    const auto expected = (x - bn->running_mean.view({1, 3, 1, 1, 1})) /
                              torch::sqrt(bn->running_var.view({1, 3, 1, 1, 1}) + 1e-5) *
                              bn->weight.view({1, 3, 1, 1, 1}) +
                          bn->bias.view({1, 3, 1, 1, 1});
    QVERIFY(torch::allclose(z, expected, 1e-5, 1e-5));
    // A batch the splits do not divide is refused with the key's name.
    bn->train();
    bool threw = false;
    try {
      bn(torch::randn({5, 3, 1, 2, 2}));
    } catch (const std::exception& e) {
      threw = std::string(e.what()).find("BN.NUM_SPLITS") != std::string::npos;
    }
    QVERIFY(threw);
  }

  // The merged statistics: mean of the groups' running means; mean of their running variances
  // plus the variance of their means (aggregate_sub_bn_stats). With momentum 1 after one batch
  // the merged mean is the whole batch's mean (within 1e-6 of one batch norm over the whole
  // batch), and the merged variance the law of total variance over the groups, with each
  // group's variance unbiased as batch norm keeps it.
  void subBatchNormMergesItsGroups() {
    torch::manual_seed(12);
    models::SyncableBatchNorm3d bn(2, 1e-5, 1.0);
    bn->setSplits(4);
    bn->train();
    const auto x =
        torch::randn({8, 2, 3, 5, 5}) + torch::arange(8).view({8, 1, 1, 1, 1}).to(torch::kFloat);
    bn(x);
    std::vector<torch::Tensor> means, vars;
    for (int g = 0; g < 4; ++g) {
      const auto xg = x.index_select(0, torch::arange(g, 8, 4));
      means.push_back(xg.mean({0, 2, 3, 4}));
      vars.push_back(xg.var({0, 2, 3, 4}, /*unbiased=*/true));
    }
    const auto m = torch::stack(means), v = torch::stack(vars);
    QVERIFY(torch::allclose(bn->splitMean(), m, 1e-6, 1e-6));
    QVERIFY(torch::allclose(bn->splitVar(), v, 1e-5, 1e-6));
    QVERIFY(torch::allclose(bn->running_mean, x.mean({0, 2, 3, 4}), 1e-6, 1e-5));
    const auto totalVar = v.mean(0) + (m - m.mean(0)).pow(2).mean(0);
    QVERIFY(torch::allclose(bn->running_var, totalVar, 1e-6, 1e-6));
    QVERIFY((bn->num_batches_tracked == 1).item<bool>());
    // Setting the splits again starts every group from the merged statistics (normal_to_sub_bn).
    bn->setSplits(2);
    QVERIFY(torch::allclose(bn->splitMean(), bn->running_mean.repeat({2, 1})));
    QVERIFY(torch::allclose(bn->splitVar(), bn->running_var.repeat({2, 1})));
    // Plain again: the state dict holds only batch norm's five tensors throughout.
    bn->setSplits(1);
    QCOMPARE(bn->named_buffers().size() + bn->named_parameters().size(), size_t{5});
  }

  // Precise BN with sub batch norm: each group's statistics averaged over the batches, then merged.
  void preciseStatisticsMergeTheGroups() {
    struct SplitNet : models::VideoNetImpl {
      models::BatchNorm3d bn{nullptr};
      SplitNet() {
        bn = register_module("bn", models::BatchNorm3d(2));
        bn->setSplits(2);
      }
      torch::Tensor forward(std::vector<torch::Tensor> x) override { return bn(x[0]); }
    } net;
    const auto data = batches();
    const auto r = updateOver(net, data);
    QCOMPARE(r.batches, 3);
    torch::Tensor m = torch::zeros({2, 2}), v = torch::zeros({2, 2});
    for (const auto& b : data)
      for (int g = 0; g < 2; ++g) {
        const auto xg = b.index_select(0, torch::arange(g, 4, 2));
        m[g] += xg.mean({0, 2, 3, 4}) / 3.0;
        v[g] += xg.var({0, 2, 3, 4}, true) / 3.0;
      }
    QVERIFY(torch::allclose(net.bn->splitMean(), m, 1e-5, 1e-5));
    QVERIFY(torch::allclose(net.bn->splitVar(), v, 1e-5, 1e-5));
    QVERIFY(torch::allclose(net.bn->running_mean, m.mean(0), 1e-5, 1e-5));
    QVERIFY(torch::allclose(net.bn->running_var, v.mean(0) + (m - m.mean(0)).pow(2).mean(0), 1e-5,
                            1e-5));
  }
};

QTEST_APPLESS_MAIN(TestPreciseBn)
#include "tst_precisebn.moc"
