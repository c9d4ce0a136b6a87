// RoIAlign against values worked out by hand from torchvision's CPU kernel (sample positions,
// clamping at the border, the adaptive grid), its gradient against finite differences, and its
// dtypes under autocast.
#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "amp/AutocastGuard.h"
#include "models/RoIAlign.h"

using namespace amp;

namespace {

// One 4 x 4 image whose pixel (h, w) is 4h + w. Bilinear sampling of this ramp at (y, x) gives
// 4y + x wherever both neighbours exist, so a bin's value is 4 * (mean sample y) + (mean sample
// x) after each sample's clamping: the hand-worked values below are those means.
torch::Tensor ramp() {
  return torch::arange(16, torch::kFloat).view({1, 1, 4, 4});
}

torch::Tensor boxes(std::vector<std::vector<float>> rows) {
  auto t = torch::empty({static_cast<int64_t>(rows.size()), 5});
  for (size_t i = 0; i < rows.size(); ++i)
    for (int64_t j = 0; j < 5; ++j) t[static_cast<int64_t>(i)][j] = rows[i][j];
  return t;
}

torch::Tensor values(std::vector<float> v, int64_t h, int64_t w) {
  return torch::tensor(v).view({1, 1, h, w});
}

// torchvision's CPU kernel read one sample at a time, in double: a slow, loop-by-loop statement
// of the semantics that the vectorised roiAlign must equal on any boxes.
double sampleAt(const torch::TensorAccessor<double, 2>& plane, double y, double x) {
  const auto height = plane.size(0), width = plane.size(1);
  if (!(y >= -1.0 && y <= static_cast<double>(height) && x >= -1.0 &&
        x <= static_cast<double>(width)))
    return 0.0;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= height - 1) y = static_cast<double>(y0 = y1 = height - 1);
  if (x0 >= width - 1) x = static_cast<double>(x0 = x1 = width - 1);
  const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0);
  return (1 - ly) * (1 - lx) * plane[y0][x0] + (1 - ly) * lx * plane[y0][x1] +
         ly * (1 - lx) * plane[y1][x0] + ly * lx * plane[y1][x1];
}

torch::Tensor loopRoiAlign(const torch::Tensor& input, const torch::Tensor& rois, int64_t outH,
                           int64_t outW, double scale, int64_t sampling, bool aligned) {
  const auto in = input.to(torch::kDouble).contiguous();
  const auto r = rois.to(torch::kDouble).contiguous();
  const auto a = in.accessor<double, 4>();
  const auto b = r.accessor<double, 2>();
  auto out = torch::zeros({r.size(0), in.size(1), outH, outW}, torch::kDouble);
  auto o = out.accessor<double, 4>();
  const double shift = aligned ? 0.5 : 0.0;
  for (int64_t k = 0; k < r.size(0); ++k) {
    const auto n = static_cast<int64_t>(b[k][0]);
    const double x0 = b[k][1] * scale - shift, y0 = b[k][2] * scale - shift;
    double w = b[k][3] * scale - shift - x0, h = b[k][4] * scale - shift - y0;
    if (!aligned) w = std::max(w, 1.0), h = std::max(h, 1.0);
    const double binH = h / static_cast<double>(outH), binW = w / static_cast<double>(outW);
    const auto gridH = sampling > 0 ? sampling : static_cast<int64_t>(std::ceil(binH));
    const auto gridW = sampling > 0 ? sampling : static_cast<int64_t>(std::ceil(binW));
    const double count = static_cast<double>(std::max<int64_t>(gridH * gridW, 1));
    for (int64_t c = 0; c < in.size(1); ++c)
      for (int64_t i = 0; i < outH; ++i)
        for (int64_t j = 0; j < outW; ++j) {
          double sum = 0;
          for (int64_t iy = 0; iy < gridH; ++iy)
            for (int64_t ix = 0; ix < gridW; ++ix)
              sum +=
                  sampleAt(a[n][c],
                           y0 + static_cast<double>(i) * binH +
                               (static_cast<double>(iy) + 0.5) * binH / static_cast<double>(gridH),
                           x0 + static_cast<double>(j) * binW +
                               (static_cast<double>(ix) + 0.5) * binW / static_cast<double>(gridW));
          o[k][c][i][j] = sum / count;
        }
  }
  return out;
}

