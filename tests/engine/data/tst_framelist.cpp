#include <QtTest>

#include <QTemporaryDir>

#include <sys/stat.h>

#include <string>
#include <vector>

#include "data/FrameList.h"
#include "support/TestFiles.h"

using namespace amp::data;
using amp::testsupport::writeFile;

class TestFrameList : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  const std::string header_ = "original_vido_id video_id frame_id path labels\n";

  // The error of reading `text` as a frame list ("" when it reads).
  std::string errorOf(const std::string& name, const std::string& text) {
    FrameList list;
    std::string error;
    if (readFrameList(writeFile(dir_, name, text), "", list, &error)) return "";
    return error;
  }

 private slots:
  // Videos in the order of their first line, frames in file order even when one video's lines
  // are interleaved with another's (PySlowFast's defaultdict), labels split at commas.
  void groupsFramesByVideo() {
    const std::string path = writeFile(dir_, "train.csv",
                                       header_ +
                                           "vidB 1 0 vidB/000001.jpg \"1,5\"\n"
                                           "vidA 0 0 vidA/000001.jpg \"\"\n"
                                           "vidB 1 1 vidB/000002.jpg 3\n"
                                           "vidA 0 1 /abs/vidA/000002.jpg \"12\"\n");
    FrameList list;
    std::string error;
    QVERIFY2(readFrameList(path, "/data/frames", list, &error), error.c_str());
    QCOMPARE(list.path, path);
    QCOMPARE(list.videos.size(), size_t(2));
    const FrameVideo& b = list.videos[0];
    QCOMPARE(b.name, std::string("vidB"));
    QCOMPARE(b.line, 2);
    QCOMPARE(b.frames, (std::vector<std::string>{"/data/frames/vidB/000001.jpg",
                                                 "/data/frames/vidB/000002.jpg"}));
    QCOMPARE(b.frame_labels, (std::vector<std::vector<int>>{{1, 5}, {3}}));
    const FrameVideo& a = list.videos[1];
    QCOMPARE(a.name, std::string("vidA"));
    QCOMPARE(a.line, 3);
    // An absolute path keeps no prefix (os.path.join); "" is a frame without a label.
    QCOMPARE(a.frames,
             (std::vector<std::string>{"/data/frames/vidA/000001.jpg", "/abs/vidA/000002.jpg"}));
    QCOMPARE(a.frame_labels, (std::vector<std::vector<int>>{{}, {12}}));
    QCOMPARE(list.maxLabel, 12);
  }

  void joinsThePrefixAsOsPathJoin() {
    QCOMPARE(joinPathPrefix("", "a/b.jpg"), std::string("a/b.jpg"));
    QCOMPARE(joinPathPrefix("/d", "a/b.jpg"), std::string("/d/a/b.jpg"));
    QCOMPARE(joinPathPrefix("/d/", "a/b.jpg"), std::string("/d/a/b.jpg"));
    QCOMPARE(joinPathPrefix("/d", "/e/b.jpg"), std::string("/e/b.jpg"));
    QCOMPARE(joinPathPrefix("rel", "b.jpg"), std::string("rel/b.jpg"));
  }

  // Any whitespace separates fields (tabs, runs of spaces, CRLF line ends); blank lines are
  // skipped; a list with no label anywhere has maxLabel -1.
  void whitespaceAndBlankLines() {
    const std::string path = writeFile(
        dir_, "ws.csv", header_ + "\n  v\t0  0\tv/1.jpg \"\"\r\n \t \nv 0 1 v/2.jpg \"\"\n");
    FrameList list;
    std::string error;
    QVERIFY2(readFrameList(path, "", list, &error), error.c_str());
    QCOMPARE(list.videos.size(), size_t(1));
    QCOMPARE(list.videos[0].frames, (std::vector<std::string>{"v/1.jpg", "v/2.jpg"}));
    QCOMPARE(list.videos[0].line, 3);
    QCOMPARE(list.maxLabel, -1);
  }

  void theHeaderIsRequired() {
    std::string e = errorOf("noheader.csv", "vid 0 0 vid/1.jpg 1\n");
    QVERIFY2(e.find("noheader.csv:1: expected the header line 'original_vido_id video_id "
                    "frame_id path labels'") != std::string::npos,
             e.c_str());
    QVERIFY2(e.find("got 'vid 0 0 vid/1.jpg 1'") != std::string::npos, e.c_str());
    e = errorOf("bom.csv", "\xEF\xBB\xBF" + header_ + "v 0 0 v/1.jpg 1\n");
    QVERIFY2(e.find("byte-order mark") != std::string::npos, e.c_str());
    e = errorOf("empty.csv", "");
    QVERIFY2(
        e.find("empty.csv: empty; a frame list starts with the header line") != std::string::npos,
        e.c_str());
    e = errorOf("headeronly.csv", header_);
    QVERIFY2(e.find("headeronly.csv: lists no frames") != std::string::npos, e.c_str());
  }

  // Exactly five fields (PySlowFast asserts len(row) == 5): the first bad line is named with
  // its count, and the others are counted.
  void fiveFieldsPerLine() {
    const std::string e =
        errorOf("fields.csv", header_ + "v 0 0 v/1.jpg 1\nv 0 1 v/2.jpg\nv 0 2 v/3.jpg 1 extra\n");
    QVERIFY2(e.find("fields.csv:3: got 4 fields, expected 5") != std::string::npos, e.c_str());
    QVERIFY2(e.find("(and 1 more malformed lines)") != std::string::npos, e.c_str());
  }

  void labelsAreClassIndices() {
    std::string e = errorOf("l1.csv", header_ + "v 0 0 v/1.jpg \"1,x\"\n");
    QVERIFY2(e.find("l1.csv:2: label 'x' in '1,x' is not a class index") != std::string::npos,
             e.c_str());
    e = errorOf("l2.csv", header_ + "v 0 0 v/1.jpg 1\nv 0 1 v/2.jpg -3\n");
    QVERIFY2(e.find("l2.csv:3: label -3 is negative") != std::string::npos, e.c_str());
    e = errorOf("l3.csv", header_ + "v 0 0 v/1.jpg 1,,2\n");  // int('') fails in PySlowFast
    QVERIFY2(e.find("l3.csv:2: label '' in '1,,2'") != std::string::npos, e.c_str());
    e = errorOf("l4.csv", header_ + "v 0 0 v/1.jpg 99999999999\n");
    QVERIFY2(e.find("l4.csv:2: label '99999999999'") != std::string::npos, e.c_str());
    // A sign is accepted as int() accepts it.
    FrameList list;
    std::string error;
    QVERIFY2(readFrameList(writeFile(dir_, "l5.csv", header_ + "v 0 0 v/1.jpg \"+4,0\"\n"), "",
                           list, &error),
             error.c_str());
    QCOMPARE(list.videos[0].frame_labels[0], (std::vector<int>{4, 0}));
  }

  // Bounded like the other readers of strangers' lists: a line past 64 KiB is named without
  // being held, a FIFO is refused rather than waited on.
  void boundedInput() {
    std::string e = errorOf("long.csv", header_ + std::string(100000, 'x') + "\n");
    QVERIFY2(e.find("long.csv:2: too long (more than 65536 bytes") != std::string::npos, e.c_str());
    QVERIFY2(e.size() < 400, e.c_str());
    // A line of 30,000 fields is counted, not split into 30,000 strings, and quoted short.
    std::string many;
    for (int i = 0; i < 30000; ++i) many += "a ";
    e = errorOf("many.csv", header_ + many + "\n");
    QVERIFY2(e.find("many.csv:2: got 30000 fields, expected 5") != std::string::npos, e.c_str());
    QVERIFY2(e.size() < 400, e.c_str());
    const std::string fifo = dir_.path().toStdString() + "/fifo.csv";
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    FrameList list;
    QVERIFY(!readFrameList(fifo, "", list, &e));
    QVERIFY2(e.find("fifo.csv: not a regular file") != std::string::npos, e.c_str());
    QVERIFY(!readFrameList(dir_.path().toStdString() + "/missing.csv", "", list, &e));
    QVERIFY2(e.find("missing.csv: cannot read it") != std::string::npos, e.c_str());
  }
};

QTEST_APPLESS_MAIN(TestFrameList)
#include "tst_framelist.moc"
