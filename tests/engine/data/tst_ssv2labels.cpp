#include <QtTest>

#include <QTemporaryDir>

#include <filesystem>
#include <string>
#include <vector>

#include "data/Ssv2Labels.h"
#include "support/TestFiles.h"

using namespace amp::data;
using amp::testsupport::writeFile;

class TestSsv2Labels : public QObject {
  Q_OBJECT
 private:
  // The labels file of a two-class release: indices as strings (as SSv2 ships them) or numbers.
  const std::string labels_ =
      R"({"Putting something on something": "12", "Moving something up": 3, "Pushing something": "0"})";

  // A data folder holding `labels` and the split files given.
  std::string folder(const QTemporaryDir& dir, const std::string& labels, const std::string& train,
                     const std::string& validation = "[]") {
    writeFile(dir, kSsv2LabelsFile, labels);
    writeFile(dir, ssv2SplitFile(true), train);
    writeFile(dir, ssv2SplitFile(false), validation);
    return dir.path().toStdString();
  }

  std::string errorOf(const std::string& labels, const std::string& train) {
    QTemporaryDir dir;
    std::vector<Ssv2Video> videos;
    std::string error;
    if (readSsv2Labels(folder(dir, labels, train), true, videos, nullptr, &error)) return "";
    return error;
  }

 private slots:
  // Every '[' and ']' is dropped before the lookup: "Putting [something] on [something]" is the
  // labels file's "Putting something on something". Ids may be numbers; order is the file's.
  void joinsTemplatesToClasses() {
    QTemporaryDir dir;
    const std::string d =
        folder(dir, labels_,
               R"([{"id": "78687", "template": "Putting [something] on [something]"},
                   {"id": 42326, "template": "Moving [something] up", "placeholders": ["a cup"]}])",
               R"([{"id": "5", "template": "[Pushing] [something]"}])");
    std::vector<Ssv2Video> videos;
    int classes = -1;
    std::string error;
    QVERIFY2(readSsv2Labels(d, true, videos, &classes, &error), error.c_str());
    QCOMPARE(videos.size(), size_t(2));
    QCOMPARE(videos[0].id, std::string("78687"));
    QCOMPARE(videos[0].label, 12);
    QCOMPARE(videos[1].id, std::string("42326"));
    QCOMPARE(videos[1].label, 3);
    QCOMPARE(classes, 13);  // the largest index (12) + 1
    QVERIFY2(readSsv2Labels(d, false, videos, nullptr, &error), error.c_str());
    QCOMPARE(videos.size(), size_t(1));
    QCOMPARE(videos[0].id, std::string("5"));
    QCOMPARE(videos[0].label, 0);
  }

  // PySlowFast's KeyError: the message names the template (without brackets), the video and
  // the labels file.
  void aMissingTemplateNamesTheVideo() {
    const std::string e = errorOf(labels_, R"([{"id": "1", "template": "Moving [something] up"},
                     {"id": "77", "template": "Turning [something] upside down"}])");
    QVERIFY2(e.find("something-something-v2-train.json: video 1 (id 77): its template "
                    "\"Turning something upside down\" is not in ") != std::string::npos,
             e.c_str());
    QVERIFY2(
        e.find("something-something-v2-labels.json (PySlowFast's KeyError)") != std::string::npos,
        e.c_str());
  }

  void invalidJsonGivesItsPosition() {
    std::string e = errorOf(labels_, "[\n  {\"id\": \"1\",, }\n]");
    QVERIFY2(e.find("something-something-v2-train.json: not valid JSON") != std::string::npos,
             e.c_str());
    QVERIFY2(e.find("line 2, column") != std::string::npos, e.c_str());
    e = errorOf("{\"a\": ", "[]");
    QVERIFY2(e.find("something-something-v2-labels.json: not valid JSON") != std::string::npos,
             e.c_str());
  }

  void malformedEntriesAreNamed() {
    std::string e = errorOf(R"({"Moving something up": "three"})", "[]");
    QVERIFY2(e.find("labels.json: \"Moving something up\" maps to \"three\", not a class index") !=
                 std::string::npos,
             e.c_str());
    e = errorOf(R"({"Moving something up": -1})", "[]");
    QVERIFY2(e.find("maps to -1, not a class index") != std::string::npos, e.c_str());
    e = errorOf(R"(["Moving something up"])", "[]");
    QVERIFY2(e.find("labels.json: expected an object of templates") != std::string::npos,
             e.c_str());
    e = errorOf(labels_, R"({"id": "1"})");
    QVERIFY2(e.find("train.json: expected an array of videos") != std::string::npos, e.c_str());
    e = errorOf(labels_, R"([{"id": "1"}])");
    QVERIFY2(e.find("train.json: video 0 has no \"template\"") != std::string::npos, e.c_str());
    e = errorOf(labels_, R"([{"id": [1], "template": "Moving something up"}])");
    QVERIFY2(e.find("train.json: video 0: \"id\" is [1], not a string or an integer") !=
                 std::string::npos,
             e.c_str());
  }

  void missingAndOversizedFilesAreNamed() {
    QTemporaryDir dir;
    std::vector<Ssv2Video> videos;
    std::string e;
    QVERIFY(!readSsv2Labels(dir.path().toStdString(), true, videos, nullptr, &e));
    QVERIFY2(e.find("something-something-v2-labels.json': No such file") != std::string::npos,
             e.c_str());
    writeFile(dir, kSsv2LabelsFile, labels_);
    QVERIFY(!readSsv2Labels(dir.path().toStdString(), false, videos, nullptr, &e));
    QVERIFY2(e.find("something-something-v2-validation.json': No such file") != std::string::npos,
             e.c_str());
    // A labels file of 8 MiB (sparse: no disk) is refused by its size, not parsed.
    const std::string big = writeFile(dir, kSsv2LabelsFile, "{");
    std::filesystem::resize_file(big, std::uintmax_t(8) << 20);
    QVERIFY(!readSsv2Labels(dir.path().toStdString(), true, videos, nullptr, &e));
    QVERIFY2(e.find("something-something-v2-labels.json': larger than the 4194304 bytes") !=
                 std::string::npos,
             e.c_str());
  }
};

QTEST_APPLESS_MAIN(TestSsv2Labels)
#include "tst_ssv2labels.moc"
