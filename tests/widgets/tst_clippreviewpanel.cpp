// The studio's clip preview: the loader's clip at the chosen position, with its sampling, built
// off the GUI thread; Next / Previous step through clips; a config with errors or a missing
// dataset says what is wrong instead of showing a stale picture.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSpinBox>
#include <QTemporaryDir>

#include "ClipPreviewPanel.h"
#include "GradCamControls.h"
#include "NiceOf.h"
#include "configfile/ConfigWriter.h"
#include "data/Dataset.h"
#include "metrics/AvaLabelNames.h"
#include "runlog/RunDirectory.h"
#include "support/AvaDemo.h"
#include "support/Configs.h"
#include "support/DemoFixture.h"

using namespace amp;

class TestClipPreviewPanel : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  testsupport::DemoFixture demo_;

 private slots:
  void initTestCase() {
    QVERIFY2(demo_.generate(dir_.path()), demo_.error().c_str());
    std::string error;
    QVERIFY2(testsupport::makeAvaDemo(dir_.path().toStdString() + "/ava", 1, &error),
             error.c_str());
  }

  void showsTheLoadersClip() {
    widgets::ClipPreviewPanel panel;
    panel.resize(900, 600);
    std::optional<config::Config> cfg =
        demo_.config({"AUG.NUM_SAMPLE", "2", "AUG.ENABLE", "True", "AUG.AA_TYPE",
                      "rand-m9-n4-mstd0.5-inc1", "AUG.RE_PROB", "1.0"});
    QVERIFY(cfg);
    panel.setConfigSource([&] { return cfg; });
    QSignalSpy ready(&panel, &widgets::ClipPreviewPanel::previewReady);
    panel.clipBox()->setValue(3);
    panel.epochBox()->setValue(2);
    panel.showClip();
    QVERIFY(ready.wait(20000));
    std::vector<data::PreviewClip> expected;
    std::string error;
    QVERIFY2(data::previewClips(*cfg, data::Split::Train, 2, 3, 1, expected, &error),
             error.c_str());
    QCOMPARE(panel.clips().size(), size_t(2));  // AUG.NUM_SAMPLE 2: two copies of the video
    QCOMPARE(panel.sheets().size(), size_t(2));
    for (size_t i = 0; i < 2; ++i) {
      QCOMPARE(panel.clips()[i].info.frame_indices, expected[i].info.frame_indices);
      QVERIFY(panel.clips()[i].fast == expected[i].fast);
      const auto sheet = data::contactSheet(expected[i]);
      QCOMPARE(panel.sheets()[i].width(), sheet.width);
      QCOMPARE(panel.sheets()[i].pixelColor(0, 0),
               QColor(sheet.rgb[0], sheet.rgb[1], sheet.rgb[2]));
    }
    QVERIFY2(panel.status()->text().contains("clip 3 of epoch 2"),
             qPrintable(panel.status()->text()));
    const auto labels = panel.findChildren<QLabel*>();
    const QString frames = QString("frames %1").arg(expected[0].info.frame_indices.front());
    QVERIFY(std::any_of(labels.begin(), labels.end(), [&](QLabel* l) {
      return l->text().contains(frames) && l->text().contains("copy 1 of 2");
    }));
    // Each copy's line names its RandAugment ops in order, with their arguments, and its erased
    // box.
    int named = 0;
    for (size_t i = 0; i < 2; ++i) {
      const auto& info = expected[i].info;
      QStringList ops;
      for (const auto& op : info.augment_ops)
        ops << QString::fromStdString(data::describeAugOp(op)).toHtmlEscaped();
      QCOMPARE(info.erased_boxes.size(), size_t(1));  // AUG.RE_PROB 1
      const auto& box = info.erased_boxes.front();
      const QString erased = QString("random erasing: %1x%2 at (%3, %4) of the 64x64 crop")
                                 .arg(box.width)
                                 .arg(box.height)
                                 .arg(box.left)
                                 .arg(box.top);
      const QString copy = QString("copy %1 of 2").arg(i + 1);
      QVERIFY(std::any_of(labels.begin(), labels.end(), [&](QLabel* l) {
        return l->text().contains(copy) && l->text().contains(erased) &&
               (ops.isEmpty() ? !l->text().contains("RandAugment")
                              : l->text().contains("RandAugment, in order: " + ops.join(", ")));
      }));
      named += static_cast<int>(info.augment_ops.size());
    }
    QVERIFY(named > 0);  // the seeded draw applied some ops, so the check above saw names

    panel.nextClip();
    QVERIFY(ready.wait(20000));
    QCOMPARE(panel.clipBox()->value(), 4);
    QCOMPARE(panel.clips().front().position, 4);
    panel.previousClip();
    QVERIFY(ready.wait(20000));
    QCOMPARE(panel.clips().front().position, 3);

    // The test split: video x views, each view named.
    panel.splitBox()->setCurrentIndex(2);
    panel.clipBox()->setValue(1);
    panel.showClip();
    QVERIFY(ready.wait(20000));
    QCOMPARE(panel.clips().size(), size_t(1));
    QCOMPARE(panel.clips().front().view, 1);
  }

  // A run's clips come from its saved config, not the editor's; back to the editor's on request.
  // Beside a training run the preview's worker decodes at nice 10.
  void showsARunsClipsAndYieldsToTraining() {
    const QString run = dir_.path() + "/run";
    QVERIFY(QDir().mkpath(run));
    std::optional<config::Config> runCfg =
        demo_.config({"DATA.TRAIN_CROP_SIZE", "48", "DATA.TRAIN_JITTER_SCALES", "[56, 64]",
                      "DATA.TEST_CROP_SIZE", "48"});
    QVERIFY(runCfg);
    QVERIFY(config::saveConfigFile(*runCfg, runlog::RunDirectory(run.toStdString()).configPath(),
                                   nullptr));
    widgets::ClipPreviewPanel panel;
    std::optional<config::Config> editor = demo_.config();
    panel.setConfigSource([&] { return editor; });
    QSignalSpy ready(&panel, &widgets::ClipPreviewPanel::previewReady);
    panel.setTrainingActive(true);
    QVERIFY(panel.showRun(run));
    QVERIFY(ready.wait(20000));
    QCOMPARE(panel.runDir(), run);
    QVERIFY2(!panel.clips().empty(), qPrintable(panel.status()->text()));
    QCOMPARE(panel.clips().front().crop, 48);
    QCOMPARE(panel.lastWorkerNice(), testing::nicerThanThisTest(10));
    panel.setTrainingActive(false);
    panel.showEditorConfig();
    QVERIFY(ready.wait(20000));
    QVERIFY(panel.runDir().isEmpty());
    QCOMPARE(panel.clips().front().crop, static_cast<int>(editor->getInt("DATA.TRAIN_CROP_SIZE")));
    QCOMPARE(panel.lastWorkerNice(), testing::nicerThanThisTest(0));
    // An Analysis-tab mistake: the test clip of that video, at its first view.
    data::SampleList list;
    std::string error;
    QVERIFY2(data::readSampleList(*runCfg, data::Split::Test, list, &error), error.c_str());
    const QString video = QString::fromStdString(list.videos.back().path);
    QVERIFY(panel.showSample(run, "test", video));
    QVERIFY(ready.wait(20000));
    QCOMPARE(panel.splitBox()->currentText(), QString("test"));
    QVERIFY2(!panel.clips().empty(), qPrintable(panel.status()->text()));
    QCOMPARE(QString::fromStdString(panel.clips().front().path), video);
    QVERIFY(!panel.showSample(run, "test", "moved.mp4"));
    QVERIFY2(panel.status()->text().contains("does not list"), qPrintable(panel.status()->text()));
    panel.showEditorConfig();
    QVERIFY(ready.wait(20000));
    QVERIFY(!panel.showRun(dir_.path() + "/no-run"));  // no config.yaml: said, the editor's stays
    QVERIFY2(panel.status()->text().contains("no-run"), qPrintable(panel.status()->text()));
    QVERIFY(panel.runDir().isEmpty());
  }

  // AVA: the keyframe and the clip's frames with each box outlined in its colour and labelled
  // with its actions' names from the label map.
  void avaKeyframesShowTheirBoxes() {
    widgets::ClipPreviewPanel panel;
    panel.resize(900, 600);
    panel.show();
    std::optional<config::Config> cfg = testsupport::loadConfigOrDie(
        testsupport::repoConfig("demo/DEMO_X3D_TINY.yaml"),
        testsupport::avaDemoOverrides(dir_.path().toStdString() + "/ava"));
    panel.setConfigSource([&] { return cfg; });
    QSignalSpy ready(&panel, &widgets::ClipPreviewPanel::previewReady);
    panel.showClip();
    QVERIFY(ready.wait(20000));
    QVERIFY2(panel.clips().size() == 1, qPrintable(panel.status()->text()));
    const data::PreviewClip& clip = panel.clips().front();
    QVERIFY(!clip.boxes.empty());
    std::string error;
    const auto names = metrics::avaLabelNames(*cfg, &error);
    QVERIFY2(names, error.c_str());
    QCOMPARE(panel.boxTexts().size(), size_t(1));
    QCOMPARE(panel.boxTexts()[0].size(), clip.boxes.size());
    for (size_t k = 0; k < clip.boxes.size(); ++k) {
      const int id = clip.boxes[k].labels.front();  // the demo's persons do one thing each
      QCOMPARE(panel.boxTexts()[0][k],
               QString("%1: %2 %3").arg(k + 1).arg(id).arg(names->at(id).c_str()));
    }
    // The picture: box 1's left edge on the keyframe in its colour, at the shown scale.
    auto* picture = panel.findChild<QLabel*>("clipSheet0");
    QVERIFY(picture);
    const QImage shown = picture->pixmap().toImage();
    const double scale = static_cast<double>(shown.width()) / panel.sheets()[0].width();
    const auto& f = clip.boxes[0].frame;
    const int x = static_cast<int>(std::lround(f[0] * scale)),
              y = static_cast<int>(std::lround((f[1] + f[3]) / 2 * scale));
    const auto c = data::avaBoxColour(0);
    bool outlined = false;
    for (int dx = -1; dx <= 1; ++dx)
      outlined |= shown.pixelColor(x + dx, y) == QColor(c[0], c[1], c[2]);
    QVERIFY2(outlined, qPrintable(shown.pixelColor(x, y).name()));
    // The text beside the picture lists the boxes too.
    const auto labels = panel.findChildren<QLabel*>();
    QVERIFY(std::any_of(labels.begin(), labels.end(), [&](QLabel* l) {
      return l->text().contains("keyframe second " + QString::number(clip.second)) &&
             l->text().contains("box " + panel.boxTexts()[0][0].toHtmlEscaped());
    }));
  }

  // Grad-CAM on the shown clip: the toggle with a run's checkpoint puts each clip's frames under
  // the map of the predicted class and shows the legend; the layer and class menus act; a broken
  // checkpoint is said in the status line, never a crash; off again, the plain sheets are back.
  void gradCamToggle() {
    const QString run = dir_.path() + "/camrun";
    const QString why = demo_.trainRun(run, {"X3D.DIM_C5", "32"});
    QVERIFY2(why.isEmpty(), qPrintable(why));
    widgets::ClipPreviewPanel panel;
    panel.resize(1200, 800);
    std::optional<config::Config> editor =
        demo_.config({"OUTPUT_DIR", dir_.path().toStdString() + "/no-checkpoints"});
    panel.setConfigSource([&] { return editor; });
    QSignalSpy ready(&panel, &widgets::ClipPreviewPanel::previewReady);
    QVERIFY(panel.showRun(run));
    QVERIFY(ready.wait(20000));
    QVERIFY(panel.gradCamResults().empty());
    const QImage plain = panel.sheets().at(0);
    auto* cam = panel.gradCam();
    QCOMPARE(cam->checkpointBox()->currentData().toString(),
             run + "/checkpoints/checkpoint_epoch_00001.pyth");  // the run's newest
    QVERIFY(cam->legend()->isHidden());
    cam->toggle()->setChecked(true);
    QVERIFY(ready.wait(60000));
    QVERIFY2(panel.gradCamResults().size() == panel.clips().size(),
             qPrintable(panel.status()->text()));
    const auto& r = panel.gradCamResults().front();
    QCOMPARE(r.maps.at(0).layer, std::string("s5/pathway0_res2"));
    QVERIFY(r.target_is_prediction);
    QCOMPARE(panel.sheets().at(0).size(), plain.size());
    QVERIFY(panel.sheets().at(0) != plain);  // the frames under the map
    // Saved as shown, at twice the size: the map's colours, not the plain frames.
    QTemporaryDir out;
    QString error;
    const QStringList saved = panel.exportSheets(out.filePath("cam.png"), &error);
    QVERIFY2(saved == QStringList{out.filePath("cam.png")}, qPrintable(error));
    const QImage back(saved.front());
    QCOMPARE(back.size(), panel.sheets().at(0).size() * 2);
    QVERIFY(back.scaled(plain.size(), Qt::IgnoreAspectRatio, Qt::SmoothTransformation)
                .convertToFormat(plain.format()) != plain);
    QVERIFY(panel.exportSheets("/proc/no-such/cam.png", &error).isEmpty());
    QVERIFY2(error.contains("/proc/no-such/cam.png"), qPrintable(error));
    QVERIFY(!cam->legend()->isHidden());
    QVERIFY2(
        cam->legend()->caption().startsWith(QString("Grad-CAM of class %1").arg(r.target_class)),
        qPrintable(cam->legend()->caption()));
    // The layer menu lists the model's blocks once the model is loaded; choosing one acts.
    const int layer = cam->layerBox()->findText("s3/pathway0_res1");
    QVERIFY2(layer > 0, qPrintable(QString::number(cam->layerBox()->count())));
    cam->layerBox()->setCurrentIndex(layer);
    QVERIFY(ready.wait(60000));
    QCOMPARE(panel.gradCamResults().at(0).maps.at(0).layer, std::string("s3/pathway0_res1"));
    cam->targetBox()->setCurrentIndex(2);  // a chosen class
    QVERIFY(ready.wait(60000));
    cam->classBox()->setValue(4);
    QVERIFY(ready.wait(60000));
    QCOMPARE(panel.gradCamResults().at(0).target_class, 4);
    // A file that is not a checkpoint: said, with the file's name.
    const QString junk = dir_.path() + "/junk.pyth";
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a checkpoint");
    f.close();
    cam->setCheckpoints({junk});
    panel.showClip();
    QVERIFY(ready.wait(60000));
    QVERIFY(panel.gradCamResults().empty());
    QVERIFY2(panel.status()->text().contains("Grad-CAM: ") &&
                 panel.status()->text().contains("junk.pyth"),
             qPrintable(panel.status()->text()));
    QVERIFY(!panel.sheets().empty());  // the clip is still shown
    cam->toggle()->setChecked(false);
    QVERIFY(ready.wait(20000));
    QCOMPARE(panel.sheets().at(0), plain);
    // The editor's config, whose OUTPUT_DIR has no checkpoint: said in the studio's words.
    panel.showEditorConfig();
    QVERIFY(ready.wait(20000));
    cam->toggle()->setChecked(true);
    QVERIFY(ready.wait(20000));
    QVERIFY2(panel.status()->text().contains("Grad-CAM: Checkpoint: no checkpoint given"),
             qPrintable(panel.status()->text()));
  }

  void problemsAreSaid() {
    widgets::ClipPreviewPanel panel;
    std::optional<config::Config> cfg;  // the editor's config has errors
    panel.setConfigSource([&] { return cfg; });
    panel.showClip();
    QVERIFY(panel.status()->text().contains("The config has errors"));
    cfg = demo_.config({"DATA.PATH_TO_DATA_DIR", dir_.path().toStdString() + "/nowhere"});
    QSignalSpy ready(&panel, &widgets::ClipPreviewPanel::previewReady);
    panel.showClip();
    QVERIFY(ready.wait(20000));
    QVERIFY(panel.clips().empty());
    QVERIFY2(panel.status()->text().contains("nowhere/train.csv"),
             qPrintable(panel.status()->text()));
  }
};

QTEST_MAIN(TestClipPreviewPanel)
#include "tst_clippreviewpanel.moc"
