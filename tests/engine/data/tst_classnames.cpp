// Class names for class indices (DEMO.LABEL_FILE_PATH): PySlowFast's JSON or one name per line,
// and label files from strangers refused by name rather than held or crashed on.
#include <QtTest>

#include <QTemporaryDir>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "data/ClassNames.h"

#include "support/TestFiles.h"

using namespace amp::data;

class TestClassNames : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  std::string write(const std::string& name, const std::string& text) {
    return amp::testsupport::writeFile(dir_, name, text);
  }
  // "" when `path` is refused with a message naming it and holding `part`; else what happened.
  static std::string refused(const std::string& path, const std::string& part) {
    std::map<int, std::string> names;
    std::string error;
    if (readClassNames(path, names, error)) return "accepted";
    return error.find(path) != std::string::npos && error.find(part) != std::string::npos ? ""
                                                                                          : error;
  }

 private slots:
  void readsJsonAndLines() {
    std::map<int, std::string> names;
    std::string error;
    QVERIFY2(
        readClassNames(write("k.json", R"({"abseiling": 0, "air drumming": 1})"), names, error),
        error.c_str());
    QCOMPARE(names.size(), std::size_t(2));
    QCOMPARE(names.at(1), std::string("air drumming"));
    names.clear();
    QVERIFY2(readClassNames(write("classes.txt", "cat\r\ndog\n\nbird"), names, error),
             error.c_str());
    QCOMPARE(names.size(), std::size_t(4));
    QCOMPARE(names.at(0), std::string("cat"));
    QCOMPARE(names.at(2), std::string());
    QCOMPARE(names.at(3), std::string("bird"));
    QCOMPARE(refused(write("bad.json", R"({"cat": "zero"})"),
                     "\"cat\" maps to \"zero\", not a class index"),
             std::string());
    QCOMPARE(refused(write("torn.json", R"({"cat": 0)"), "not the JSON of class names"),
             std::string());
  }

  // A value nested 100,000 deep was printed into the message by a recursive dump (a crash).
  void deepJsonIsRefused() {
    QCOMPARE(refused(write("deep.json", "{\"cat\": " + std::string(100000, '[') +
                                            std::string(100000, ']') + "}"),
                     "nested more than 64 levels deep"),
             std::string());
  }

  // An index no int holds, or past any label set, is named rather than truncated or allocated.
  void indexOutOfRangeIsRefused() {
    QCOMPARE(refused(write("huge.json", R"({"cat": 4294967296})"), "an integer from 0 to 99999"),
             std::string());
    QCOMPARE(refused(write("neg.json", R"({"cat": -1})"), "an integer from 0 to 99999"),
             std::string());
  }

  // Sizes: a file of 200,000 newlines was 200,000 map entries; a 100 KB line a class name.
  void boundsAreNamed() {
    QCOMPARE(refused(write("many.txt", std::string(200000, '\n')), "more than 100000 lines"),
             std::string());
    QCOMPARE(refused(write("long.txt", "cat\n" + std::string(100000, 'x') + "\n"), ":2: too long"),
             std::string());
    QCOMPARE(refused(write("big.txt", std::string(5 << 20, 'x')), "larger than"), std::string());
  }

  // A device or FIFO is refused, not read forever or waited on.
  void notAFileIsRefused() {
    const std::string zero = dir_.path().toStdString() + "/zero.txt";
    std::filesystem::create_symlink("/dev/zero", zero);
    QCOMPARE(refused(zero, "not a regular file"), std::string());
    const std::string fifo = dir_.path().toStdString() + "/fifo.txt";
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    QCOMPARE(refused(fifo, "not a regular file"), std::string());
  }
};

QTEST_APPLESS_MAIN(TestClassNames)
#include "tst_classnames.moc"
