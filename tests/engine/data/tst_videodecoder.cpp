#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <cmath>
#include <fstream>
#include <random>
#include <set>

#include "data/VideoDecoder.h"

using namespace amp::data;

namespace {

std::string testVideo(const char* name) {
  return std::string(AMPSTUDIO_TEST_DATA_DIR) + "/videos/" + name;
}

// Fixtures FFmpeg's command-line tool makes (bootstrap installs it): formats the decoder must
// read that the real clips in tests/data/videos do not cover.
QString makeWithFfmpeg(const QTemporaryDir& dir, const QString& name, const QStringList& args) {
  const QString out = dir.path() + "/" + name;
  QProcess p;
  p.start("ffmpeg", QStringList{"-v", "error", "-y"} + args + QStringList{out});
  if (!p.waitForFinished(60000) || p.exitCode() != 0) return {};
  return out;
}

// The presentation times (seconds) of a file's video frames, as ffprobe reads them.
std::vector<double> probeFrameTimes(const QString& path) {
  QProcess p;
  p.start("ffprobe", {"-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                      "-of", "csv=p=0", path});
  std::vector<double> times;
  if (!p.waitForFinished(60000) || p.exitCode() != 0) return times;
  for (const auto& line :
       QString::fromUtf8(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts)) {
    bool ok = false;
    const double t = line.split(',').first().trimmed().toDouble(&ok);
    if (ok) times.push_back(t);
  }
  return times;
}

double meanAbsDiff(const DecodedClip& a, size_t i, const DecodedClip& b, size_t j) {
  const size_t n = static_cast<size_t>(a.height) * a.width * 3;
  const std::uint8_t* pa = a.rgb.data() + i * n;
  const std::uint8_t* pb = b.rgb.data() + j * n;
  double sum = 0;
  for (size_t k = 0; k < n; ++k) sum += std::abs(int(pa[k]) - int(pb[k]));
  return sum / static_cast<double>(n);
}

}  // namespace

class TestVideoDecoder : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

 private slots:
  void h264InMp4() {
    VideoDecoder d;
    std::string error;
    QVERIFY2(d.open(testVideo("demo.mp4"), &error), error.c_str());
    const VideoInfo& info = d.info();
    QCOMPARE(info.codec, std::string("h264"));
    QCOMPARE(info.width, 340);
    QCOMPARE(info.height, 256);
    QVERIFY(std::abs(info.fps - 28.0) < 0.01);
    QCOMPARE(info.frames, std::int64_t(280));
    QVERIFY(!info.has_audio);
    DecodedClip clip;
    QVERIFY2(d.decode({0, 100, 279}, 0, 0, clip, &error), error.c_str());
    QCOMPARE(clip.height, 256);
    QCOMPARE(clip.width, 340);
    QCOMPARE(clip.rgb.size(), size_t(3) * 256 * 340 * 3);
    QCOMPARE(clip.indices, (std::vector<std::int64_t>{0, 100, 279}));
    QVERIFY(std::abs(clip.timestamps_s[1] - 100 / 28.0) < 1e-3);  // timing from timestamps
    QVERIFY(std::abs(clip.timestamps_s[2] - 279 / 28.0) < 1e-3);
  }

  void seekingLandsOnTheRightFrames() {
    // Frames reached by seeking must equal the same frames reached by decoding from the start.
    VideoDecoder sequential, seeking;
    std::string error;
    QVERIFY(sequential.open(testVideo("demo.mp4"), &error));
    QVERIFY(seeking.open(testVideo("demo.mp4"), &error));
    std::vector<std::int64_t> all(280);
    for (int i = 0; i < 280; ++i) all[static_cast<size_t>(i)] = i;
    DecodedClip everything;
    QVERIFY(sequential.decode(all, 64, 85, everything, &error));
    for (std::int64_t target : {150, 37, 222, 279, 5}) {
      DecodedClip one;
      QVERIFY2(seeking.decode({target, target + (target < 279 ? 1 : 0)}, 64, 85, one, &error),
               error.c_str());
      QCOMPARE(one.indices[0], target);
      QCOMPARE(meanAbsDiff(one, 0, everything, static_cast<size_t>(target)), 0.0);
      // and it is not merely any frame: neighbours differ in this moving video
      if (target > 0)
        QVERIFY(meanAbsDiff(one, 0, everything, static_cast<size_t>(target - 1)) > 0.0);
    }
  }

  void scaledOutputAndRepeats() {
    VideoDecoder d;
    std::string error;
    QVERIFY(d.open(testVideo("demo.mp4"), &error));
    DecodedClip clip;
    QVERIFY(d.decode({10, 10, 3, 279, 10000}, 128, 170, clip,
                     &error));  // any order, repeats, past the end
    QCOMPARE(clip.height, 128);
    QCOMPARE(clip.width, 170);
    QCOMPARE(clip.indices, (std::vector<std::int64_t>{10, 10, 3, 279, 279}));
    QCOMPARE(meanAbsDiff(clip, 0, clip, 1), 0.0);
    QCOMPARE(meanAbsDiff(clip, 3, clip, 4), 0.0);  // beyond the end: the last frame
    QCOMPARE(clip.last_frame_seen, std::int64_t(279));
  }

  void mpeg4AviWithAudio() {
    VideoDecoder d(DecoderOptions{2, 60});
    std::string error;
    QVERIFY2(d.open(testVideo("test.avi"), &error), error.c_str());
    QCOMPARE(d.info().codec, std::string("mpeg4"));
    QCOMPARE(d.info().width, 320);
    QCOMPARE(d.info().height, 240);
    QVERIFY(d.info().has_audio);
    QVERIFY(std::abs(d.info().fps - 25.0) < 0.01);
    DecodedClip clip;
    QVERIFY2(d.decode({0, 80, 163}, 0, 0, clip, &error), error.c_str());
    QCOMPARE(clip.indices.back(), std::int64_t(163));
    int corrupt = 0;
    QCOMPARE(d.countFrames(&corrupt, &error), std::int64_t(164));
    QCOMPARE(corrupt, 0);
  }

  void damagedFileDecodesWhatItCan() {
    VideoDecoder d;
    std::string error;
    QVERIFY2(d.open(testVideo("corrupted.mp4"), &error), error.c_str());
    QCOMPARE(d.info().header_frames, std::int64_t(50));
    int corrupt = 0;
    const auto frames = d.countFrames(&corrupt, &error);
    QCOMPARE(frames, std::int64_t(49));  // one damaged NAL unit: 49 of the 50 claimed
    std::vector<std::int64_t> all(50);
    for (int i = 0; i < 50; ++i) all[static_cast<size_t>(i)] = i;
    DecodedClip clip;
    QVERIFY2(d.decode(all, 72, 128, clip, &error), error.c_str());
    QCOMPARE(clip.indices.size(), size_t(50));
  }

  void badInputsNameThePath() {
    const std::string missing = dir_.path().toStdString() + "/missing.mp4";
    const std::string empty = dir_.path().toStdString() + "/empty.mp4";
    const std::string noise = dir_.path().toStdString() + "/noise.mp4";
    std::ofstream(empty).close();
    {
      std::ofstream out(noise, std::ios::binary);
      std::mt19937 rng(7);
      for (int i = 0; i < 100000; ++i) out.put(static_cast<char>(rng() & 0xff));
    }
    const std::pair<std::string, const char*> cases[] = {{missing, "does not exist"},
                                                         {empty, "empty"},
                                                         {noise, "not a readable video"},
                                                         {dir_.path().toStdString(), "folder"}};
    for (const auto& [path, why] : cases) {
      VideoDecoder d;
      std::string error;
      QVERIFY2(!d.open(path, &error), path.c_str());
      QVERIFY2(error.rfind(path + ": ", 0) == 0, error.c_str());
      QVERIFY2(error.find(why) != std::string::npos, error.c_str());
      DecodedClip clip;
      QVERIFY(
          !d.decode({0}, 0, 0, clip, &error));  // using a failed decoder is an error, not a crash
    }
  }

  void audioOnly() {
    const QString path =
        makeWithFfmpeg(dir_, "tone.m4a", {"-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac"});
    QVERIFY2(!path.isEmpty(), "ffmpeg could not make the fixture");
    VideoDecoder d;
    std::string error;
    QVERIFY(!d.open(path.toStdString(), &error));
    QVERIFY2(error.find("audio only") != std::string::npos, error.c_str());
  }

  void oneFrameVideo() {
    const QString path =
        makeWithFfmpeg(dir_, "one.mp4",
                       {"-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-frames:v", "1", "-c:v",
                        "libx264", "-pix_fmt", "yuv420p"});
    QVERIFY(!path.isEmpty());
    VideoDecoder d;
    std::string error;
    QVERIFY2(d.open(path.toStdString(), &error), error.c_str());
    DecodedClip clip;
    QVERIFY2(d.decode({0, 3, 7}, 0, 0, clip, &error), error.c_str());
    QCOMPARE(clip.indices, (std::vector<std::int64_t>{0, 0, 0}));
  }

  // A header declaring frames larger than 8K UHD is refused at open, before FFmpeg allocates
  // them; a sliver whose scaled frames would be that large is refused before decoding.
  void framesLargerThan4kAreRefusedBeforeDecoding() {
    const QString big = makeWithFfmpeg(dir_, "big.mkv",
                                       {"-f", "lavfi", "-i", "color=size=7688x4328:rate=1",
                                        "-frames:v", "1", "-c:v", "mjpeg", "-pix_fmt", "yuvj420p"});
    QVERIFY(!big.isEmpty());
    VideoDecoder d;
    std::string error;
    QVERIFY(!d.open(big.toStdString(), &error));
    QVERIFY2(error.find(
                 "declares 7688x4328 frames, larger than AMP Studio decodes (7680x4320 pixels)") !=
                 std::string::npos,
             error.c_str());
    QVERIFY2(error.find(big.toStdString()) != std::string::npos, error.c_str());
    const QString sliver =
        makeWithFfmpeg(dir_, "sliver.mkv",
                       {"-f", "lavfi", "-i", "color=size=8000x2:rate=1", "-frames:v", "1", "-c:v",
                        "mjpeg", "-pix_fmt", "yuvj420p"});
    QVERIFY(!sliver.isEmpty());
    VideoDecoder s;
    QVERIFY2(s.open(sliver.toStdString(), &error), error.c_str());
    DecodedClip clip;
    QVERIFY(!s.decode({0}, 256, 1024000, clip, &error));
    QVERIFY2(error.find("would be 1024000x256 after scaling") != std::string::npos, error.c_str());
    QVERIFY(s.decode({0}, 2, 8000, clip, &error));  // at its own size it decodes
  }

  // PyAV's timestamps (DecoderOptions::pyav_timestamps): in tests/data/videos/h264_bframes.avi
  // FFmpeg's generated pts follow the decoding order (the stream's frames 0, 4, 2, 1, 3 get pts
  // 1 .. 5), so the frames PySlowFast keeps for pts [0, 51], sorted by pts, are the stream's frames
  // 0, 4, 2, 1, 3, 8 ...; the loop stops at the first frame past 51 (frame 49, pts 52), before
  // frames of lower pts decoded after it: 50 frames. In MPEG-4 part 2 with B-frames the pts run
  // in order from 1. (PyAV: `{f.pts: i for i, f in enumerate(av.open(FILE).decode(video=0))}`.)
  void scanFollowsPyAvTimestamps() {
    DecoderOptions o;
    o.pyav_timestamps = true;
    VideoDecoder d(o);
    std::string error;
    QVERIFY2(d.open(testVideo("h264_bframes.avi"), &error), error.c_str());
    PyAvScan scan;
    QVERIFY2(d.scanAsPyAv(0, 51, scan, &error), error.c_str());
    QCOMPARE(scan.pts.size(), size_t(50));
    QCOMPARE(std::vector<std::int64_t>(scan.pts.begin(), scan.pts.begin() + 5),
             (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
    QCOMPARE(std::vector<std::int64_t>(scan.index.begin(), scan.index.begin() + 8),
             (std::vector<std::int64_t>{0, 4, 2, 1, 3, 8, 6, 5}));
    QCOMPARE(scan.pts.back(), std::int64_t(52));
    QCOMPARE(scan.index.back(), std::int64_t(49));
    DecodedClip held;
    QVERIFY2(d.decodeScanned(scan, {1, 0, 1}, 0, 0, held, &error), error.c_str());
    QCOMPARE(held.indices, (std::vector<std::int64_t>{4, 0, 4}));
    // The whole stream is not held: its frames are decoded again, and are the same pictures.
    PyAvScan whole;
    QVERIFY2(d.scanAsPyAv(0, kPyAvStreamEnd, whole, &error), error.c_str());
    QCOMPARE(whole.pts.size(), size_t(100));
    DecodedClip again;
    QVERIFY2(d.decodeScanned(whole, {1, 0}, 0, 0, again, &error), error.c_str());
    QCOMPARE(again.indices, (std::vector<std::int64_t>{4, 0}));
    const size_t frameBytes = size_t(64) * 48 * 3;
    QVERIFY(std::equal(again.rgb.begin(), again.rgb.begin() + frameBytes, held.rgb.begin()));
    QVERIFY(!std::equal(again.rgb.begin(), again.rgb.begin() + frameBytes,
                        again.rgb.begin() + frameBytes));

    VideoDecoder m(o);
    QVERIFY2(m.open(testVideo("mpeg4_bframes.avi"), &error), error.c_str());
    QVERIFY2(m.scanAsPyAv(0, 51, scan, &error), error.c_str());
    QCOMPARE(scan.pts.size(), size_t(52));  // pts 1 .. 51 and 52 past the end
    QCOMPARE(scan.pts.front(), std::int64_t(1));
    QCOMPARE(scan.index.front(), std::int64_t(0));
    QCOMPARE(scan.index.back(), std::int64_t(51));
  }

  void webmWithoutFrameCount() {
    const QString path =
        makeWithFfmpeg(dir_, "clip.webm",
                       {"-f", "lavfi", "-i", "testsrc=size=96x64:rate=15:duration=2", "-c:v",
                        "libvpx", "-b:v", "200k"});
    QVERIFY(!path.isEmpty());
    VideoDecoder d;
    std::string error;
    QVERIFY2(d.open(path.toStdString(), &error), error.c_str());
    QCOMPARE(d.info().header_frames, std::int64_t(0));  // Matroska does not say
    QCOMPARE(d.info().frames, std::int64_t(30));        // estimated from duration x fps
    DecodedClip clip;
    QVERIFY2(d.decode({0, 14, 29}, 0, 0, clip, &error), error.c_str());
    QCOMPARE(clip.indices, (std::vector<std::int64_t>{0, 14, 29}));
    QCOMPARE(d.countFrames(nullptr, &error), std::int64_t(30));
  }

  void variableFrameRateUsesTimestamps() {
    // 10 frames at 10 fps, then frames further apart: some 0.1 s wantedSlots have no frame.
    const QString path =
        makeWithFfmpeg(dir_, "vfr.mkv",
                       {"-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=2", "-vf",
                        "setpts='if(lt(N,10),N,10+(N-10)*2)/10/TB'", "-fps_mode", "vfr", "-c:v",
                        "libx264", "-pix_fmt", "yuv420p"});
    QVERIFY(!path.isEmpty());
    VideoDecoder d;
    std::string error;
    QVERIFY2(d.open(path.toStdString(), &error), error.c_str());
    std::vector<std::int64_t> wantedSlots;
    for (int i = 0; i < 26; ++i) wantedSlots.push_back(i);
    DecodedClip clip;
    QVERIFY2(d.decode(wantedSlots, 0, 0, clip, &error), error.c_str());
    std::set<std::int64_t> existing(clip.indices.begin(), clip.indices.end());
    QVERIFY2(existing.size() < wantedSlots.size(), "the fixture should have gaps");
    for (size_t i = 0; i < wantedSlots.size(); ++i) {
      // A slot with a frame gets that frame; an empty slot gets the next frame that exists.
      const std::int64_t expected = *existing.lower_bound(wantedSlots[i]);
      QCOMPARE(clip.indices[i], expected);
      QVERIFY(std::abs(clip.timestamps_s[i] - static_cast<double>(expected) / d.info().fps) <
              0.051);
    }
    // Exactly the slots of the frames in the file, as ffprobe reads them (the ffmpeg command writes
    // the fixture differently by version: FFmpeg 5 keeps all of the first second, FFmpeg 7 not).
    std::set<std::int64_t> probed, decoded;
    for (double t : probeFrameTimes(path))
      if (std::llround(t * d.info().fps) < 26) probed.insert(std::llround(t * d.info().fps));
    for (std::int64_t slot : existing)
      if (slot < 26) decoded.insert(slot);
    QVERIFY2(probed.size() >= 10, "ffprobe should list the fixture's frames");
    QCOMPARE(decoded, probed);
  }
};

QTEST_GUILESS_MAIN(TestVideoDecoder)
#include "tst_videodecoder.moc"
