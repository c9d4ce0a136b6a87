// The studio's video player on a generated video whose frame number shows in its brightness:
// opening, seeking and stepping show the frame asked for, playing advances at the file's rate and
// stops at the end, and a file that is not a video says why.
#include <QtTest>

#include <QPushButton>
#include <QTemporaryDir>

#include <vector>

#include "VideoPlayer.h"
#include "data/VideoWriter.h"

using namespace amp;

namespace {
constexpr int kW = 64, kH = 48, kFrames = 30;

bool writeRamp(const std::string& path, std::string* error) {
  data::VideoWriterOptions o;
  o.width = kW;
  o.height = kH;
  o.fps = 25;
  o.quality = 8;
  data::VideoWriter w;
  if (!w.open(path, o, error)) return false;
  std::vector<std::uint8_t> f(kW * kH * 3);
  for (int i = 0; i < kFrames; ++i) {
    std::fill(f.begin(), f.end(), static_cast<std::uint8_t>(20 + 7 * i));
    if (!w.write(f.data(), error)) return false;
  }
  return w.close(error);
}

int brightness(const QImage& image) {
  return qGray(image.pixel(kW / 2, kH / 2));
}
}  // namespace

class TestVideoPlayer : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString video_;

 private slots:
  void initTestCase() {
    video_ = dir_.path() + "/ramp.mp4";
    std::string error;
    QVERIFY2(writeRamp(video_.toStdString(), &error), error.c_str());
  }

  void showsTheFrameAskedFor() {
    widgets::VideoPlayer player;
    player.resize(400, 300);
    QString error;
    QVERIFY2(player.open(video_, &error), qPrintable(error));
    QCOMPARE(player.frameCount(), std::int64_t{kFrames});
    QCOMPARE(player.fps(), 25.0);
    QCOMPARE(player.frame(), std::int64_t{0});
    QCOMPARE(player.image().size(), QSize(kW, kH));
    QVERIFY(std::abs(brightness(player.image()) - 20) < 8);
    QVERIFY(player.seek(20));
    QVERIFY2(std::abs(brightness(player.image()) - (20 + 7 * 20)) < 8,
             qPrintable(QString::number(brightness(player.image()))));
    QVERIFY(player.seek(3));  // backwards: decoded again
    QVERIFY(std::abs(brightness(player.image()) - (20 + 7 * 3)) < 8);
    QVERIFY(player.seek(500));  // clamped to the last frame
    QCOMPARE(player.frame(), std::int64_t{kFrames - 1});
    // The step buttons move one frame.
    const auto buttons = player.findChildren<QPushButton*>();
    QPushButton* back = nullptr;
    for (auto* b : buttons)
      if (b->toolTip() == "Previous frame") back = b;
    QVERIFY(back);
    back->click();
    QCOMPARE(player.frame(), std::int64_t{kFrames - 2});
  }

  void playsToTheEnd() {
    widgets::VideoPlayer player;
    QString error;
    QVERIFY2(player.open(video_, &error), qPrintable(error));
    QVERIFY(player.seek(kFrames - 4));
    player.play();
    QVERIFY(player.playing());
    QTRY_VERIFY_WITH_TIMEOUT(!player.playing(), 5000);
    QCOMPARE(player.frame(), std::int64_t{kFrames - 1});
    player.play();  // at the end: from the start again
    QVERIFY(player.frame() < 3);
    player.pause();
    QVERIFY(!player.playing());
  }

  void aFileThatIsNoVideoSaysWhy() {
    const QString junk = dir_.path() + "/junk.mp4";
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a video at all");
    f.close();
    widgets::VideoPlayer player;
    QString error;
    QVERIFY(!player.open(junk, &error));
    QVERIFY2(error.contains("junk.mp4"), qPrintable(error));
    QCOMPARE(player.frameCount(), std::int64_t{0});
    player.play();  // nothing open: nothing happens
    QVERIFY(!player.playing());
  }
};

QTEST_MAIN(TestVideoPlayer)
#include "tst_videoplayer.moc"
