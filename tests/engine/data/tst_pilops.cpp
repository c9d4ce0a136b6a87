#include <QtTest>

#include <fstream>
#include <map>
#include <sstream>

#include "data/PilOps.h"
#include "data/RandAugment.h"

using namespace amp::data;

namespace {

std::vector<std::uint8_t> fromHex(const std::string& hex) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
};

const std::map<std::string, AugOp>& opsByName() {
  static const std::map<std::string, AugOp> m = {{"AutoContrast", AugOp::AutoContrast},
                                                 {"Equalize", AugOp::Equalize},
                                                 {"Invert", AugOp::Invert},
                                                 {"Rotate", AugOp::Rotate},
                                                 {"Posterize", AugOp::Posterize},
                                                 {"Solarize", AugOp::Solarize},
                                                 {"SolarizeAdd", AugOp::SolarizeAdd},
                                                 {"Color", AugOp::Color},
                                                 {"Contrast", AugOp::Contrast},
                                                 {"Brightness", AugOp::Brightness},
                                                 {"Sharpness", AugOp::Sharpness},
                                                 {"ShearX", AugOp::ShearX},
                                                 {"ShearY", AugOp::ShearY},
                                                 {"TranslateXRel", AugOp::TranslateXRel},
                                                 {"TranslateYRel", AugOp::TranslateYRel}};
  return m;
}

}  // namespace

// Every RandAugment operation against what Pillow 9.4 returns for the same call
// (tests/data/pil/make_pil_fixtures.py).
class TestPilOps : public QObject {
  Q_OBJECT
 private slots:
  void matchesPillow() {
    const std::string path = std::string(AMPSTUDIO_TEST_DATA_DIR) + "/pil/pil_ops.txt";
    std::ifstream in(path);
    QVERIFY2(in.good(), ("missing fixture " + path + " (run make_pil_fixtures.py there)").c_str());
    std::map<std::string, Image> images;
    std::map<std::string, int> checked;
    std::string line;
    int cases = 0;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream fields(line);
      std::string op, name, filter, arg, hex;
      fields >> op;
      if (op == "image") {
        Image im;
        fields >> name >> im.width >> im.height >> hex;
        im.rgb = fromHex(hex);
        QCOMPARE(im.rgb.size(), static_cast<std::size_t>(im.width) * im.height * 3);
        images[name] = im;
        continue;
      }
      fields >> name >> filter >> arg >> hex;
      QVERIFY2(opsByName().count(op), ("unknown op in fixture: " + op).c_str());
      QVERIFY2(images.count(name), ("unknown image in fixture: " + name).c_str());
      Image im = images[name];
      AppliedOp a{opsByName().at(op), arg == "-" ? 0.0 : std::strtod(arg.c_str(), nullptr)};
      applyAugOp({im.rgb.data(), im.height, im.width}, a,
                 filter == "bicubic" ? PilFilter::Bicubic : PilFilter::Bilinear);
      const auto expected = fromHex(hex);
      QCOMPARE(im.rgb.size(), expected.size());
      std::size_t bad = 0, first = expected.size();
      for (std::size_t i = 0; i < expected.size(); ++i)
        if (im.rgb[i] != expected[i]) {
          if (!bad) first = i;
          ++bad;
        }
      if (bad) {
        const std::string why =
            op + " " + name + " " + filter + " " + arg + ": " + std::to_string(bad) +
            " bytes differ from Pillow, the first at byte " + std::to_string(first) + " (got " +
            std::to_string(im.rgb[first]) + ", Pillow " + std::to_string(expected[first]) + ")";
        QFAIL(why.c_str());
      }
      ++checked[op];
      ++cases;
    }
    QCOMPARE(images.size(), std::size_t(3));
    QCOMPARE(checked.size(), opsByName().size());  // every op has cases
    QVERIFY(cases > 200);
  }

  void rotateCoefficientsAsPillow() {
    // Image.rotate(30) on a 10 x 8 frame: cos/sin of -30 degrees rounded to 15 decimals, about the
    // centre.
    double m[6];
    pilRotateCoefficients(30.0, 8, 10, m);
    QCOMPARE(m[0], 0.866025403784439);
    QCOMPARE(m[1], -0.5);
    QCOMPARE(m[3], 0.5);
    QCOMPARE(m[4], 0.866025403784439);
    QCOMPARE(m[2], 0.866025403784439 * -5 + -0.5 * -4 + 0.0 + 5);
    QCOMPARE(m[5], 0.5 * -5 + 0.866025403784439 * -4 + 0.0 + 4);
  }

  void lumaIsPillowsFixedPoint() {
    const std::uint8_t px[3] = {255, 0, 0}, grey[3] = {200, 200, 200}, mix[3] = {10, 200, 30};
    QCOMPARE(int(pilLuma(px)), 76);  // 255 * 19595 / 65536 rounded
    QCOMPARE(int(pilLuma(grey)), 200);
    QCOMPARE(int(pilLuma(mix)), (10 * 19595 + 200 * 38470 + 30 * 7471 + 0x8000) >> 16);
  }
};

QTEST_APPLESS_MAIN(TestPilOps)
#include "tst_pilops.moc"
