// ampstudio-cli data preview --grad-cam on the demo config: a heat-mapped PNG per clip beside its
// contact sheet, what the map is of (--json and words), the options that choose the class, layer
// and colours, and each bad input refused with its reason (never a crash). The checkpoint is a
// freshly initialised model saved here: Grad-CAM needs weights that fit, not trained ones.
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include "CliRun.h"
#include "models/VideoModels.h"
#include "support/DemoFixture.h"
#include "train/Checkpoint.h"

using namespace amp;
using amp::testing::configFile;
using amp::testing::runCli;

class TestCliGradCam : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  testsupport::DemoFixture demo_{{"X3D.DIM_C5", "32"}};
  QString checkpoint_;
  QStringList dataArgs_;

  QStringList preview(const QStringList& extra) const {
    return QStringList{"data",  "preview",           "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                       "--out", dir_.path() + "/out"} +
           extra + dataArgs_;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(demo_.generate(dir_.path()), demo_.error().c_str());
    const QString data = QString::fromStdString(demo_.dataDir());
    dataArgs_ = {"DATA.PATH_TO_DATA_DIR",
                 data,
                 "DATA.PATH_PREFIX",
                 data,
                 "DEMO.LABEL_FILE_PATH",
                 data + "/classes.txt",
                 "X3D.DIM_C5",
                 "32",
                 "NUM_GPUS",
                 "0"};
    torch::manual_seed(0);  // the same weights each run
    auto net = models::buildVideoNet(demo_.configOrDie({"NUM_GPUS", "0"}));
    train::CheckpointInfo info;
    info.epochs_done = 1;
    checkpoint_ = QString::fromStdString(
        train::saveCheckpoint((dir_.path() + "/run").toStdString(), *net, nullptr, nullptr, info));
  }

  // Two clips: each gets <name>_gradcam.png, the contact sheet with its frames under the map of
  // the predicted class and a legend strip under it.
  void writesHeatMappedSheets() {
    auto r = runCli(preview({"--count", "2", "--json", "--grad-cam", "--checkpoint", checkpoint_}));
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(r.err));
    const auto clips = QJsonDocument::fromJson(r.out.toUtf8()).array();
    QCOMPARE(clips.size(), 2);
    for (const auto& value : clips) {
      const auto c = value.toObject();
      const auto cam = c["grad_cam"].toObject();
      QVERIFY2(cam["png"].toString().endsWith("_gradcam.png"), qPrintable(r.out));
      QCOMPARE(cam["target"].toString(), QString("prediction"));
      QCOMPARE(cam["target_class"].toInt(), cam["top"].toArray()[0].toObject()["class"].toInt());
      QVERIFY(!cam["target_name"].toString().isEmpty());  // from DEMO.LABEL_FILE_PATH
      QCOMPARE(cam["layers"].toArray(), QJsonArray{"s5/pathway0_res2"});
      QCOMPARE(cam["precision"].toString(), QString("bf16"));  // the demo's mixed precision
      QCOMPARE(cam["colormap"].toString(), QString("viridis"));
      const QImage plain(c["png"].toString()), heat(cam["png"].toString());
      QVERIFY(!plain.isNull() && !heat.isNull());
      QVERIFY(heat.width() >= plain.width());   // wider when the legend's caption is
      QVERIFY(heat.height() > plain.height());  // the legend under the sheet
      // The source frame at the top is the same; the clip's frames are under the map.
      QCOMPARE(heat.pixelColor(5, 5), plain.pixelColor(5, 5));
      const int frameY = plain.height() - 10;
      int changed = 0;
      for (int x = 0; x < plain.width(); x += 3)
        changed += heat.pixelColor(x, frameY) != plain.pixelColor(x, frameY);
      QVERIFY2(changed > plain.width() / 6, qPrintable(QString::number(changed)));
    }
  }

  // A chosen class, layer and colour map, in words.
  void choicesAreSaid() {
    auto r =
        runCli(preview({"--grad-cam", "--checkpoint", checkpoint_, "--target-class", "3", "--layer",
                        "s4/pathway0_res4", "--colormap", "jet", "--alpha", "0.7"}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("  Grad-CAM ") && r.out.contains("_gradcam.png\n    class 3 ") &&
                 r.out.contains("(--target-class, score ") &&
                 r.out.contains("layer s4/pathway0_res4, jet, bf16 forward"),
             qPrintable(r.out));
    auto label = runCli(preview({"--grad-cam", "--checkpoint", checkpoint_, "--true-label"}));
    QVERIFY2(label.exitCode == 0 && label.out.contains("(the clip's label, score"),
             qPrintable(label.out + label.err));
  }

  // Bad input: each said with the option, key or file, exit code 2, nothing written.
  void badInputIsRefused() {
    auto layer = runCli(preview({"--grad-cam", "--checkpoint", checkpoint_, "--layer", "s9/nope"}));
    QCOMPARE(layer.exitCode, 2);
    QVERIFY2(layer.err.contains("--layer: 's9/nope' is not a layer Grad-CAM can use; the model's "
                                "layers are: s1/pathway0_stem, s2/pathway0_res0"),
             qPrintable(layer.err));
    auto two = runCli(preview({"--grad-cam", "--checkpoint", checkpoint_, "--layer",
                               "s5/pathway0_res2", "--layer", "s5/pathway0_res1"}));
    QCOMPARE(two.exitCode, 2);
    QVERIFY2(two.err.contains("--layer: 2 layer(s) for 1 pathway(s)"), qPrintable(two.err));
    auto cls = runCli(preview({"--grad-cam", "--checkpoint", checkpoint_, "--target-class", "8"}));
    QCOMPARE(cls.exitCode, 2);
    QVERIFY2(cls.err.contains("--target-class 8: the model has 8 classes (0 .. 7"),
             qPrintable(cls.err));
    auto colours =
        runCli(preview({"--grad-cam", "--checkpoint", checkpoint_, "--colormap", "hot"}));
    QCOMPARE(colours.exitCode, 2);
    QVERIFY2(colours.err.contains("--colormap: 'hot' is not a colour map built here"),
             qPrintable(colours.err));
    // The checkpoint of another model (a wider head): every weight must fit.
    auto other = runCli(preview({"--grad-cam", "--checkpoint", checkpoint_}) +
                        QStringList{"X3D.DIM_C5", "64"});  // after the suite's 32: it wins
    QCOMPARE(other.exitCode, 2);
    QVERIFY2(other.err.contains(checkpoint_) && other.err.contains("lin_5"), qPrintable(other.err));
    QVERIFY(!other.crashed);
    // Grad-CAM's options without --grad-cam.
    auto alone = runCli(preview({"--target-class", "1"}));
    QVERIFY(alone.exitCode != 0 && !alone.crashed);
    QVERIFY2(alone.err.contains("--grad-cam"), qPrintable(alone.err));
  }
};

QTEST_GUILESS_MAIN(TestCliGradCam)
#include "tst_cligradcam.moc"
