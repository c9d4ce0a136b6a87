// ampstudio-cli visualize on the tiny demo X3D: the events file it writes holds, read back with
// runlog::readTensorBoardFile, PySlowFast's tags for layer weights and activations (pictures and
// histograms), input videos with Grad-CAM (GIFs) and misclassified clips; saved predictions are
// drawn as plot_eval's confusion matrix, and a pickle of torch tensors, a layer that is not
// there and a config that enables nothing are refused with their reasons. The weights are a
// freshly initialised model saved here: an untrained model gets most clips wrong.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <cstring>
#include <set>
#include <string>

#include "CliRun.h"
#include "checkpoint/SavedPredictions.h"
#include "models/VideoModels.h"
#include "runlog/TensorBoardReader.h"
#include "support/DemoFixture.h"
#include "train/Checkpoint.h"

using namespace amp;
using amp::testing::configFile;
using amp::testing::runCli;

namespace {

// Pickle protocol 2 by hand, as pickle.dump([preds, labels]) of plain lists writes it: lists of
// floats (BINFLOAT, big-endian) and small ints (BININT1).
std::string pickledPredictions(const std::vector<std::vector<double>>& preds,
                               const std::vector<int>& labels) {
  std::string p = "\x80\x02](](";  // the outer list, its mark, preds, its mark
  for (const auto& row : preds) {
    p += "](";
    for (const double v : row) {
      std::uint64_t bits;
      std::memcpy(&bits, &v, 8);
      p += 'G';
      for (int i = 7; i >= 0; --i) p += static_cast<char>((bits >> (8 * i)) & 0xFF);
    }
    p += 'e';
  }
  p += "e](";  // the rows into preds; labels
  for (const int l : labels) p += std::string("K") + static_cast<char>(l);
  p += "ee.";  // the labels into their list; preds and labels into the outer one
  return p;
}

}  // namespace

