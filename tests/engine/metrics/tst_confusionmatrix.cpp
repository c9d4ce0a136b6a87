// The confusion matrix as PySlowFast's get_confusion_matrix / plot_hist compute it, on hand-made
// score tables; the analysis file's round trip and its refusals; the figure's pixels.
#include <QtTest>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "metrics/ConfusionFigure.h"
#include "metrics/ConfusionMatrix.h"
#include "metrics/ConfusionRecord.h"
#include "support/TestFiles.h"

using namespace amp::metrics;

namespace {
// Six videos, three classes; rows are each video's scores (two views summed: each row sums to 2).
// Top-1: 0, 0, 1, 2, 2, 0 (the last row ties classes 0 and 2: argmax takes the first).
const std::vector<double> kScores = {1.6, 0.2, 0.2,   // video 0, label 0 -> 0
                                     1.0, 0.6, 0.4,   // video 1, label 0 -> 0
                                     0.2, 1.4, 0.4,   // video 2, label 1 -> 1
                                     0.2, 0.6, 1.2,   // video 3, label 1 -> 2 (true 2nd)
                                     0.0, 0.4, 1.6,   // video 4, label 2 -> 2
                                     0.9, 0.2, 0.9};  // video 5, label 2 -> 0 (tie; true 1st)
const std::vector<int> kLabels = {0, 0, 1, 1, 2, 2};
const std::vector<std::string> kVideos = {"a.mp4", "b.mp4", "c.mp4", "d.mp4", "e.mp4", "f.mp4"};
}  // namespace

class TestConfusionMatrix : public QObject {
  Q_OBJECT
 private slots:
  void countsAndRowNormalisationOfAScoreTable() {
    const auto m = ConfusionMatrix::fromScores(kScores.data(), kLabels.data(), kLabels.size(), 3);
    // sklearn's confusion_matrix(labels, argmax(preds)):
    //   [[2, 0, 0],
    //    [0, 1, 1],
    //    [1, 0, 1]]
    const std::int64_t expected[3][3] = {{2, 0, 0}, {0, 1, 1}, {1, 0, 1}};
    for (int t = 0; t < 3; ++t)
      for (int p = 0; p < 3; ++p) QCOMPARE(m.count(t, p), expected[t][p]);
    QCOMPARE(m.total(), std::int64_t(6));
    QCOMPARE(m.correct(), std::int64_t(4));
    // normalize="true": each row over its class's samples.
    QCOMPARE(m.rate(0, 0), 1.0);
    QCOMPARE(m.rate(1, 2), 0.5);
    QCOMPARE(m.rate(2, 0), 0.5);
    for (int t = 0; t < 3; ++t) {
      double sum = 0;
      for (int p = 0; p < 3; ++p) sum += m.rate(t, p);
      QCOMPARE(sum, 1.0);
    }
    QCOMPARE(m.accuracies(), (std::vector<double>{1.0, 0.5, 0.5}));
    QCOMPARE(m.cells().size(), std::size_t(5));
  }

  void aClassWithoutSamplesHasNoAccuracyAndAnEmptyRow() {
    ConfusionMatrix m(3);
    QVERIFY(m.add(0, 1, 3));
    QVERIFY(!m.add(3, 0));   // not a class: not counted (sklearn's labels=range(K))
    QVERIFY(!m.add(0, -1));  // nor a prediction outside
    QCOMPARE(m.total(), std::int64_t(3));
    QVERIFY(std::isnan(m.accuracy(2)));
    QCOMPARE(m.rate(2, 2), 0.0);  // sklearn's nan_to_num
    QCOMPARE(m.accuracy(0), 0.0);
  }

  void aSubsetKeepsTheRatesOfTheWholeRow() {
    const auto m = ConfusionMatrix::fromScores(kScores.data(), kLabels.data(), kLabels.size(), 3);
    // PySlowFast cuts cmtx[subset, :][:, subset] from the normalised matrix: class 1's half that
    // went to class 2 is outside the subset {0, 1}, so its row sums to 0.5.
    QCOMPARE(m.rates({0, 1}), (std::vector<double>{1.0, 0.0, 0.0, 0.5}));
    QCOMPARE(m.rates({2, 0}), (std::vector<double>{0.5, 0.5, 0.0, 1.0}));
  }

  void mostConfusedPairsComeByCountThenRate() {
    ConfusionMatrix m(4);
    QVERIFY(m.add(0, 1, 5));
    QVERIFY(m.add(0, 0, 5));
    QVERIFY(m.add(2, 3, 5));  // the same count, a larger share of its class
    QVERIFY(m.add(1, 0, 2));
    QVERIFY(m.add(3, 3, 9));
    const auto pairs = m.mostConfused(2);
    QCOMPARE(pairs.size(), std::size_t(2));
    QCOMPARE(pairs[0].truth, 2);
    QCOMPARE(pairs[0].pred, 3);
    QCOMPARE(pairs[0].rate, 1.0);
    QCOMPARE(pairs[1].truth, 0);
    QCOMPARE(pairs[1].count, std::int64_t(5));
    QCOMPARE(m.mostConfused(100).size(), std::size_t(3));  // off-diagonal cells only
  }