bool near(const torch::Tensor& a, const torch::Tensor& b, double tol = 1e-5) {
  return a.sizes() == b.sizes() &&
         torch::allclose(a.to(torch::kFloat), b.to(torch::kFloat), tol, tol);
}

}  // namespace

class TestRoIAlign : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    torch::manual_seed(0);
    torch::set_num_threads(2);
  }

  // Box (0, 0) - (2, 2), 2 x 2 bins of 2 x 2 samples: samples at 0.25, 0.75 | 1.25, 1.75.
  void legacyBoxFixedSampling() {
    const auto out = models::roiAlign(ramp(), boxes({{0, 0, 0, 2, 2}}), {2, 2}, 1.0, 2, false);
    QVERIFY(near(out, values({2.5F, 3.5F, 6.5F, 7.5F}, 2, 2)));
  }

  // aligned: the box moves by -0.5, samples at -0.25 (clamped to 0), 0.25 | 0.75, 1.25; the
  // means are 0.125 and 1.0.
  void alignedShiftsHalfAPixelAndClampsAtZero() {
    const auto out = models::roiAlign(ramp(), boxes({{0, 0, 0, 2, 2}}), {2, 2}, 1.0, 2, true);
    QVERIFY(near(out, values({0.625F, 1.5F, 4.125F, 5.0F}, 2, 2)));
  }

  // Box (0, 0) - (4, 4) at half scale is the box (0, 0) - (2, 2).
  void spatialScaleScalesTheBox() {
    const auto out = models::roiAlign(ramp(), boxes({{0, 0, 0, 4, 4}}), {2, 2}, 0.5, 2, false);
    QVERIFY(near(out, values({2.5F, 3.5F, 6.5F, 7.5F}, 2, 2)));
  }

  // sampling_ratio 0: ceil(roi / bins) samples per bin and axis, per RoI. Box (0, 0) - (4, 4):
  // bins of 2, 2 samples at 0.5, 1.5 | 2.5, 3.5, where 3.5 is past the last pixel's centre and
  // reads the last pixel (3): means 1.0 and 2.75. Box (0, 0) - (1, 1): bins of 0.5, 1 sample at
  // 0.25 | 0.75. Box (0, 0) - (4, 1): 1 sample per bin down, 2 across (count 2).
  void adaptiveSamplingPerRoI() {
    const auto rois = boxes({{0, 0, 0, 4, 4}, {0, 0, 0, 1, 1}, {0, 0, 0, 4, 1}});
    const auto out = models::roiAlign(ramp(), rois, {2, 2}, 1.0, 0, false);
    QCOMPARE(out.sizes().vec(), (std::vector<int64_t>{3, 1, 2, 2}));
    QVERIFY(near(out[0], values({5.0F, 6.75F, 12.0F, 13.75F}, 2, 2)[0]));
    QVERIFY(near(out[1], values({1.25F, 1.75F, 3.25F, 3.75F}, 2, 2)[0]));
    QVERIFY(near(out[2], values({2.0F, 3.75F, 4.0F, 5.75F}, 2, 2)[0]));
    // The same RoIs one at a time: the shared grid's extra samples weigh nothing.
    for (int64_t k = 0; k < 3; ++k)
      QVERIFY(near(models::roiAlign(ramp(), rois.slice(0, k, k + 1), {2, 2}, 1.0, 0, false),
                   out.slice(0, k, k + 1)));
  }

  // A box over the border, 1 bin of 2 x 2 samples. (2, 2) - (6, 6): samples at 3 (the last pixel)
  // and 5 (beyond H = 4: reads 0); only (3, 3) = 15 counts, over 4 samples. Samples exactly at -1
  // and at W are still inside (clamped to the first / last pixel), those beyond read 0.
  void boxOverTheBorder() {
    auto one = [](std::vector<float> box) {
      return models::roiAlign(ramp(), boxes({box}), {1, 1}, 1.0, 2, false).item<float>();
    };
    QCOMPARE(one({0, 2, 2, 6, 6}), 3.75F);
    // x samples -2 (outside) and 0; y samples 0.5 and 1.5: (2 + 6) / 4.
    QCOMPARE(one({0, -3, 0, 1, 2}), 2.0F);
    // x samples -1 (kept, clamped to 0) and 0: (2 + 6 + 2 + 6) / 4.
    QCOMPARE(one({0, -1.5F, 0, 0.5F, 2}), 4.0F);
    // x samples 3 and 4 (= W: kept, the last column): (5 + 9 + 5 + 9) / 4.
    QCOMPARE(one({0, 2.5F, 0, 4.5F, 2}), 7.0F);
    // Entirely outside: 0.
    QCOMPARE(one({0, 10, 10, 12, 12}), 0.0F);
  }

  // Legacy boxes are at least 1 x 1 pixel: the empty box at (1, 1) samples (1.5, 1.5). Aligned,
  // the same box has size 0, so no samples and 0.
  void emptyBoxes() {
    const auto b = boxes({{0, 1, 1, 1, 1}});
    QCOMPARE(models::roiAlign(ramp(), b, {1, 1}, 1.0, 0, false).item<float>(), 7.5F);
    QCOMPARE(models::roiAlign(ramp(), b, {1, 1}, 1.0, 0, true).item<float>(), 0.0F);
    // No boxes at all: K = 0 rows.
    const auto none = models::roiAlign(ramp(), torch::zeros({0, 5}), {7, 7}, 1.0, 0, true);
    QCOMPARE(none.sizes().vec(), (std::vector<int64_t>{0, 1, 7, 7}));
  }

  // Random boxes (inside, across the border, outside, inverted, tiny and large) against the
  // sample-by-sample reading of the kernel, in double.
  void equalsTheKernelSampleBySample_data() {
    QTest::addColumn<bool>("aligned");
    QTest::addColumn<int>("sampling");
    for (bool aligned : {true, false})
      for (int sampling : {0, 1, 3})
        QTest::newRow(
            (std::string(aligned ? "aligned-" : "legacy-") + std::to_string(sampling)).c_str())
            << aligned << sampling;
  }
  void equalsTheKernelSampleBySample() {
    QFETCH(bool, aligned);
    QFETCH(int, sampling);
    const auto x = torch::randn({2, 3, 9, 11}, torch::kDouble);
    const int64_t k = 40;
    auto rois = torch::empty({k, 5}, torch::kDouble);
    rois.select(1, 0) = torch::randint(0, 2, {k}, torch::kDouble);
    rois.slice(1, 1, 5) = torch::rand({k, 4}, torch::kDouble) * 130 - 20;        // some inverted
    rois[0] = torch::tensor({0.0, 8.0, 8.0, 8.5, 8.2}, torch::kDouble);          // tiny
    rois[1] = torch::tensor({1.0, -40.0, -40.0, 200.0, 200.0}, torch::kDouble);  // large
    const double scale = 1.0 / 8;
    const auto ours = models::roiAlign(x, rois, {3, 4}, scale, sampling, aligned);
    const auto reference = loopRoiAlign(x, rois, 3, 4, scale, sampling, aligned);
    QVERIFY2(torch::allclose(ours, reference, 1e-12, 1e-12),
             std::to_string((ours - reference).abs().max().item<double>()).c_str());
  }

  // Column 0 picks the image of the batch; every channel is pooled alike.
  void batchIndexAndChannels() {
    const auto img = torch::cat({ramp(), 2 * ramp()}, 1);  // 1 x 2 x 4 x 4
    const auto batch = torch::cat({img, img + 100}, 0);    // 2 x 2 x 4 x 4
    const auto out =
        models::roiAlign(batch, boxes({{1, 0, 0, 2, 2}, {0, 0, 0, 2, 2}}), {2, 2}, 1.0, 2, false);
    const auto first = values({2.5F, 3.5F, 6.5F, 7.5F}, 2, 2)[0][0];
    QVERIFY(near(out[0][0], first + 100));
    QVERIFY(near(out[0][1], 2 * first + 100));
    QVERIFY(near(out[1][0], first));
    QVERIFY(near(out[1][1], 2 * first));
  }

  // The backward pass autograd derives, against central differences in double precision, with
  // boxes that take every path (adaptive grids of 1 to 3, the border, another image, aligned
  // and not). The boxes get no gradient, as from torchvision.
  void gradientMatchesFiniteDifferences_data() {
    QTest::addColumn<bool>("aligned");
    QTest::addColumn<int>("sampling");
    QTest::newRow("aligned-adaptive") << true << 0;
    QTest::newRow("legacy-adaptive") << false << 0;
    QTest::newRow("aligned-2") << true << 2;
  }
  void gradientMatchesFiniteDifferences() {
    QFETCH(bool, aligned);
    QFETCH(int, sampling);
    auto x = torch::randn({2, 3, 5, 6}, torch::kDouble).requires_grad_(true);
    auto rois = torch::tensor({{0.0, 1.0, 0.5, 9.0, 7.0},
                               {1.0, -2.0, -1.0, 4.0, 3.0},
                               {1.0, 6.0, 4.0, 13.0, 11.0},
                               {0.0, 3.3, 2.1, 4.0, 2.6}},
                              torch::kDouble)
                    .requires_grad_(true);
    const auto weights = torch::randn({4, 3, 2, 3}, torch::kDouble);
    auto loss = [&](const torch::Tensor& in) {
      return (models::roiAlign(in, rois, {2, 3}, 0.5, sampling, aligned) * weights).sum();
    };
    loss(x).backward();
    QVERIFY(!rois.grad().defined());
    const auto analytic = x.grad().clone();
    torch::NoGradGuard noGrad;
    auto flat = x.detach().clone().view(-1);
    auto numeric = torch::zeros_like(flat);
    const double eps = 1e-6;
    for (int64_t i = 0; i < flat.numel(); ++i) {
      const double v = flat[i].item<double>();
      flat[i] = v + eps;
      const double up = loss(flat.view(x.sizes())).item<double>();
      flat[i] = v - eps;
      const double down = loss(flat.view(x.sizes())).item<double>();
      flat[i] = v;
      numeric[i] = (up - down) / (2 * eps);
    }
    QVERIFY(analytic.abs().sum().item<double>() > 0);
    QVERIFY2(torch::allclose(analytic.view(-1), numeric, 1e-6, 1e-7),
             std::to_string((analytic.view(-1) - numeric).abs().max().item<double>()).c_str());
  }

  // Under autocast the pooling runs in float32 and the result comes back in the input's dtype
  // (torchvision's autocast kernel); a float32 input stays exact (no matrix product cast down).
  void autocastKeepsTheInputDtype_data() {
    QTest::addColumn<int>("dtype");
    QTest::newRow("float16") << static_cast<int>(torch::kHalf);
    QTest::newRow("bfloat16") << static_cast<int>(torch::kBFloat16);
  }
  void autocastKeepsTheInputDtype() {
    QFETCH(int, dtype);
    const auto type = static_cast<torch::ScalarType>(dtype);
    const auto x = torch::randn({2, 8, 7, 9});
    const auto rois = torch::tensor({{0.0F, 0.0F, 0.0F, 64.0F, 48.0F},
                                     {1.0F, 20.0F, 10.0F, 120.0F, 100.0F},
                                     {1.0F, -8.0F, 30.0F, 40.0F, 160.0F}});
    const auto reference = models::roiAlign(x, rois, {3, 3}, 1.0 / 16, 0, true);
    precision::AutocastGuard autocast(true, precision::AutocastDevice::CPU,
                                      precision::AutocastType::BFloat16);
    const auto low = models::roiAlign(x.to(type), rois, {3, 3}, 1.0 / 16, 0, true);
    QCOMPARE(low.scalar_type(), type);
    // The input's rounding (2^-8 or 2^-11 relative) and the output's.
    QVERIFY(torch::allclose(low.to(torch::kFloat), reference, 2e-2, 2e-2));
    const auto full = models::roiAlign(x, rois, {3, 3}, 1.0 / 16, 0, true);
    QCOMPARE(full.scalar_type(), torch::kFloat);
    QVERIFY(torch::allclose(full, reference, 1e-6, 1e-6));
    // detectron2's module rounds the boxes to the input's dtype first.
    models::RoIAlign module(std::array<int64_t, 2>{3, 3}, 1.0 / 16, 0, true);
    const auto viaModule = module(x.to(type), rois);
    QCOMPARE(viaModule.scalar_type(), type);
    QVERIFY(torch::allclose(viaModule.to(torch::kFloat), reference, 3e-2, 3e-2));
  }

  void refusesMalformedArguments() {
    QVERIFY_EXCEPTION_THROWN(
        models::roiAlign(torch::zeros({1, 4, 4}), boxes({{0, 0, 0, 1, 1}}), {1, 1}, 1.0, 0, true),
        std::invalid_argument);
    QVERIFY_EXCEPTION_THROWN(models::roiAlign(ramp(), torch::zeros({2, 4}), {1, 1}, 1.0, 0, true),
                             std::invalid_argument);
  }
};

QTEST_GUILESS_MAIN(TestRoIAlign)
#include "tst_roialign.moc"