class TestCliVisualize : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  testsupport::DemoFixture demo_{{"X3D.DIM_C5", "32"}};
  QString checkpoint_;
  QString predictions_ = dir_.path() + "/preds.pkl";
  QStringList base_;

  amp::testing::CliResult visualize(const QString& out, const QStringList& extra) const {
    return runCli(QStringList{"visualize", "--json", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                              "--checkpoint", checkpoint_} +
                  base_ + QStringList{"OUTPUT_DIR", dir_.path() + "/" + out} + extra);
  }
  // The tags of the events file `r` reports, by kind ("image", "histogram", "video").
  static std::multiset<std::string> tagsOf(const amp::testing::CliResult& r, const char* kind,
                                           runlog::TensorBoardFile* file = nullptr) {
    const auto j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const auto f = runlog::readTensorBoardFile(j["events_file"].toString().toStdString());
    std::multiset<std::string> tags;
    for (const auto& e : f.events) {
      if (std::strcmp(kind, "histogram") == 0)
        for (const auto& h : e.histograms) tags.insert(h.tag);
      for (const auto& i : e.images) {
        const bool gif = i.png.rfind("GIF89a", 0) == 0;
        if ((std::strcmp(kind, "video") == 0) == gif && std::strcmp(kind, "histogram") != 0)
          tags.insert(i.tag);
      }
    }
    if (file) *file = f;
    return tags;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(demo_.generate(dir_.path()), demo_.error().c_str());
    const QString data = QString::fromStdString(demo_.dataDir());
    base_ = {"DATA.PATH_TO_DATA_DIR",
             data,
             "DATA.PATH_PREFIX",
             data,
             "DEMO.LABEL_FILE_PATH",
             data + "/classes.txt",
             "X3D.DIM_C5",
             "32",
             "NUM_GPUS",
             "0",
             "TEST.NUM_ENSEMBLE_VIEWS",
             "1",
             "TENSORBOARD.ENABLE",
             "True"};
    torch::manual_seed(0);
    auto net = models::buildVideoNet(demo_.configOrDie({"NUM_GPUS", "0"}));
    train::CheckpointInfo info;
    info.epochs_done = 1;
    checkpoint_ = QString::fromStdString(
        train::saveCheckpoint((dir_.path() + "/ckpt").toStdString(), *net, nullptr, nullptr, info));
  }

  // Everything on: 16 test clips (2 a class, one view) in two batches of 8.
  void writesEveryViewPySlowFastNames() {
    const auto r = visualize(
        "all", {"TENSORBOARD.MODEL_VIS.ENABLE", "True", "TENSORBOARD.MODEL_VIS.MODEL_WEIGHTS",
                "True", "TENSORBOARD.MODEL_VIS.ACTIVATIONS", "True",
                "TENSORBOARD.MODEL_VIS.GRAD_CAM.ENABLE", "True", "TENSORBOARD.MODEL_VIS.LAYER_LIST",
                "['s1/pathway0_stem/conv_xy', 's2/pathway0_res0 0,1;0']",
                "TENSORBOARD.WRONG_PRED_VIS.ENABLE", "True"});
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(r.err + r.out));
    const auto j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(j["clips"].toInt(), 16);
    QVERIFY(j["events_file"].toString().startsWith(dir_.path() + "/all/runs-kinetics/"));
    // The convolution has a weight but no watched output; the block the reverse: both said.
    const QString notes = QJsonDocument(j["notes"].toArray()).toJson();
    QVERIFY2(notes.contains("s1/pathway0_stem/conv_xy's output cannot be watched"),
             qPrintable(notes));
    QVERIFY2(notes.contains("s2/pathway0_res0 has no weight"), qPrintable(notes));

    runlog::TensorBoardFile file;
    const auto images = tagsOf(r, "image", &file);
    QVERIFY2(file.error.empty(), file.error.c_str());
    QCOMPARE(images.count("Layer Weights/s1/pathway0_stem/conv_xy"), std::size_t{1});
    QCOMPARE(images.count("Input 0/Activations: s2/pathway0_res0"), std::size_t{1});
    QCOMPARE(images.count("Input 15/Activations: s2/pathway0_res0"), std::size_t{1});
    QCOMPARE(images.size(), std::size_t{1 + 16});
    const auto histograms = tagsOf(r, "histogram");
    QCOMPARE(histograms.count("Layer Weights/s1/pathway0_stem/conv_xy"), std::size_t{1});
    QCOMPARE(histograms.size(), std::size_t{1 + 16});
    // The weight 12 x 3 x 1 x 3 x 3: 36 slices of 3 x 3, 6 to a row, behind 1-pixel borders.
    // The activation "0,1;0": channels 0 and 1 of frame 0, two 16 x 16 slices, one to a row.
    for (const auto& e : file.events)
      for (const auto& i : e.images) {
        if (i.tag == "Layer Weights/s1/pathway0_stem/conv_xy") {
          QCOMPARE(i.width, 6 * 4 + 1);
          QCOMPARE(i.height, 6 * 4 + 1);
        }
        if (i.tag == "Input 3/Activations: s2/pathway0_res0") {
          QCOMPARE(i.width, 16 + 2);  // the stem and s2 each halve the 64-pixel crop
          QCOMPARE(i.height, 2 * 17 + 1);
        }
        if (i.tag == "Input 0/Pathway 1") {  // the Grad-CAM overlay of the 64 x 64 clip
          QCOMPARE(i.width, 64);
          QCOMPARE(i.height, 64);
        }
      }
    for (const auto& e : file.events)
      for (const auto& h : e.histograms)
        if (h.tag.rfind("Layer Weights/", 0) == 0) QCOMPARE(h.num, 12.0 * 3 * 3 * 3);

    // A video per clip (one pathway), and one per misclassified clip under PySlowFast's tag.
    const auto videos = tagsOf(r, "video");
    QCOMPARE(videos.count("Input 0/Pathway 1"), std::size_t{1});
    QCOMPARE(videos.count("Input 15/Pathway 1"), std::size_t{1});
    const int wrong = j["wrong_clips"].toInt();
    QVERIFY2(wrong >= 8, qPrintable(r.out));  // an untrained model: chance is 1 in 8
    QCOMPARE(static_cast<int>(videos.size()), 16 + wrong);
    std::set<QString> wrongNames;
    for (const auto& t : videos) {
      const QString tag = QString::fromStdString(t);
      if (!tag.startsWith("Incorrectly classified videos./Video ")) continue;
      QVERIFY2(tag.contains(QRegularExpression(
                   "^Incorrectly classified videos\\./Video [0-9]+, Pathway 0: [a-z_ ]+$")),
               qPrintable(tag));
      wrongNames.insert(tag.section(": ", 1));
    }
    QStringList reported;  // in class order; the tags' names sorted by the set
    for (const auto& n : j["wrong_class_names"].toArray()) reported << n.toString();
    reported.sort();
    QCOMPARE(QStringList(wrongNames.begin(), wrongNames.end()), reported);
    QCOMPARE(j["wrong_classes"].toArray().size(), reported.size());
  }

  // WRONG_PRED_VIS.SUBSET_PATH: only clips whose true class is listed. TENSORBOARD.PREDICTIONS_PATH
  // in the same run: plot_eval's confusion matrix of saved predictions.
  void subsetOfMistakesAndSavedPredictions() {
    const QString subset = dir_.path() + "/subset.txt";
    QFile f(subset);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QFile names(QString::fromStdString(demo_.dataDir()) + "/classes.txt");
    QVERIFY(names.open(QIODevice::ReadOnly));
    const QString first = QString::fromUtf8(names.readLine()).trimmed();
    f.write((first + "\n").toUtf8());
    f.close();
    std::vector<std::vector<double>> preds(3, std::vector<double>(8, 0.0));
    preds[0][1] = preds[1][2] = preds[2][2] = 1.0;
    QFile p(predictions_);
    QVERIFY(p.open(QIODevice::WriteOnly));
    const std::string bytes = pickledPredictions(preds, {1, 2, 3});
    p.write(bytes.data(), static_cast<qint64>(bytes.size()));
    p.close();
    const auto r = visualize(
        "subset", {"TENSORBOARD.WRONG_PRED_VIS.ENABLE", "True",
                   "TENSORBOARD.WRONG_PRED_VIS.SUBSET_PATH", subset, "TENSORBOARD.PREDICTIONS_PATH",
                   predictions_, "TENSORBOARD.CONFUSION_MATRIX.ENABLE", "True"});
    QVERIFY2(r.exitCode == 0 && !r.crashed, qPrintable(r.err + r.out));
    const auto j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const auto videos = tagsOf(r, "video");
    QVERIFY(!videos.empty());  // an untrained model misses one of the class's 2 clips at least
    for (const auto& t : videos)
      QVERIFY2(QString::fromStdString(t).endsWith(": " + first), t.c_str());
    QCOMPARE(static_cast<int>(videos.size()), j["wrong_clips"].toInt());
    QVERIFY2(j["predictions"].toString().contains("[3, 8]"), qPrintable(r.out));
    QCOMPARE(tagsOf(r, "image").count("Confusion Matrix"), std::size_t{1});
  }

  void refusals() {
    // PySlowFast's own file pickles torch tensors: refused, saying what to save instead (the
    // engine's reader, which visualize calls before its first clip).
    QFile t(dir_.path() + "/tensors.pkl");
    QVERIFY(t.open(QIODevice::WriteOnly));
    t.write(
        QByteArray("\x80\x02"
                   "ctorch.storage\n_load_from_bytes\nq\x00.",
                   37));
    t.close();
    checkpoint::SavedPredictions saved;
    std::string error;
    QVERIFY(!checkpoint::readSavedPredictions(t.fileName().toStdString(), saved, &error));
    QVERIFY2(error.find("TENSORBOARD.PREDICTIONS_PATH " + t.fileName().toStdString() +
                        ": it holds torch tensors") == 0 &&
                 error.find("pickle.dump([preds.numpy(), labels.numpy()], f)") != std::string::npos,
             error.c_str());
    // Nothing enabled: which keys to set, and no events file.
    auto r = runCli({"visualize", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("nothing to visualise: set TENSORBOARD.ENABLE True") &&
                 r.err.contains("TENSORBOARD.MODEL_VIS.ENABLE True") &&
                 r.err.contains("TENSORBOARD.WRONG_PRED_VIS.ENABLE True"),
             qPrintable(r.err));
    // A layer that is not there: the nearest names.
    r = visualize("bad",
                  {"TENSORBOARD.MODEL_VIS.ENABLE", "True", "TENSORBOARD.MODEL_VIS.MODEL_WEIGHTS",
                   "True", "TENSORBOARD.MODEL_VIS.LAYER_LIST", "['s2/pathway0_res9']"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(!r.crashed);
    QVERIFY2(r.err.contains("TENSORBOARD.MODEL_VIS.LAYER_LIST: the model has no layer "
                            "'s2/pathway0_res9'; the nearest are s2/pathway0_res0"),
             qPrintable(r.err));
    QVERIFY(!QDir(dir_.path() + "/bad/runs-kinetics").exists());
  }
};

QTEST_GUILESS_MAIN(TestCliVisualize)
#include "tst_clivisualize.moc"
