// PySlowFast's class names, subset and parent files (get_class_names), as the confusion matrix
// and the histograms group classes; broken files are errors that name the key and the file.
#include <QtTest>

#include <map>
#include <string>
#include <vector>

#include "config/Config.h"
#include "configfile/ConfigLoader.h"
#include "metrics/ClassGroups.h"
#include "support/TestFiles.h"

using namespace amp;
using amp::testsupport::writeFile;

namespace {
const char* kNames = R"({"walk": 0, "run": 1, "swim": 2, "dive": 3})";

// PySlowFast's defaults with `overrides` (not validated: the files are what is tested).
config::Config withKeys(const std::vector<std::string>& overrides) {
  auto r = config::ConfigLoader().loadText("", "test.yaml", ".");
  config::Diagnostics problems;
  config::ConfigLoader().applyOverrides(r.config, overrides, problems);
  if (config::hasErrors(problems)) qFatal("%s", problems.front().message.c_str());
  return r.config;
}
}  // namespace

class TestClassGroups : public QObject {
  Q_OBJECT
 private slots:
  void aSubsetFileNamesClassesOnePerLine() {
    QTemporaryDir dir;
    const std::map<int, std::string> names = {{0, "walk"}, {1, "run"}, {2, "swim"}};
    std::vector<std::string> unknown;
    std::string error;
    const auto ids = metrics::readSubsetFile(writeFile(dir, "subset.txt", "swim\nwalk\r\n\nfly\n"),
                                             names, unknown, &error);
    QVERIFY2(ids, error.c_str());
    QCOMPARE(*ids, (std::vector<int>{2, 0}));  // the file's order; blank lines skipped
    QCOMPARE(unknown.size(), std::size_t(1));  // PySlowFast drops "fly" silently; we say it
    QVERIFY(QString::fromStdString(unknown[0]).endsWith("subset.txt: fly"));
  }

  void parentsGroupTheirChildrenInTheFilesOrder() {
    QTemporaryDir dir;
    const std::map<int, std::string> names = {{0, "walk"}, {1, "run"}, {2, "swim"}, {3, "dive"}};
    std::vector<std::pair<std::string, std::vector<int>>> parents;
    std::vector<std::string> unknown;
    std::string error;
    QVERIFY2(metrics::readParentsFile(
                 writeFile(dir, "cats.json",
                           R"({"water": ["dive", "swim", "sail"], "land": ["walk", "run"]})"),
                 names, parents, unknown, &error),
             error.c_str());
    QCOMPARE(parents.size(), std::size_t(2));
    QCOMPARE(parents[0].first, std::string("water"));  // not sorted: as the dict reads
    QCOMPARE(parents[0].second, (std::vector<int>{3, 2}));
    QCOMPARE(parents[1].second, (std::vector<int>{0, 1}));
    QCOMPARE(unknown.size(), std::size_t(1));
  }

  void theConfigsFilesMakeTheGroups() {
    QTemporaryDir dir;
    const auto cfg = withKeys(
        {"TENSORBOARD.CLASS_NAMES_PATH", writeFile(dir, "names.json", kNames),
         "TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH", writeFile(dir, "cm.txt", "run\nswim\n"),
         "TENSORBOARD.HISTOGRAM.SUBSET_PATH", writeFile(dir, "hist.txt", "dive\n"),
         "TENSORBOARD.CATEGORIES_PATH", writeFile(dir, "cats.json", R"({"land": ["walk"]})")});
    std::string error;
    const auto g = metrics::readClassGroups(cfg, &error);
    QVERIFY2(g, error.c_str());
    QCOMPARE(g->names.at(3), std::string("dive"));
    QCOMPARE(*g->subset, (std::vector<int>{1, 2}));
    QCOMPARE(*g->histogram_subset, (std::vector<int>{3}));
    QCOMPARE(g->parents.size(), std::size_t(1));
    QVERIFY(g->unknown.empty());
    // Without TENSORBOARD.CLASS_NAMES_PATH the demo's label file names the classes.
    const auto demo =
        withKeys({"DEMO.LABEL_FILE_PATH", writeFile(dir, "classes.txt", "left\nright\n")});
    const auto d = metrics::readClassGroups(demo, &error);
    QVERIFY2(d, error.c_str());
    QCOMPARE(d->names.at(1), std::string("right"));
    QVERIFY(!d->subset);
    QVERIFY(d->parents.empty());
  }

  void brokenFilesAreErrorsNamingTheKeyAndTheFile_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("bytes");
    QTest::addColumn<QString>("says");
    QTest::newRow("names not JSON") << "TENSORBOARD.CLASS_NAMES_PATH"
                                    << "names.json"
                                    << "{\"walk\": "
                                    << "not the JSON";
    QTest::newRow("names missing") << "TENSORBOARD.CLASS_NAMES_PATH"
                                   << ""
                                   << ""
                                   << "cannot read";
    QTest::newRow("categories truncated") << "TENSORBOARD.CATEGORIES_PATH"
                                          << "cats.json"
                                          << "{\"land\": [\"walk\""
                                          << "cats.json";
    QTest::newRow("categories not lists") << "TENSORBOARD.CATEGORIES_PATH"
                                          << "cats.json"
                                          << "{\"land\": \"walk\"}"
                                          << "not a list of class names";
    QTest::newRow("subset missing") << "TENSORBOARD.HISTOGRAM.SUBSET_PATH"
                                    << ""
                                    << ""
                                    << "cannot read the subset";
  }
  void brokenFilesAreErrorsNamingTheKeyAndTheFile() {
    QFETCH(QString, key);
    QFETCH(QString, file);
    QFETCH(QString, bytes);
    QFETCH(QString, says);
    QTemporaryDir dir;
    const std::string path = file.isEmpty()
                                 ? dir.path().toStdString() + "/missing.txt"
                                 : writeFile(dir, file.toStdString(), bytes.toStdString());
    std::vector<std::string> overrides = {key.toStdString(), path};
    if (key != "TENSORBOARD.CLASS_NAMES_PATH")
      overrides.insert(overrides.end(),
                       {"TENSORBOARD.CLASS_NAMES_PATH", writeFile(dir, "names.json", kNames)});
    std::string error;
    QVERIFY(!metrics::readClassGroups(withKeys(overrides), &error));
    const QString e = QString::fromStdString(error);
    QVERIFY2(e.startsWith(key + ": "), error.c_str());
    QVERIFY2(e.contains(QString::fromStdString(path)), error.c_str());
    QVERIFY2(e.contains(says), error.c_str());
  }

  void groupsWithoutNamesSayWhatToSet() {
    QTemporaryDir dir;
    std::string error;
    QVERIFY(!metrics::readClassGroups(
        withKeys({"TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH", writeFile(dir, "s.txt", "walk\n")}),
        &error));
    QVERIFY2(error.find("set TENSORBOARD.CLASS_NAMES_PATH") != std::string::npos, error.c_str());
  }
};

QTEST_GUILESS_MAIN(TestClassGroups)
#include "tst_classgroups.moc"