  void topKHistogramCountsAreTheRowsLargestRates() {
    ConfusionMatrix m(5);
    QVERIFY(m.add(1, 1, 6));
    QVERIFY(m.add(1, 3, 3));
    QVERIFY(m.add(1, 0, 1));
    const auto top = m.topPredictions(1, 3);
    QCOMPARE(top.size(), std::size_t(3));
    QCOMPARE(top[0], std::make_pair(1, 0.6));
    QCOMPARE(top[1], std::make_pair(3, 0.3));
    QCOMPARE(top[2], std::make_pair(0, 0.1));
    // k larger than the classes: all of them; equal rates (the zeros) by class.
    const auto all = m.topPredictions(1, 10);
    QCOMPARE(all.size(), std::size_t(5));
    QCOMPARE(all[3], std::make_pair(2, 0.0));
    QCOMPARE(all[4], std::make_pair(4, 0.0));
    QVERIFY(m.topPredictions(7, 3).empty());
  }

  void aRecordFromScoresListsTheMistakesWithTheirScores() {
    const auto r = recordFromScores(kScores.data(), kLabels, kVideos, 3, /*divideBy=*/2.0);
    QCOMPARE(r.matrix.count(1, 2), std::int64_t(1));
    QCOMPARE(r.mistakes.size(), std::size_t(2));
    const Mistake& d = r.mistakes[0];
    QCOMPARE(d.video, std::string("d.mp4"));
    QCOMPARE(d.truth, 1);
    QCOMPARE(d.pred, 2);
    QCOMPARE(d.score, 0.6);       // 1.2 over two views
    QCOMPARE(d.true_score, 0.3);  // 0.6 over two views
    QCOMPARE(d.true_rank, 2);
    const Mistake& f = r.mistakes[1];  // a tie: predicted 0, the true class scored as high
    QCOMPARE(f.pred, 0);
    QCOMPARE(f.true_rank, 1);
  }

  void theAnalysisFileRoundTrips() {
    auto r = recordFromScores(kScores.data(), kLabels, kVideos, 3, 2.0);
    r.split = "val";
    r.step = 40;
    r.epoch = 2;
    r.unit = "clip";
    r.names = {"walk", "run, fast", ""};
    r.subset = std::vector<int>{0, 2};
    r.parents = {{"legs", {0, 1}}, {"other", {2}}};
    r.mistakes[0].score = std::numeric_limits<double>::quiet_NaN();  // null in the file
    QTemporaryDir dir;
    const std::string path = confusionFilePath(dir.path().toStdString(), "val", 2);
    QVERIFY(QString::fromStdString(path).endsWith("analysis/val_confusion_epoch_00002.json"));
    std::string error;
    QVERIFY2(writeConfusionRecord(r, path, &error), error.c_str());
    const auto back = readConfusionRecord(path, &error);
    QVERIFY2(back, error.c_str());
    QCOMPARE(back->split, std::string("val"));
    QCOMPARE(back->step, std::int64_t(40));
    QCOMPARE(back->unit, std::string("clip"));
    QCOMPARE(back->names, r.names);
    QCOMPARE(*back->subset, *r.subset);
    QCOMPARE(back->parents, r.parents);
    QCOMPARE(back->mistakes, r.mistakes);
    QCOMPARE(back->matrix.cells().size(), r.matrix.cells().size());
    for (int t = 0; t < 3; ++t)
      for (int p = 0; p < 3; ++p) QCOMPARE(back->matrix.count(t, p), r.matrix.count(t, p));
    QCOMPARE(back->className(2), std::string("2"));  // no name: its number
    // The run's files: the test first, then validations from the newest epoch.
    QVERIFY(
        writeConfusionRecord(r, confusionFilePath(dir.path().toStdString(), "val", 10), &error));
    r.split = "test";
    QVERIFY(
        writeConfusionRecord(r, confusionFilePath(dir.path().toStdString(), "test", 0), &error));
    const auto files = listConfusionFiles(dir.path().toStdString());
    QCOMPARE(files.size(), std::size_t(3));
    QCOMPARE(files[0].split, std::string("test"));
    QCOMPARE(files[1].epoch, 10);
    QCOMPARE(files[2].epoch, 2);
    QVERIFY(listConfusionFiles(dir.path().toStdString() + "/none").empty());
  }

