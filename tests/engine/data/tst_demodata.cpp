#include <QtTest>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "data/DemoDataGenerator.h"
#include "data/VideoDecoder.h"

using namespace amp::data;
namespace fs = std::filesystem;

class TestDemoData : public QObject {
  Q_OBJECT
 private slots:
  void writesABalancedDecodableDataset() {
    QTemporaryDir dir;
    DemoDataOptions o;
    o.out_dir = dir.path().toStdString();
    o.clips_per_class = 3;
    o.seed = 11;
    DemoDataSummary summary;
    std::string error;
    QVERIFY2(generateDemoData(o, summary, &error), error.c_str());
    const int classes = static_cast<int>(demoClassNames().size());
    QCOMPARE(classes, 8);
    QCOMPARE(summary.train, 3 * classes);
    QCOMPARE(summary.val, 2 * classes);  // a quarter, at least 2 per class
    QCOMPARE(summary.test, 2 * classes);
    for (const char* split : {"train", "val", "test"}) {
      std::ifstream csv(fs::path(o.out_dir) / (std::string(split) + ".csv"));
      QVERIFY(csv);
      std::map<int, int> perClass;
      std::string line;
      int lines = 0;
      while (std::getline(csv, line)) {
        ++lines;
        std::istringstream ss(line);
        std::string path;
        int label = -1;
        ss >> path >> label;
        QVERIFY2(label >= 0 && label < classes, line.c_str());  // labels in range
        ++perClass[label];
        if (lines % 5 == 1) {  // decodable, with the promised size and length
          VideoDecoder d;
          QVERIFY2(d.open((fs::path(o.out_dir) / path).string(), &error), error.c_str());
          QCOMPARE(d.info().width, o.width);
          QCOMPARE(d.info().height, o.height);
          QCOMPARE(d.countFrames(nullptr, &error), std::int64_t(o.frames));
        }
      }
      QCOMPARE(static_cast<int>(perClass.size()), classes);
      for (const auto& [label, n] : perClass) QCOMPARE(n, perClass.begin()->second);  // balanced
    }
    QVERIFY(fs::exists(fs::path(o.out_dir) / "classes.txt"));
    QVERIFY(fs::exists(fs::path(o.out_dir) / "demo-data.json"));
  }

  void deterministicFromTheSeed() {
    const auto a = renderDemoClip(4, 1234, 112, 84, 12);
    const auto b = renderDemoClip(4, 1234, 112, 84, 12);
    const auto c = renderDemoClip(4, 1235, 112, 84, 12);
    QVERIFY(a == b);
    QVERIFY(a != c);
  }

  void runScriptKnowsTheCurrentVersion() {
    // scripts/run.sh rewrites demo-data/ when its version is not this one.
    QFile f(QStringLiteral(AMPSTUDIO_SOURCE_DIR) + "/scripts/run.sh");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString script = QString::fromUtf8(f.readAll());
    QVERIFY2(script.contains(QString("\"version\": %1([^0-9]|$)").arg(kDemoDataVersion)),
             "scripts/run.sh checks another demo data version than kDemoDataVersion");
  }

  void theClassIsInTheMotion() {
    // The moving shape's centroid (pixels that change between the first and the last frame)
    // travels in the direction the class names; no frame on its own says it.
    const int w = 112, h = 84, frames = 32;
    for (int label = 0; label < 4; ++label) {
      for (std::uint64_t seed : {1, 2, 3}) {
        const auto v = renderDemoClip(label, seed, w, h, frames);
        // The mover is brighter than the background: pixels much brighter in frame f than in g.
        auto centroid = [&](int f, int g) {
          double sx = 0, sy = 0, n = 0;
          const size_t fs = static_cast<size_t>(w) * h * 3;
          for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
              const size_t i = (static_cast<size_t>(y) * w + x) * 3;
              int diff = 0;
              for (int c = 0; c < 3; ++c) diff += int(v[f * fs + i + c]) - int(v[g * fs + i + c]);
              if (diff > 90) sx += x, sy += y, n += 1;
            }
          return std::make_pair(sx / n, sy / n);
        };
        const auto [x0, y0] = centroid(0, frames - 1);  // where the shape was
        const auto [x1, y1] = centroid(frames - 1, 0);  // where it went
        const double dx = x1 - x0, dy = y1 - y0;
        const bool ok = label == 0   ? dx > 15
                        : label == 1 ? dx < -15
                        : label == 2 ? dy > 15
                                     : dy < -15;
        QVERIFY2(
            ok, qPrintable(
                    QString("label %1 seed %2: dx %3 dy %4").arg(label).arg(seed).arg(dx).arg(dy)));
      }
    }
  }

  void unwritableFolderIsAClearError() {
    DemoDataOptions o;
    o.out_dir = "/proc/ampstudio-cannot-write-here";
    o.clips_per_class = 1;
    DemoDataSummary summary;
    std::string error;
    QVERIFY(!generateDemoData(o, summary, &error));
    QVERIFY2(error.find("/proc/ampstudio-cannot-write-here") != std::string::npos, error.c_str());
  }
};

QTEST_APPLESS_MAIN(TestDemoData)
#include "tst_demodata.moc"
