#include <QtTest>

#include <QTemporaryDir>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "data/ExifOrientation.h"
#include "data/JpegFrames.h"
#include "support/TestFiles.h"

using namespace amp::data;
using amp::testsupport::writeFile;

namespace {

// width x height pixels of one 3-byte color.
std::vector<std::uint8_t> flat(int width, int height, std::uint8_t a, std::uint8_t b,
                               std::uint8_t c) {
  std::vector<std::uint8_t> p(static_cast<std::size_t>(width) * height * 3);
  for (std::size_t i = 0; i < p.size(); i += 3) {
    p[i] = a;
    p[i + 1] = b;
    p[i + 2] = c;
  }
  return p;
}

std::string jpegOf(const std::vector<std::uint8_t>& pixels, int width, int height,
                   JpegPixels format = JpegPixels::Bgr, int quality = 95) {
  std::string jpeg, error;
  if (!encodeJpeg(pixels.data(), width, height, format, quality, jpeg, &error))
    qFatal("encodeJpeg: %s", error.c_str());
  return jpeg;
}

// True when every pixel of frame `t` is within `tolerance` of (b, g, r).
bool frameIs(DecodedClip& clip, std::size_t t, int b, int g, int r, int tolerance) {
  const std::uint8_t* p = clip.frame(t);
  for (int i = 0; i < clip.height * clip.width; ++i, p += 3)
    if (std::abs(p[0] - b) > tolerance || std::abs(p[1] - g) > tolerance ||
        std::abs(p[2] - r) > tolerance) {
      qWarning("pixel %d is (%d, %d, %d), expected (%d, %d, %d) +- %d", i, p[0], p[1], p[2], b, g,
               r, tolerance);
      return false;
    }
  return true;
}

// An APP1 segment holding EXIF IFD0 with one tag, Orientation = `value`, in Motorola (big-endian)
// or Intel (little-endian) byte order, as a camera writes it.
std::string exifSegment(int value, bool bigEndian = true) {
  std::string tiff = bigEndian ? std::string("MM\x00\x2A\x00\x00\x00\x08", 8)
                               : std::string("II\x2A\x00\x08\x00\x00\x00", 8);
  auto u16 = [&](int v) {
    const char hi = static_cast<char>(v >> 8), lo = static_cast<char>(v & 0xFF);
    tiff += bigEndian ? std::string{hi, lo} : std::string{lo, hi};
  };
  auto u32 = [&](int v) {
    if (bigEndian) u16(v >> 16);
    u16(v & 0xFFFF);
    if (!bigEndian) u16(v >> 16);
  };
  u16(1);       // one entry
  u16(0x0112);  // Orientation
  u16(3);       // SHORT
  u32(1);       // one value, held in the entry's first two value bytes
  u16(value);
  u16(0);
  u32(0);  // no next IFD
  const std::string payload = std::string("Exif\0\0", 6) + tiff;
  const int length = static_cast<int>(payload.size()) + 2;
  return std::string("\xFF\xE1", 2) + static_cast<char>(length >> 8) +
         static_cast<char>(length & 0xFF) + payload;
}

}  // namespace