  void aDamagedFileIsAnErrorNamingIt() {
    const auto r = recordFromScores(kScores.data(), kLabels, kVideos, 3, 2.0);
    const std::string text = toJson(r);
    QTemporaryDir dir;
    struct Case {
      const char* name;
      std::string bytes;
      const char* says;
    };
    std::string wrongCount = text;
    wrongCount.replace(wrongCount.find("\"samples\": 6"), 12, "\"samples\": 7");
    std::string badClass = text;
    badClass.replace(badClass.find("[0,0,2]"), 7, "[0,9,2]");
    const Case cases[] = {
        {"truncated", text.substr(0, text.size() / 2), "not valid JSON"},
        {"empty", "", "not valid JSON"},
        {"other", "{\"format\": \"something\"}", "not an analysis file"},
        {"newer", "{\"format\": \"ampstudio-confusion\", \"format_version\": 9}", "update AMP"},
        {"count", wrongCount, "a damaged file"},
        {"class", badClass, "outside 0..2"},
    };
    for (const auto& c : cases) {
      const std::string path =
          amp::testsupport::writeFile(dir, std::string(c.name) + ".json", c.bytes);
      std::string error;
      QVERIFY2(!readConfusionRecord(path, &error), c.name);
      QVERIFY2(error.find(path) != std::string::npos, error.c_str());
      QVERIFY2(error.find(c.says) != std::string::npos, error.c_str());
    }
    std::string error;
    QVERIFY(!readConfusionRecord(dir.path().toStdString() + "/missing.json", &error));
    QVERIFY2(error.find("missing.json") != std::string::npos, error.c_str());
  }

  void theCsvHasANameHeaderAndCountsOrRates() {
    auto r = recordFromScores(kScores.data(), kLabels, kVideos, 3, 2.0);
    r.names = {"walk", "run, fast", "jump"};
    QCOMPARE(confusionCsv(r, {0, 1, 2}, false),
             std::string("true \\ predicted,walk,\"run, fast\",jump\n"
                         "walk,2,0,0\n\"run, fast\",0,1,1\njump,1,0,1\n"));
    QCOMPARE(confusionCsv(r, {1, 2}, true),
             std::string("true \\ predicted (share of the true class),\"run, fast\",jump\n"
                         "\"run, fast\",0.5000,0.5000\njump,0.0000,0.5000\n"));
  }

  void theFigureColoursEachCellByItsRate() {
    ConfusionMatrix m(2);
    QVERIFY(m.add(0, 0, 4));
    QVERIFY(m.add(1, 0, 1));
    QVERIFY(m.add(1, 1, 3));
    std::string error;
    const auto img = drawConfusionMatrix(m, {0, 1}, {"left", "right"}, 400, 300, "t", &error);
    QVERIFY2(img, error.c_str());
    QCOMPARE(img->width, 400);
    QCOMPARE(img->height, 300);
    QCOMPARE(img->rgb.size(), std::size_t(400 * 300 * 3));
    // Count the pixels of the full-rate colour (cell 0,0) and of the empty one (cell 0,1).
    const auto dark = bluesColour(1.0), light = bluesColour(0.0);
    int darkPixels = 0, lightPixels = 0;
    for (std::size_t i = 0; i < img->rgb.size(); i += 3) {
      const bool isDark =
          img->rgb[i] == dark[0] && img->rgb[i + 1] == dark[1] && img->rgb[i + 2] == dark[2];
      darkPixels += isDark ? 1 : 0;
      lightPixels +=
          img->rgb[i] == light[0] && img->rgb[i + 1] == light[1] && img->rgb[i + 2] == light[2] ? 1
                                                                                                : 0;
    }
    QVERIFY2(darkPixels > 1000, std::to_string(darkPixels).c_str());
    QVERIFY2(lightPixels > 1000, std::to_string(lightPixels).c_str());
    QCOMPARE(bluesColour(0.0), (std::array<std::uint8_t, 3>{247, 251, 255}));
    QCOMPARE(bluesColour(2.0), (std::array<std::uint8_t, 3>{8, 48, 107}));
    const auto hist =
        drawTopKHistogram("left", m.topPredictions(1, 2), {"left", "right"}, 300, 200, &error);
    QVERIFY2(hist, error.c_str());
    int orange = 0;
    for (std::size_t i = 0; i < hist->rgb.size(); i += 3)
      orange += hist->rgb[i] == 255 && hist->rgb[i + 1] == 165 && hist->rgb[i + 2] == 0 ? 1 : 0;
    QVERIFY2(orange > 500, std::to_string(orange).c_str());
    QCOMPARE(figurePixels({8, 6}), std::make_pair(800, 600));
  }
};

QTEST_GUILESS_MAIN(TestConfusionMatrix)
#include "tst_confusionmatrix.moc"
