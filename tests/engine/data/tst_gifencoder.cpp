// GifEncoder and GifPalette: an animated GIF made in memory decodes back through FFmpeg with its
// frame count, size and rate, and with the colours of a few-colour clip (a heat map's, a label
// panel's) kept; sizes and rates a GIF cannot hold are refused with the reason.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>
#include <vector>

#include "data/GifEncoder.h"
#include "data/GifPalette.h"
#include "data/VideoDecoder.h"

using namespace amp::data;

namespace {
// `frames` frames of w x h: frame t is split into a left half of colour a and a right half of b,
// the boundary moving right by one pixel per frame.
std::vector<std::uint8_t> twoColourClip(int frames, int w, int h, std::array<std::uint8_t, 3> a,
                                        std::array<std::uint8_t, 3> b) {
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(frames * w * h * 3));
  for (int t = 0; t < frames; ++t)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const auto& c = x < w / 2 + t ? a : b;
        std::uint8_t* p = rgb.data() + ((static_cast<std::size_t>(t) * h + y) * w + x) * 3;
        p[0] = c[0];
        p[1] = c[1];
        p[2] = c[2];
      }
  return rgb;
}
}  // namespace

class TestGifEncoder : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void paletteKeepsTheColoursOfAFewColourClip() {
    const auto rgb = twoColourClip(2, 8, 4, {253, 231, 36}, {68, 1, 84});  // viridis' ends
    const auto p = GifPalette::of(rgb.data(), rgb.size() / 3);
    const auto indices = p.map(rgb.data(), rgb.size() / 3);
    for (std::size_t i = 0; i < indices.size(); ++i) {
      const auto& e = p.entry(indices[i]);
      QCOMPARE(int(e[0]), int(rgb[3 * i]));
      QCOMPARE(int(e[1]), int(rgb[3 * i + 1]));
      QCOMPARE(int(e[2]), int(rgb[3 * i + 2]));
    }
    QCOMPARE(p.argb()[indices[0]], 0xFFFDE724u);  // opaque, 0xAARRGGBB
  }

  // Odd sizes on purpose: a GIF has no even-size rule, and TensorBoard gets the clip as it is.
  void decodesBackWithItsFramesSizeAndRate() {
    constexpr int kFrames = 5, kW = 21, kH = 13;
    const auto rgb = twoColourClip(kFrames, kW, kH, {200, 30, 30}, {20, 40, 220});
    std::string gif, error;
    QVERIFY2(encodeGif(rgb.data(), kFrames, kW, kH, 4, gif, &error), error.c_str());
    QCOMPARE(gif.substr(0, 6), std::string("GIF89a"));
    const std::string path = (dir_.path() + "/clip.gif").toStdString();
    std::ofstream(path, std::ios::binary) << gif;

    VideoDecoder decoder;
    QVERIFY2(decoder.open(path, &error), error.c_str());
    QCOMPARE(decoder.info().width, kW);
    QCOMPARE(decoder.info().height, kH);
    QCOMPARE(decoder.info().codec, std::string("gif"));
    int corrupt = 0;
    QCOMPARE(decoder.countFrames(&corrupt, &error), std::int64_t{kFrames});
    QCOMPARE(corrupt, 0);
    // 4 frames a second: each frame 25 hundredths of a second after the one before.
    DecodedClip clip;
    QVERIFY2(decoder.decode({0, 1, 4}, 0, 0, clip, &error), error.c_str());
    QCOMPARE(clip.indices, (std::vector<std::int64_t>{0, 1, 4}));
    QCOMPARE(clip.timestamps_s[1] - clip.timestamps_s[0], 0.25);
    // Frame 4's boundary is at x = 10 + 4: its pixels decode to the colours they were given.
    const auto pixel = [&](int frame, int x, int y) {
      const std::uint8_t* p =
          clip.rgb.data() + ((static_cast<std::size_t>(frame) * kH + y) * kW + x) * 3;
      return std::array<int, 3>{p[0], p[1], p[2]};
    };
    QCOMPARE(pixel(2, 13, 6), (std::array<int, 3>{200, 30, 30}));
    QCOMPARE(pixel(2, 14, 6), (std::array<int, 3>{20, 40, 220}));
    QCOMPARE(pixel(0, 10, 0), (std::array<int, 3>{20, 40, 220}));
  }

  void refusesWhatAGifCannotHold() {
    const std::vector<std::uint8_t> rgb(3, 0);
    std::string gif, error;
    QVERIFY(!encodeGif(rgb.data(), 0, 1, 1, 4, gif, &error));
    QVERIFY2(error.find("0 frames") != std::string::npos, error.c_str());
    QVERIFY(!encodeGif(rgb.data(), 1, 1, 1, 0, gif, &error));
    QVERIFY2(error.find("fps 0") != std::string::npos, error.c_str());
  }
};

QTEST_GUILESS_MAIN(TestGifEncoder)
#include "tst_gifencoder.moc"