class TestJpegFrames : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

  std::string decodeError(const std::vector<std::string>& paths) {
    DecodedClip clip;
    std::string error;
    if (decodeJpegFrames(paths, clip, &error)) return "";
    return error;
  }

 private slots:
  // A flat block survives JPEG within +-2; frames come back in order, T x H x W x 3, with their
  // indices; the clip's buffer is reused by the next call.
  void roundTripKeepsColorsAndOrder() {
    std::vector<std::string> paths;
    const int colors[3][3] = {{10, 200, 90}, {255, 255, 255}, {0, 0, 0}};
    for (int t = 0; t < 3; ++t) {
      paths.push_back(dir_.path().toStdString() + "/f" + std::to_string(t) + ".jpg");
      const auto bgr = flat(32, 16, colors[t][0], colors[t][1], colors[t][2]);
      std::string error;
      QVERIFY2(writeJpeg(paths.back(), bgr.data(), 32, 16, JpegPixels::Bgr, 95, &error),
               error.c_str());
    }
    DecodedClip clip;
    std::string error;
    QVERIFY2(decodeJpegFrames(paths, clip, &error), error.c_str());
    QCOMPARE(clip.width, 32);
    QCOMPARE(clip.height, 16);
    QCOMPARE(clip.rgb.size(), size_t(3 * 16 * 32 * 3));
    QCOMPARE(clip.indices, (std::vector<std::int64_t>{0, 1, 2}));
    QCOMPARE(clip.corrupt_packets, 0);
    QCOMPARE(clip.last_frame_seen, std::int64_t(2));
    for (int t = 0; t < 3; ++t)
      QVERIFY(frameIs(clip, t, colors[t][0], colors[t][1], colors[t][2], 2));
    const std::uint8_t* buffer = clip.rgb.data();
    QVERIFY2(decodeJpegFrames({paths[1]}, clip, &error), error.c_str());
    QCOMPARE(clip.rgb.size(), size_t(16 * 32 * 3));
    QCOMPARE(clip.rgb.data(), buffer);  // shrunk in place, not reallocated
    QVERIFY(frameIs(clip, 0, 255, 255, 255, 2));
  }

  // OpenCV's imdecode gives B, G, R and PySlowFast keeps that order: pure red (written as RGB)
  // decodes with B ~ 0 first and R ~ 255 last.
  void pixelsAreBgrLikeOpenCv() {
    const std::string path = dir_.path().toStdString() + "/red.jpg";
    const auto rgb = flat(16, 16, 255, 0, 0);
    std::string error;
    QVERIFY2(writeJpeg(path, rgb.data(), 16, 16, JpegPixels::Rgb, 95, &error), error.c_str());
    DecodedClip clip;
    QVERIFY2(decodeJpegFrames({path}, clip, &error), error.c_str());
    QVERIFY2(
        clip.rgb[0] <= 3 && clip.rgb[1] <= 3 && clip.rgb[2] >= 252,
        qPrintable(QString("(%1, %2, %3)").arg(clip.rgb[0]).arg(clip.rgb[1]).arg(clip.rgb[2])));
  }

  // A horizontal ramp comes back as a ramp along each row (rows top to bottom, not transposed).
  void layoutIsRowMajor() {
    const int w = 64, h = 32;
    std::vector<std::uint8_t> bgr(static_cast<std::size_t>(w) * h * 3);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 3; ++c) bgr[(static_cast<std::size_t>(y) * w + x) * 3 + c] = x * 4;
    const std::string path = writeFile(dir_, "ramp.jpg", jpegOf(bgr, w, h, JpegPixels::Bgr, 100));
    DecodedClip clip;
    std::string error;
    QVERIFY2(decodeJpegFrames({path}, clip, &error), error.c_str());
    for (int y : {0, 17, 31})
      for (int x : {0, 20, 63})
        for (int c = 0; c < 3; ++c) {
          const int got = clip.frame(0)[(static_cast<std::size_t>(y) * w + x) * 3 + c];
          QVERIFY2(
              std::abs(got - x * 4) <= 4,
              qPrintable(QString("(%1, %2): %3, expected %4").arg(x).arg(y).arg(got).arg(x * 4)));
        }
  }

  // A grayscale JPEG becomes 3 equal channels (IMREAD_COLOR); a CMYK one is converted with
  // OpenCV's formula: C=255 M=0 Y=255 K=255 (Adobe: 255 = no ink) gives
  // R = K - ((255 - C) * K >> 8) = 255, G = 255 - (255 * 255 >> 8) = 1, B = 255.
  void grayAndCmykBecomeBgr() {
    const std::vector<std::uint8_t> gray(24 * 8, 77);
    const std::string g = writeFile(dir_, "gray.jpg", jpegOf(gray, 24, 8, JpegPixels::Gray));
    DecodedClip clip;
    std::string error;
    QVERIFY2(decodeJpegFrames({g}, clip, &error), error.c_str());
    QCOMPARE(clip.rgb.size(), size_t(24 * 8 * 3));
    QVERIFY(frameIs(clip, 0, 77, 77, 77, 1));
    std::vector<std::uint8_t> cmyk;
    for (int i = 0; i < 16 * 16; ++i) cmyk.insert(cmyk.end(), {255, 0, 255, 255});
    const std::string k = writeFile(dir_, "cmyk.jpg", jpegOf(cmyk, 16, 16, JpegPixels::Cmyk));
    QVERIFY2(decodeJpegFrames({k}, clip, &error), error.c_str());
    QVERIFY(frameIs(clip, 0, 255, 1, 255, 2));
  }

  // Orientation 6 (a camera turned clockwise): the stored 32x16 image, red left half, blue right
  // half, comes back 16 wide and 32 high with the red half on top, as cv2.imdecode returns it.
  void exifOrientationIsApplied() {
    std::vector<std::uint8_t> bgr = flat(32, 16, 255, 0, 0);  // blue
    for (int y = 0; y < 16; ++y)
      for (int x = 0; x < 16; ++x) {
        std::uint8_t* p = &bgr[(static_cast<std::size_t>(y) * 32 + x) * 3];
        p[0] = 0;
        p[2] = 255;  // red
      }
    std::string jpeg = jpegOf(bgr, 32, 16, JpegPixels::Bgr, 100);
    jpeg.insert(2, exifSegment(6));  // right after SOI
    const std::string path = writeFile(dir_, "rotated.jpg", jpeg);
    DecodedClip clip;
    std::string error;
    QVERIFY2(decodeJpegFrames({path}, clip, &error), error.c_str());
    QCOMPARE(clip.width, 16);
    QCOMPARE(clip.height, 32);
    const std::uint8_t* top = clip.frame(0) + (2 * 16 + 8) * 3;
    const std::uint8_t* bottom = clip.frame(0) + (29 * 16 + 8) * 3;
    QVERIFY2(top[2] > 240 && top[0] < 15, "the top is red");
    QVERIFY2(bottom[0] > 240 && bottom[2] < 15, "the bottom is blue");
  }

  void exifOrientationReading() {
    for (bool big : {true, false})
      for (int v = 1; v <= 8; ++v) {
        const std::string seg = exifSegment(v, big);
        const auto* payload = reinterpret_cast<const std::uint8_t*>(seg.data()) + 4;
        QCOMPARE(exifOrientation(payload, seg.size() - 4), v);
      }
    const std::string seg = exifSegment(9);  // outside 1..8: as stored
    QCOMPARE(exifOrientation(reinterpret_cast<const std::uint8_t*>(seg.data()) + 4, seg.size() - 4),
             1);
    // Cut inside the entry: nothing read past the end.
    QCOMPARE(exifOrientation(reinterpret_cast<const std::uint8_t*>(seg.data()) + 4, 20), 1);
    const std::string xmp = "http://ns.adobe.com/xap/1.0/";
    QCOMPARE(exifOrientation(reinterpret_cast<const std::uint8_t*>(xmp.data()), xmp.size()), 1);
  }

  // Pixels 0..5 of a 3 wide, 2 high image (row 0: 0 1 2, row 1: 3 4 5) under each orientation,
  // worked out from OpenCV's flips and transposes.
  void orientationsMoveEveryPixel() {
    std::vector<std::uint8_t> src;
    for (int i = 0; i < 6; ++i) src.insert(src.end(), {std::uint8_t(i), 0, 0});
    const std::vector<std::vector<int>> expected = {
        {0, 1, 2, 3, 4, 5},  // 1: as stored
        {2, 1, 0, 5, 4, 3},  // 2: mirrored left-right
        {5, 4, 3, 2, 1, 0},  // 3: 180 degrees
        {3, 4, 5, 0, 1, 2},  // 4: mirrored top-bottom
        {0, 3, 1, 4, 2, 5},  // 5: transposed (2 wide, 3 high)
        {3, 0, 4, 1, 5, 2},  // 6: 90 degrees clockwise
        {5, 2, 4, 1, 3, 0},  // 7: transposed across the other diagonal
        {2, 5, 1, 4, 0, 3},  // 8: 90 degrees counter-clockwise
    };
    for (int o = 1; o <= 8; ++o) {
      std::vector<std::uint8_t> dst(src.size());
      orientPixels(src.data(), 3, 2, o, dst.data());
      std::vector<int> got;
      for (std::size_t i = 0; i < dst.size(); i += 3) got.push_back(dst[i]);
      QVERIFY2(got == expected[o - 1], qPrintable(QString("orientation %1").arg(o)));
    }
  }

  void unreadableFilesAreNamed() {
    const std::string d = dir_.path().toStdString();
    std::string e = decodeError({d + "/missing.jpg"});
    QVERIFY2(e.find("cannot read '" + d + "/missing.jpg': No such file") != std::string::npos,
             e.c_str());
    e = decodeError({writeFile(dir_, "empty.jpg", "")});
    QVERIFY2(e.find("empty.jpg: empty file (0 bytes), not a JPEG") != std::string::npos, e.c_str());
    e = decodeError({writeFile(dir_, "png.jpg", "\x89PNG\r\n\x1a\n and so on")});
    QVERIFY2(e.find("png.jpg: not a readable JPEG: Not a JPEG file: starts with 0x89 0x50") !=
                 std::string::npos,
             e.c_str());
    e = decodeError({d});
    QVERIFY2(e.find("not a regular file") != std::string::npos, e.c_str());
    QVERIFY2(decodeError({}).find("no frames to decode") != std::string::npos, "empty list");
  }

  // Cut inside the header, nothing can be decoded: refused, naming libjpeg's reason. Cut inside
  // the pixels, libjpeg warns "Premature end of JPEG file" and fills the rest, and OpenCV returns
  // that image: so does this, counting the frame in corrupt_packets.
  void truncatedFiles() {
    std::vector<std::uint8_t> noise(64 * 64 * 3);
    for (std::size_t i = 0; i < noise.size(); ++i)
      noise[i] = static_cast<std::uint8_t>(i * 7919 % 251);
    const std::string jpeg = jpegOf(noise, 64, 64);  // KBs of pixel data after the header
    QVERIFY(jpeg.size() > 4000);
    std::string e = decodeError({writeFile(dir_, "head.jpg", jpeg.substr(0, 40))});
    QVERIFY2(e.find("head.jpg: not a readable JPEG: ") != std::string::npos, e.c_str());
    QVERIFY2(e.find("Premature end of JPEG file") != std::string::npos, e.c_str());
    const std::string cut = writeFile(dir_, "cut.jpg", jpeg.substr(0, jpeg.size() - 200));
    DecodedClip clip;
    std::string error;
    QVERIFY2(decodeJpegFrames({cut}, clip, &error), error.c_str());
    QCOMPARE(clip.corrupt_packets, 1);
    QCOMPARE(clip.width, 64);
  }

  // A header declaring 16384 x 16384 pixels (268 million) is refused from the header, before
  // any pixel memory is taken (the clip's buffer stays empty).
  void hugeHeadersAreRefused() {
    std::string jpeg = jpegOf(flat(16, 16, 1, 2, 3), 16, 16);
    const std::size_t sof = jpeg.find("\xFF\xC0");
    QVERIFY(sof != std::string::npos);
    // FF C0, length (2), precision (1), height (2), width (2)
    jpeg.replace(sof + 5, 4, std::string("\x40\x00\x40\x00", 4));
    DecodedClip clip;
    std::string e;
    QVERIFY(!decodeJpegFrames({writeFile(dir_, "huge.jpg", jpeg)}, clip, &e));
    QVERIFY2(e.find("huge.jpg: declares 16384x16384 pixels, more than the 7680x4320 a frame may "
                    "have") != std::string::npos,
             e.c_str());
    QCOMPARE(clip.rgb.capacity(), size_t(0));
  }

  // np.stack needs one size: the second frame is named with both sizes.
  void framesOfDifferentSizesAreRefused() {
    const std::string a = writeFile(dir_, "a.jpg", jpegOf(flat(32, 16, 0, 0, 0), 32, 16));
    const std::string b = writeFile(dir_, "b.jpg", jpegOf(flat(16, 16, 0, 0, 0), 16, 16));
    const std::string e = decodeError({a, b});
    QVERIFY2(e.find("b.jpg: 16x16 pixels, but the first frame (" + a +
                    ") has 32x16: every frame of a video must have one size") != std::string::npos,
             e.c_str());
  }

  void encodingRefusesNonsense() {
    std::string jpeg, e;
    const auto px = flat(4, 4, 0, 0, 0);
    QVERIFY(!encodeJpeg(px.data(), 0, 4, JpegPixels::Rgb, 90, jpeg, &e));
    QVERIFY2(e.find("0x4 pixels") != std::string::npos, e.c_str());
    QVERIFY(!encodeJpeg(px.data(), 4, 4, JpegPixels::Rgb, 101, jpeg, &e));
    QVERIFY2(e.find("quality 101 is outside 1..100") != std::string::npos, e.c_str());
    QVERIFY(!writeJpeg(dir_.path().toStdString() + "/no/such/dir/x.jpg", px.data(), 4, 4,
                       JpegPixels::Rgb, 90, &e));
    QVERIFY2(e.find("/no/such/dir/x.jpg") != std::string::npos, e.c_str());
  }
};

QTEST_APPLESS_MAIN(TestJpegFrames)
#include "tst_jpegframes.moc"
