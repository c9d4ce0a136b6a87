// Grad-CAM's colour maps (vis/ColourMap.h) at known points and against OpenCV's tables, and the
// drawing of maps over a clip (vis/GradCamSheet.h): PySlowFast's blend, which pathway's map goes
// on which row, the legend.
#include <QFile>
#include <QtTest>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "data/ClipPreview.h"
#include "vis/ColourMap.h"
#include "vis/GradCamSheet.h"

using namespace amp;

namespace {

const vis::ColourMap& colourMap(const std::string& name) {
  std::string error;
  const auto* map = vis::findColourMap(name, &error);
  if (!map) qFatal("%s", error.c_str());
  return *map;
}

// A clip of `frames` frames of 2 x 2 pixels, every byte `grey`.
data::PreviewClip greyClip(int frames, int slowFrames, std::uint8_t grey) {
  data::PreviewClip c;
  c.frames = frames;
  c.slow_frames = slowFrames;
  c.crop = c.height = c.width = 2;
  c.info.decoded = {2, 2};
  c.info.region = {0, 0, 2, 2};
  c.full.assign(2 * 2 * 3, grey);
  c.fast.assign(static_cast<std::size_t>(frames) * 2 * 2 * 3, grey);
  if (slowFrames) c.slow.assign(static_cast<std::size_t>(slowFrames) * 2 * 2 * 3, grey);
  return c;
}

}  // namespace

