// The pre-flight of an AVA config on the AVA demo data: nothing to say when the data is whole;
// otherwise each problem at the key that names its file (the label map, the ground truth, a box
// list with its bad line, the frames).
#include <QtTest>

#include <QFile>
#include <QTemporaryDir>

#include <filesystem>

#include "configfile/ConfigLoader.h"
#include "preflight/Preflight.h"
#include "support/AvaDemo.h"

using namespace amp;
namespace fs = std::filesystem;

namespace {
const config::Diagnostic* find(const config::Diagnostics& d, const std::string& key) {
  for (const auto& x : d)
    if (x.key == key) return &x;
  return nullptr;
}
}  // namespace

class TestAvaPreflight : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string ava_;

  // A copy of the demo data to damage.
  std::string copy(const std::string& name) {
    const std::string to = dir_.filePath(QString::fromStdString(name)).toStdString();
    fs::copy(ava_, to, fs::copy_options::recursive);
    return to;
  }
  config::Diagnostics check(const std::string& data, std::vector<std::string> extra = {}) {
    std::vector<std::string> ov = testsupport::avaDemoOverrides(data);
    ov.insert(ov.end(), extra.begin(), extra.end());
    auto r = config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml", ov);
    config::Diagnostics out;
    preflight::checkData(r.config, "demo.yaml", {}, out);
    return out;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    ava_ = dir_.filePath("ava").toStdString();
    std::string error;
    QVERIFY2(testsupport::makeAvaDemo(ava_, 1, &error), error.c_str());
  }

  void wholeDataHasNothingToSay() {
    const auto out = check(ava_);
    QVERIFY2(out.empty(), config::formatDiagnostics(out).c_str());
  }

  void aMissingLabelMapIsNamedAtItsKey() {
    const auto out = check(ava_, {"AVA.LABEL_MAP_FILE", "labels.pbtxt"});
    const auto* d = find(out, "AVA.LABEL_MAP_FILE");
    QVERIFY2(d && d->isError(), config::formatDiagnostics(out).c_str());
    QVERIFY2(d->message.find("'" + ava_ + "/annotations/labels.pbtxt' does not exist") == 0,
             d->message.c_str());
    QCOMPARE(out.size(), size_t(1));
  }

  void badFilesAreNamedWithTheirLines() {
    const std::string bad = copy("bad-files");
    {
      QFile gt(QString::fromStdString(bad + "/annotations/ava_val_v2.2.csv"));
      QVERIFY(gt.open(QIODevice::Append));
      gt.write("A00200,0902,0.1,0.1,0.5\n");
      QFile boxes(QString::fromStdString(bad + "/annotations/ava_train_v2.2.csv"));
      QVERIFY(boxes.open(QIODevice::Append));
      boxes.write("A00000,09x2,0.1,0.1,0.5,0.5,3,0\n");
      QFile map(QString::fromStdString(
          bad + "/annotations/ava_action_list_v2.2_for_activitynet_2019.pbtxt"));
      QVERIFY(map.open(QIODevice::Append));
      map.write("item { name: \"x\" id: 0 }\n");
    }
    const auto out = check(bad);
    const auto* gt = find(out, "AVA.GROUNDTRUTH_FILE");
    QVERIFY2(gt && gt->isError() && gt->message.find(bad + "/annotations/ava_val_v2.2.csv:") == 0,
             config::formatDiagnostics(out).c_str());
    const auto* boxes = find(out, "AVA.TRAIN_GT_BOX_LISTS");
    QVERIFY2(
        boxes && boxes->isError() &&
            boxes->message.find(bad + "/annotations/ava_train_v2.2.csv:11: second '09x2'") == 0,
        config::formatDiagnostics(out).c_str());
    const auto* map = find(out, "AVA.LABEL_MAP_FILE");
    QVERIFY2(map && map->isError(), config::formatDiagnostics(out).c_str());
  }

  void framesThatDoNotDecodeAreNamed() {
    const std::string bad = copy("no-frames");
    fs::remove_all(bad + "/frames/A00000");
    const auto out = check(bad, {"TEST.ENABLE", "False"});
    const auto* frames = find(out, "AVA.FRAME_DIR");
    QVERIFY2(frames, config::formatDiagnostics(out).c_str());
    // Training's first keyframe is A00000's: 1 of 3 is a warning (the loader retries others).
    QVERIFY(!frames->isError());
    QVERIFY2(frames->message.find("1 of the 3 train keyframe clips tried") == 0 &&
                 frames->message.find("AVA video 'A00000' second 902: cannot read '" + bad +
                                      "/frames/A00000/A00000_0000") != std::string::npos,
             frames->message.c_str());
    // A frame folder that is not there fails every clip.
    const auto none = check(bad, {"AVA.FRAME_DIR", bad + "/elsewhere"});
    const auto* all = find(none, "AVA.FRAME_DIR");
    QVERIFY2(all && all->isError(), config::formatDiagnostics(none).c_str());
  }
};

QTEST_GUILESS_MAIN(TestAvaPreflight)
#include "tst_avapreflight.moc"
