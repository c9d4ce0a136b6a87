// Bounded readers of files from strangers: JSON with a depth limit, lines with a length limit,
// whole files with a size limit; FIFOs and devices refused.
#include <QtTest>

#include <QTemporaryDir>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/AtomicFile.h"
#include "util/BoundedInput.h"

#include "support/TestFiles.h"

using namespace amp::util;

class TestBoundedInput : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  std::string write(const std::string& name, const std::string& text) {
    return amp::testsupport::writeFile(dir_, name, text);
  }

 private slots:
  void jsonDepthIsLimited() {
    std::string why;
    QVERIFY(parseJson(std::string(64, '[') + std::string(64, ']'), &why));
    QVERIFY(!parseJson(std::string(65, '[') + std::string(65, ']'), &why));
    QCOMPARE(why, std::string("nested more than 64 levels deep"));
    QVERIFY(!parseJson(std::string(500000, '['), &why));  // refused before parsing
    // Brackets in strings, escaped quotes included, are text.
    const auto j = parseJson("{\"a\": \"[[[[\\\"[[[[\", \"b\": [1, {\"c\": \"}}}]]]\"}]}", &why, 3);
    QVERIFY2(j, why.c_str());
    QCOMPARE((*j)["a"].get<std::string>(), std::string("[[[[\"[[[["));
    QVERIFY(!parseJson("{\"a\": [[[1]]]}", &why, 3));
    QVERIFY(!parseJson("{\"a\":", &why));
    QVERIFY2(why.find("not valid JSON") == 0, why.c_str());
    QVERIFY(!parseJson("nope"));  // no message wanted
    QVERIFY(!jsonDeeperThan(nlohmann::json::parse("[[1],{\"a\":[2]}]"), 3));
    QVERIFY(jsonDeeperThan(nlohmann::json::parse("[[1],{\"a\":[[2]]}]"), 3));
    QVERIFY(!jsonDeeperThan(nlohmann::json(5), 0));
  }

  void excerptKeepsUtf8Whole() {
    QCOMPARE(excerpt("short"), std::string("short"));
    QCOMPARE(excerpt(std::string(100, 'a'), 10), std::string(10, 'a') + "...");
    QCOMPARE(excerpt("abcdefghi\xc3\xa9xyz", 10), std::string("abcdefghi..."));  // not half an é
  }

  void linesAndTheirLimit() {
    const std::string path = write("l.txt", "one\r\n" + std::string(300000, 'x') + "\n\nlast");
    LineReader in(1000);
    std::string err, line;
    QVERIFY2(in.open(path, &err), err.c_str());
    QCOMPARE(in.next(line), LineReader::Result::Line);
    QCOMPARE(line, std::string("one\r"));
    QCOMPARE(in.next(line), LineReader::Result::TooLong);
    QCOMPARE(in.lineNumber(), std::uint64_t(2));
    QVERIFY(line.empty());
    QCOMPARE(in.next(line), LineReader::Result::Line);
    QCOMPARE(line, std::string());
    QCOMPARE(in.next(line), LineReader::Result::Line);
    QCOMPARE(line, std::string("last"));
    QCOMPARE(in.lineNumber(), std::uint64_t(4));
    QCOMPARE(in.next(line), LineReader::Result::End);
    QVERIFY(in.error().empty());
    LineReader none(10);
    QVERIFY(!none.open(dir_.path().toStdString() + "/missing", &err));
    QVERIFY2(err.find("/missing: cannot read it") != std::string::npos, err.c_str());
  }

  // A line that is the hole of a sparse file is skipped without reading its zeros.
  void sparseHoleIsSkipped() {
    const std::string path = write("sparse.txt", "a\n");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    QVERIFY(fd >= 0);
    const bool wrote = ::pwrite(fd, "\nb\n", 3, off_t(4) << 30) == 3;
    ::close(fd);
    QVERIFY2(wrote, "cannot write a 4 GiB sparse file in the temporary folder");
    LineReader in(1000);
    std::string err, line;
    QVERIFY2(in.open(path, &err), err.c_str());
    QCOMPARE(in.next(line), LineReader::Result::Line);
    QCOMPARE(in.next(line), LineReader::Result::TooLong);
    QCOMPARE(in.next(line), LineReader::Result::Line);
    QCOMPARE(line, std::string("b"));
    QCOMPARE(in.next(line), LineReader::Result::End);
  }

  void fifoAndDeviceAreRefused() {
    const std::string fifo = dir_.path().toStdString() + "/fifo";
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    std::string err, text;
    LineReader in(10);
    QVERIFY(!in.open(fifo, &err));
    QVERIFY2(err.find(fifo + ": not a regular file") != std::string::npos, err.c_str());
    QVERIFY(!readFile(fifo, text, &err));
    QVERIFY2(err.find("not a regular file") != std::string::npos, err.c_str());
    QVERIFY(!readFile("/dev/zero", text, &err, kNoReadCap));
    QVERIFY2(err.find("'/dev/zero': not a regular file") != std::string::npos, err.c_str());
    QVERIFY(!readFile(dir_.path().toStdString(), text, &err));
  }

  // readFile: at most its cap (16 MiB unless the caller says), checkpoints pass kNoReadCap.
  void readFileHasACap() {
    const std::string path = write("f.bin", std::string(1000, 'z'));
    std::string text, err;
    QVERIFY2(readFile(path, text, &err), err.c_str());
    QCOMPARE(text.size(), std::size_t(1000));
    QVERIFY(readFile(path, text, &err, 1000));
    text = "kept";
    QVERIFY(!readFile(path, text, &err, 999));
    QVERIFY2(err.find("'" + path + "': larger than the 999 bytes") != std::string::npos,
             err.c_str());
    QCOMPARE(text, std::string("kept"));                   // untouched on failure
    std::filesystem::resize_file(path, kReadFileCap + 1);  // sparse: costs no disk
    QVERIFY(!readFile(path, text, &err));
    QVERIFY2(err.find("larger than the 16777216 bytes") != std::string::npos, err.c_str());
    QVERIFY(readFile(path, text, &err, kNoReadCap));
    QCOMPARE(text.size(), kReadFileCap + 1);
  }
};

QTEST_APPLESS_MAIN(TestBoundedInput)
#include "tst_boundedinput.moc"
