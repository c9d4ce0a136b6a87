// The append-only file under the metrics log and TensorBoard's event files: records land at the
// end, an existing file is kept (or refused with createNew), a torn last line is seen, and every
// failure is a message naming the file.
#include <QtTest>

#include <QTemporaryDir>

#include <fstream>
#include <sstream>

#include "util/AppendOnlyFile.h"

using amp::util::AppendOnlyFile;

namespace {
std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

class TestAppendOnlyFile : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }

 private slots:
  void appendsAndKeepsWhatWasThere() {
    const auto p = path("log.jsonl");
    std::string why;
    {
      AppendOnlyFile f;
      QVERIFY2(f.open(p, /*createNew=*/false, &why), why.c_str());
      QVERIFY(f.isOpen());
      QCOMPARE(f.path(), p);
      QVERIFY(f.append("a\n", &why));
      QVERIFY(f.append("b\n", &why));
    }  // closed (and synced) by the destructor
    AppendOnlyFile again;
    QVERIFY(again.open(p, false, &why));
    QVERIFY(again.append("c\n", &why));
    again.close();
    QVERIFY(!again.isOpen());
    QCOMPARE(contents(p), std::string("a\nb\nc\n"));
  }

  void createNewRefusesAnExistingFile() {
    const auto p = path("events");
    std::string why;
    AppendOnlyFile f;
    QVERIFY(f.open(p, /*createNew=*/true, &why));
    f.close();
    QVERIFY(!f.open(p, /*createNew=*/true, &why));
    QCOMPARE(why, std::string("File exists"));
    QVERIFY(!f.isOpen());
  }

  void seesATornLastLine() {
    const auto p = path("torn.jsonl");
    std::string why;
    AppendOnlyFile f;
    QVERIFY(f.open(p, false, &why));
    QVERIFY(!f.endsInsideALine());  // empty
    QVERIFY(f.append("{\"step\": 1}\n{\"st", &why));
    QVERIFY(f.endsInsideALine());
    QVERIFY(f.append("ep\": 2}\n", &why));
    QVERIFY(!f.endsInsideALine());
  }

  void failuresNameTheFile() {
    std::string why;
    AppendOnlyFile f;
    QVERIFY(!f.open(path("no-such-dir/log"), false, &why));
    QCOMPARE(why, std::string("No such file or directory"));
    QVERIFY(!f.append("x", &why));
    QVERIFY2(why.find("cannot append to '") == 0 && why.find("it is not open") != std::string::npos,
             why.c_str());
    // A full disk: /dev/full takes the open and refuses every write.
    QVERIFY(f.open("/dev/full", false, &why));
    QVERIFY(!f.append("x", &why));
    QCOMPARE(why, std::string("cannot append to '/dev/full': No space left on device"));
  }
};

QTEST_APPLESS_MAIN(TestAppendOnlyFile)
#include "tst_appendonlyfile.moc"
