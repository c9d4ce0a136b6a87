#include <QtTest>

#include <QTemporaryDir>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "data/KineticsCsv.h"

using namespace amp::data;

class TestKineticsCsv : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  std::string write(const std::string& split, const std::string& text) {
    std::ofstream(dir_.path().toStdString() + "/" + split + ".csv") << text;
    return dir_.path().toStdString();
  }

 private slots:
  void readsPathsAndLabels() {
    // PySlowFast's three line forms: path label; path fn label (path first); path alone (label 0)
    const auto d = write("train", "a/x.mp4 3\n\nb.mp4 y 0\r\nc/z.avi 12\nd.mp4\n");
    SampleList list;
    std::string error;
    QVERIFY2(readKineticsList(d, "train", " ", "/videos", 0, list, &error), error.c_str());
    QCOMPARE(list.videos.size(), size_t(4));
    QCOMPARE(list.videos[0].path, std::string("/videos/a/x.mp4"));
    QCOMPARE(list.videos[1].path, std::string("/videos/b.mp4"));
    QCOMPARE(list.videos[1].label, 0);
    QCOMPARE(list.videos[1].line, 3);
    QCOMPARE(list.videos[2].label, 12);
    QCOMPARE(list.videos[3].path, std::string("/videos/d.mp4"));
    QCOMPARE(list.videos[3].label, 0);
    QCOMPARE(list.maxLabel, 12);
  }

  void otherSeparatorAndHeaderRows() {
    const auto d = write("val", "path,label\nclip1.mp4,1\nclip2.mp4,0\n");
    SampleList list;
    std::string error;
    QVERIFY2(readKineticsList(d, "val", ",", "", 1, list, &error), error.c_str());
    QCOMPARE(list.videos.size(), size_t(2));
    QCOMPARE(list.videos[0].path, std::string("clip1.mp4"));
  }

  void malformedLinesNameFileAndLine() {
    const auto d = write("test", "ok.mp4 1\nfour fields is too many\nbad.mp4 cat\nneg.mp4 -2\n");
    SampleList list;
    std::string error;
    QVERIFY(!readKineticsList(d, "test", " ", "", 0, list, &error));
    QVERIFY2(error.find("test.csv:2: expected 'path<space>label'") != std::string::npos,
             error.c_str());
    QVERIFY2(error.find("and 2 more malformed lines") != std::string::npos, error.c_str());
  }

  void missingListSaysWhy() {
    SampleList list;
    std::string error;
    QVERIFY(!readKineticsList(dir_.path().toStdString(), "nosplit", " ", "", 0, list, &error));
    QVERIFY2(error.find("has no nosplit.csv") != std::string::npos, error.c_str());
    QVERIFY(!readKineticsList("/no/such/dir", "train", " ", "", 0, list, &error));
    QVERIFY2(error.find("DATA.PATH_TO_DATA_DIR '/no/such/dir' does not exist") != std::string::npos,
             error.c_str());
    const auto d = write("empty", "\n\n");
    QVERIFY(!readKineticsList(d, "empty", " ", "", 0, list, &error));
    QVERIFY2(error.find("lists no videos") != std::string::npos, error.c_str());
  }
  // A line past 64 KiB is refused as `file:line: too long` without being held, and reading goes
  // on after it (the old reader held the whole line, and quoted it whole in the message).
  void aLineTooLongIsNamed() {
    const auto d = write("long", "ok.mp4 1\n" + std::string(200000, 'p') + " 2\nb.mp4 3\n" +
                                     std::string(100000, ' ') + "x\n");
    SampleList list;
    std::string error;
    QVERIFY(!readKineticsList(d, "long", " ", "", 0, list, &error));
    QVERIFY2(error.find("long.csv:2: too long (more than 65536 bytes") != std::string::npos,
             error.c_str());
    QVERIFY2(error.find("and 1 more malformed lines") != std::string::npos, error.c_str());
    QVERIFY2(error.size() < 400, error.c_str());
  }

  // A line of separators is refused with its start quoted, not split into 60,000 fields.
  void aLineOfSeparatorsIsQuotedShort() {
    const auto d = write("seps", "a.mp4 1\nx" + std::string(60000, ',') + "\n");
    SampleList list;
    std::string error;
    QVERIFY(!readKineticsList(d, "seps", ",", "", 0, list, &error));
    QVERIFY2(error.find("seps.csv:2: expected 'path,label'") != std::string::npos, error.c_str());
    QVERIFY2(error.size() < 400, std::to_string(error.size()).c_str());
  }

  // A list that is a FIFO or a device is refused by name: opening a FIFO waited for a writer,
  // and /dev/zero was read forever.
  void aListThatIsNoFileIsRefused() {
    const std::string d = dir_.path().toStdString();
    QCOMPARE(::mkfifo((d + "/fifo.csv").c_str(), 0600), 0);
    std::filesystem::create_symlink("/dev/zero", d + "/zero.csv");
    for (const char* split : {"fifo", "zero"}) {
      SampleList list;
      std::string error;
      QVERIFY(!readKineticsList(d, split, " ", "", 0, list, &error));
      QVERIFY2(error.find(std::string(split) + ".csv: not a regular file") != std::string::npos,
               error.c_str());
    }
  }
};

QTEST_APPLESS_MAIN(TestKineticsCsv)
#include "tst_kineticscsv.moc"