class TestColourMap : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The published table's ends and middle, and matplotlib's lookup: v takes entry
  // min(floor(256 v), 255).
  void viridisAtKnownPoints() {
    const auto& v = colourMap("viridis");
    auto near = [](const std::array<float, 3>& a, std::array<float, 3> b) {
      return std::abs(a[0] - b[0]) < 1e-6f && std::abs(a[1] - b[1]) < 1e-6f &&
             std::abs(a[2] - b[2]) < 1e-6f;
    };
    QVERIFY(near(v.at(0.0f), {0.267004f, 0.004874f, 0.329415f}));
    QVERIFY(near(v.at(1.0f), {0.993248f, 0.906157f, 0.143936f}));
    QVERIFY(near(v.at(0.5f), v.entry(128)));
    QVERIFY(near(v.at(0.4999f), v.entry(127)));
    QVERIFY(near(v.at(-3.0f), v.entry(0)));  // clamped
    QVERIFY(near(v.at(7.0f), v.entry(255)));
    QVERIFY(near(v.at(std::nanf("")), v.entry(0)));
    QCOMPARE(v.bytesAt(0.5f), (std::array<std::uint8_t, 3>{33, 145, 140}));
  }

  // jet from matplotlib's segment data, at entries computed by hand: entry 0 is (0, 0, .5); entry
  // 128 samples x = 128/255, where red rises from 0 at .35 to 1 at .66, green is 1 and blue falls
  // from 1 at .34 to 0 at .65; entry 255 is (.5, 0, 0).
  void jetFromItsSegments() {
    const auto& jet = colourMap("jet");
    QCOMPARE(jet.entry(0)[0], 0.0f);
    QCOMPARE(jet.entry(0)[2], 0.5f);
    const double x = 128.0 / 255.0;
    QVERIFY(std::abs(jet.entry(128)[0] - (x - 0.35) / 0.31) < 1e-6);
    QCOMPARE(jet.entry(128)[1], 1.0f);
    QVERIFY(std::abs(jet.entry(128)[2] - (1.0 - (x - 0.34) / 0.31)) < 1e-6);
    QCOMPARE(jet.entry(255)[0], 0.5f);
    QCOMPARE(jet.entry(255)[1], 0.0f);
  }

  // Every entry of the four listed maps, as bytes, equals OpenCV's (its tables were written by
  // tests/data/colourmaps/make_cv2_colour_maps.py).
  void listedMapsMatchOpenCv() {
    QFile f(QStringLiteral(AMPSTUDIO_TEST_DATA_DIR) + "/colourmaps/cv2_colour_maps.txt");
    QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
    std::map<std::string, int> checked;
    while (!f.atEnd()) {
      const QString line = QString::fromLatin1(f.readLine()).trimmed();
      if (line.isEmpty() || line.startsWith('#')) continue;
      const auto parts = line.split(' ');
      QCOMPARE(parts.size(), 5);
      const auto& map = colourMap(parts[0].toStdString());
      const int i = parts[1].toInt();
      const auto bytes = map.bytesAt((i + 0.5f) / 256.0f);
      for (int c = 0; c < 3; ++c)
        QVERIFY2(bytes[static_cast<std::size_t>(c)] == parts[2 + c].toInt(), qPrintable(line));
      ++checked[parts[0].toStdString()];
    }
    QCOMPARE(checked.size(), std::size_t{4});
    for (const auto& [name, n] : checked) QCOMPARE(n, 256);
  }

  // Pastel2, a listed map of 8 (VideoVisualizer's class colours): v takes colour floor(8 v),
  // so class k of n classes gets colour floor(8 k / n).
  void pastel2IsAListedMapOfEight() {
    std::string error;
    const auto* p = vis::findColourMap("Pastel2", &error);
    QVERIFY2(p, error.c_str());
    using Bytes = std::array<std::uint8_t, 3>;
    QCOMPARE(p->bytesAt(0.0f), (Bytes{179, 226, 205}));
    QCOMPARE(p->bytesAt(0.124f), (Bytes{179, 226, 205}));
    QCOMPARE(p->bytesAt(0.125f), (Bytes{253, 205, 172}));
    QCOMPARE(p->bytesAt(7.0f / 8), (Bytes{204, 204, 204}));
    QCOMPARE(p->bytesAt(1.0f), (Bytes{204, 204, 204}));
  }

  void unknownMapNamesTheBuiltOnes() {
    std::string error;
    QVERIFY(!vis::findColourMap("hot", &error));
    QCOMPARE(
        error,
        std::string(
            "'hot' is not a colour map built here; use one of viridis, plasma, inferno, magma, "
            "jet (or Pastel2, for class labels)"));
  }

  // PySlowFast's blend: alpha x colour + (1 - alpha) x frame. Grey 100 under v = 1 (viridis
  // 0.993248, 0.906157, 0.143936) at alpha .5: (.5 x .993248 + .5 x 100/255) x 255 = 176.6.
  void overlayBlendsAsPySlowFast() {
    const auto& v = colourMap("viridis");
    const std::vector<std::uint8_t> frame(3, 100);
    const auto out = vis::heatOverlay(frame, {1.0f}, v, 0.5);
    QCOMPARE(int(out[0]), int(std::lround((0.5 * 0.993248 + 0.5 * 100 / 255.0) * 255)));
    QCOMPARE(int(out[1]), int(std::lround((0.5 * 0.906157 + 0.5 * 100 / 255.0) * 255)));
    QCOMPARE(int(out[2]), int(std::lround((0.5 * 0.143936 + 0.5 * 100 / 255.0) * 255)));
    QCOMPARE(vis::heatOverlay(frame, {1.0f}, v, 0.0), frame);  // alpha 0: the frame alone
  }

  // SlowFast: pathway 0's map on the slow row, pathway 1's on the fast row; the source frame
  // untouched; the legend adds a strip under the sheet.
  void sheetPutsEachMapOnItsPathway() {
    const auto clip = greyClip(4, 2, 60);
    vis::GradCamResult r;
    r.maps.resize(2);
    r.maps[0].values.assign(2 * 4, 1.0f);  // slow: all hot
    r.maps[1].values.assign(4 * 4, 0.0f);  // fast: all cold
    const auto& v = colourMap("viridis");
    const auto sheet = vis::gradCamSheet(clip, r, v, 0.5);
    const auto plain = data::contactSheet(clip, false);
    QCOMPARE(sheet.width, plain.width);
    QCOMPARE(sheet.height, plain.height);
    auto pixel = [&](const data::ContactSheet& s, int x, int y) {
      const auto* p = s.rgb.data() + (static_cast<std::size_t>(y) * s.width + x) * 3;
      return std::array<int, 3>{p[0], p[1], p[2]};
    };
    const auto layout = data::contactSheetLayout(clip);
    const auto hot = vis::heatOverlay(std::vector<std::uint8_t>(3, 60), {1.0f}, v, 0.5);
    const auto cold = vis::heatOverlay(std::vector<std::uint8_t>(3, 60), {0.0f}, v, 0.5);
    const int fastY = layout.fast[0].y, slowY = fastY + 2 + 4;  // the slow row under the fast
    QCOMPARE(pixel(sheet, layout.fast[0].x, fastY),
             (std::array<int, 3>{cold[0], cold[1], cold[2]}));
    QCOMPARE(pixel(sheet, 0, slowY), (std::array<int, 3>{hot[0], hot[1], hot[2]}));
    QCOMPARE(pixel(sheet, 1, 1), pixel(plain, 1, 1));  // inside the source frame's region
    auto withLegend = sheet;
    std::string error;
    const bool text = vis::addLegend(withLegend, v, "class 3", &error);
    QVERIFY2(text || !error.empty(), "no text and no reason");
    QVERIFY(withLegend.width >= std::max(sheet.width, 200));
    QVERIFY(withLegend.height > sheet.height);
    for (int y = 0; y < sheet.height; ++y)  // the sheet itself is unchanged, top left
      for (int x = 0; x < sheet.width; ++x) QVERIFY(pixel(withLegend, x, y) == pixel(sheet, x, y));
    if (text) {  // a caption wider than the sheet widens the picture to hold it
      auto wide = sheet;
      QVERIFY(vis::addLegend(wide, v, std::string(120, 'M'), &error));
      QVERIFY(wide.width > std::max(sheet.width, 200));
    }
  }
};

QTEST_GUILESS_MAIN(TestColourMap)
#include "tst_colourmap.moc"
