// PySlowFast's pictures of weights and activations (add_ndim_array, add_heatmap, make_grid with
// padding 1), the fancy indexing of TENSORBOARD.MODEL_VIS.LAYER_LIST entries
// (process_layer_index_data) and the nearest names an unknown layer's error lists.
#include <QtTest>

#include <torch/torch.h>

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "vis/LayerSpec.h"
#include "vis/NdArrayImage.h"

using namespace amp;

namespace {
std::array<int, 3> pixel(const vis::NdImage& img, int x, int y) {
  const std::uint8_t* p = img.rgb.data() + (static_cast<std::size_t>(y) * img.width + x) * 3;
  return {p[0], p[1], p[2]};
}
}  // namespace

class TestNdArrayImage : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Grey levels as add_image stores floats: x 255, clipped, truncated (0.5 -> 127, -1 -> 0).
  void twoDimensionsAreTheImage() {
    const auto a = torch::tensor({{0.0f, 0.5f, 1.0f}, {-1.0f, 2.0f, 0.25f}});
    const auto img = vis::ndArrayImage(a, false);
    QVERIFY2(img.error.empty(), img.error.c_str());
    QCOMPARE(img.width, 3);
    QCOMPARE(img.height, 2);
    QCOMPARE(pixel(img, 1, 0), (std::array<int, 3>{127, 127, 127}));
    QCOMPARE(pixel(img, 2, 0), (std::array<int, 3>{255, 255, 255}));
    QCOMPARE(pixel(img, 0, 1), (std::array<int, 3>{0, 0, 0}));
    QCOMPARE(pixel(img, 1, 1), (std::array<int, 3>{255, 255, 255}));
    QCOMPARE(pixel(img, 2, 1), (std::array<int, 3>{63, 63, 63}));
  }

  // Viridis at 0 is (0.267004, 0.004874, 0.329415): 68, 1, 84 truncated; at 1 (0.993248,
  // 0.906157, 0.143936): 253, 231, 36.
  void heatMapIsViridis() {
    const auto img = vis::ndArrayImage(torch::tensor({{0.0f, 1.0f}}), true);
    QCOMPARE(pixel(img, 0, 0), (std::array<int, 3>{68, 1, 84}));
    QCOMPARE(pixel(img, 1, 0), (std::array<int, 3>{253, 231, 36}));
  }

  // 9 values: rows of floor(sqrt(9)) = 3; 10 values do not fill rows of 3 (PySlowFast's view
  // raises), which is said instead.
  void oneDimensionInRowsOfItsSquareRoot() {
    const auto img = vis::ndArrayImage(torch::arange(9, torch::kFloat) / 8, false);
    QCOMPARE(img.width, 3);
    QCOMPARE(img.height, 3);
    QCOMPARE(pixel(img, 0, 1)[0], 95);  // value 3 / 8 = 0.375 -> 95.6
    const auto ten = vis::ndArrayImage(torch::zeros({10}), false);
    QVERIFY(ten.rgb.empty());
    QVERIFY2(ten.error.find("10 values") != std::string::npos, ten.error.c_str());
    QVERIFY(!vis::ndArrayImage(torch::tensor(1.0f), false).error.empty());
  }

  // 2 x 3 x 2 x 2: six 2 x 2 slices, floor(sqrt(6)) = 2 to a row, 3 rows, cells of 3 x 3 behind
  // a 1-pixel black border: 7 x 10 pixels; slice k at (1 + 3 (k % 2), 1 + 3 (k / 2)).
  void higherRanksAreAGridOfSlices() {
    const auto a = torch::arange(6, torch::kFloat).view({2, 3, 1, 1}).expand({2, 3, 2, 2}) / 8;
    const auto img = vis::ndArrayImage(a.contiguous(), false);
    QCOMPARE(img.width, 7);
    QCOMPARE(img.height, 10);
    QCOMPARE(pixel(img, 0, 0), (std::array<int, 3>{0, 0, 0}));  // border
    QCOMPARE(pixel(img, 3, 5), (std::array<int, 3>{0, 0, 0}));  // between cells
    QCOMPARE(pixel(img, 5, 8)[0], 159);                         // slice 5: 0.625
    QCOMPARE(pixel(img, 4, 4)[0], 95);                          // slice 3: 0.375
    QCOMPARE(pixel(img, 2, 2)[0], 0);                           // slice 0: 0
    // One slice alone is the image, without a border (make_grid returns it).
    const auto one = vis::ndArrayImage(torch::ones({1, 1, 2, 3}), false);
    QCOMPARE(one.width, 3);
    QCOMPARE(one.height, 2);
  }

  // "s2/pathway0_res0 1,2;0" takes activation[clip, [1, 2], [0]]: numpy's broadcast of the
  // clip's index with the lists, so channels 1 and 2 of frame 0 of that clip.
  void layerEntriesIndexAsNumpy() {
    std::string error;
    const auto specs =
        vis::parseLayerSpecs({"s2/pathway0_res0 1,2;0", "head/projection", "s5  -1"}, &error);
    QVERIFY2(specs, error.c_str());
    QCOMPARE(specs->size(), std::size_t{3});
    QCOMPARE((*specs)[0].name, std::string("s2/pathway0_res0"));
    QCOMPARE((*specs)[0].indexing, (std::vector<std::vector<std::int64_t>>{{1, 2}, {0}}));
    QVERIFY((*specs)[1].indexing.empty());
    QCOMPARE((*specs)[2].indexing, (std::vector<std::vector<std::int64_t>>{{-1}}));

    const auto act = torch::arange(2 * 3 * 4 * 2 * 2, torch::kFloat).view({2, 3, 4, 2, 2});
    const auto sel = vis::selectForClip(act, 1, (*specs)[0].indexing);
    QCOMPARE(sel.sizes().vec(), (std::vector<std::int64_t>{2, 2, 2}));
    QVERIFY(torch::equal(sel[0], act[1][1][0]));
    QVERIFY(torch::equal(sel[1], act[1][2][0]));
    QVERIFY(torch::equal(vis::selectForClip(act, 0, {}), act[0]));
    QVERIFY(torch::equal(vis::selectForClip(act, 0, {{-1}}), act[0][2].unsqueeze(0)));
    QVERIFY(torch::equal(vis::selectForClip(act, std::nullopt, {}), act));  // weights: all of it
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, vis::selectForClip(act, 0, {{5}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             vis::selectForClip(act, 0, {{0}, {0}, {0}, {0}, {0}}));
  }

  void badEntriesAreSaid() {
    std::string error;
    QVERIFY(!vis::parseLayerSpecs({"s2 1,x"}, &error));
    QCOMPARE(error, std::string("TENSORBOARD.MODEL_VIS.LAYER_LIST: 's2 1,x': 'x' in the indexing "
                                "'1,x' is not an integer index"));
    QVERIFY(!vis::parseLayerSpecs({"  "}, &error));
    QVERIFY2(error.find("an empty entry") != std::string::npos, error.c_str());
    QVERIFY(!vis::parseLayerSpecs({"a 1 2"}, &error));
  }

  void nearestNamesByEditDistance() {
    const std::vector<std::string> names = {"s1/pathway0_stem", "s2/pathway0_res0",
                                            "s2/pathway0_res1", "head/projection"};
    QCOMPARE(vis::nearestNames("s2/pathway0_res9", names, 2),
             (std::vector<std::string>{"s2/pathway0_res0", "s2/pathway0_res1"}));
    QCOMPARE(vis::nearestNames("head/proj", names, 1),
             (std::vector<std::string>{"head/projection"}));
  }
};

QTEST_GUILESS_MAIN(TestNdArrayImage)
#include "tst_ndarrayimage.moc"
