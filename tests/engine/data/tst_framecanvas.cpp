// FrameCanvas: rectangles and panels land on exactly the pixels asked for, clipped to the frame;
// text puts ink inside its line box and nowhere else; UTF-8 decoding survives bad bytes.
#include <QtTest>

#include <vector>

#include "data/FrameCanvas.h"

using namespace amp::data;

namespace {
constexpr int kW = 40, kH = 30;
Rgb at(const std::vector<std::uint8_t>& f, int x, int y) {
  const std::uint8_t* p = f.data() + (static_cast<std::size_t>(y) * kW + x) * 3;
  return {p[0], p[1], p[2]};
}
}  // namespace

class TestFrameCanvas : public QObject {
  Q_OBJECT
 private slots:
  void rectangleOutlinesInsideItsCorners() {
    std::vector<std::uint8_t> f(kW * kH * 3, 0);
    FrameCanvas c(f.data(), kW, kH);
    c.rectangle({5, 4, 14, 12}, {255, 0, 0}, 2);
    QCOMPARE(at(f, 5, 4), (Rgb{255, 0, 0}));    // corner
    QCOMPARE(at(f, 14, 12), (Rgb{255, 0, 0}));  // opposite corner
    QCOMPARE(at(f, 6, 8), (Rgb{255, 0, 0}));    // 2 pixels thick on the left
    QCOMPARE(at(f, 7, 8), (Rgb{0, 0, 0}));      // inside stays
    QCOMPARE(at(f, 4, 8), (Rgb{0, 0, 0}));      // outside stays
    QCOMPARE(at(f, 15, 12), (Rgb{0, 0, 0}));
    int painted = 0;
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) painted += at(f, x, y)[0] == 255;
    QCOMPARE(painted, 10 * 9 - 6 * 5);  // the box minus its 6 x 5 inside
  }

  void fillBlendsAndClipsToTheFrame() {
    std::vector<std::uint8_t> f(kW * kH * 3, 100);
    FrameCanvas c(f.data(), kW, kH);
    c.fill({-10, -10, 2, 1}, {200, 0, 100}, 0.5);  // mostly outside: no crash, corner blended
    QCOMPARE(at(f, 0, 0), (Rgb{150, 50, 100}));
    QCOMPARE(at(f, 2, 1), (Rgb{150, 50, 100}));
    QCOMPARE(at(f, 3, 1), (Rgb{100, 100, 100}));
    c.rectangle({30, 20, 60, 50}, {0, 0, 0}, 1);  // past the right and bottom edges
    QCOMPARE(at(f, 30, 29), (Rgb{0, 0, 0}));
    QCOMPARE(at(f, 39, 20), (Rgb{0, 0, 0}));
  }

  void textInksInsideItsLineBox() {
    std::string error;
    auto font = TextFont::open(12, &error);
    QVERIFY2(font, error.c_str());
    QVERIFY(font->lineHeight() >= 12);
    const int w = font->width("walk");
    QVERIFY2(w > 12 && w < 48, qPrintable(QString::number(w)));
    QVERIFY(font->width("walk 0.93") > w);
    std::vector<std::uint8_t> f(kW * kH * 3, 0);
    FrameCanvas c(f.data(), kW, kH);
    const int end = c.text(*font, 2, 3, "walk", {255, 255, 255});
    QCOMPARE(end, 2 + w);
    int inside = 0, outside = 0;
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        const bool ink = at(f, x, y)[0] > 0;
        const bool inBox = x >= 2 && x < 2 + w + 1 && y >= 3 && y < 3 + font->lineHeight();
        (inBox ? inside : outside) += ink;
      }
    QVERIFY2(inside > 20, qPrintable(QString::number(inside)));
    QCOMPARE(outside, 0);
  }

  void labelStaysInsideTheFrame() {
    std::string error;
    auto font = TextFont::open(10, &error);
    QVERIFY2(font, error.c_str());
    std::vector<std::uint8_t> f(kW * kH * 3, 0);
    FrameCanvas c(f.data(), kW, kH);
    const PixelRect r = c.label(*font, 35, 28, "ab", {0, 0, 0}, {255, 255, 0}, 1.0);
    QVERIFY(r[0] >= 0 && r[1] >= 0);
    QCOMPARE(r[2], kW - 1);  // pushed left and up to fit
    QCOMPARE(r[3], kH - 1);
    QCOMPARE(at(f, kW - 1, kH - 1), (Rgb{255, 255, 0}));
  }

  void missingFontFileIsNamed() {
    std::string error;
    QVERIFY(!TextFont::open(12, &error, "/nonexistent/font.ttf"));
    QVERIFY2(QString::fromStdString(error).contains("/nonexistent/font.ttf"), error.c_str());
  }

  void utf8DecodesAndReplacesBadBytes() {
    QCOMPARE(decodeUtf8("a\xc3\xa9"), std::u32string(U"a\u00e9"));
    QCOMPARE(decodeUtf8("\xe2\x82\xac"), std::u32string(U"\u20ac"));
    QCOMPARE(decodeUtf8("\xff"
                        "b"),
             std::u32string(U"\uFFFD"
                            "b"));
    QCOMPARE(decodeUtf8("\xc0\xaf"), std::u32string(U"\uFFFD\uFFFD"));  // overlong '/'
    QCOMPARE(decodeUtf8("\xe2\x82"), std::u32string(U"\uFFFD\uFFFD"));  // cut short
  }
};

QTEST_GUILESS_MAIN(TestFrameCanvas)
#include "tst_framecanvas.moc"
