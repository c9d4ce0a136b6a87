// Every fuzz target (tests/fuzz/fuzz_*.cpp) over its seed corpus and the inputs fuzzers crashed
// on (tests/fuzz/<target>/), plus the test data that is a valid input of its kind: none may
// crash (a crash ends this suite), hang or fail to return.
#include <QtTest>

#include <QDir>
#include <QDirIterator>

#include <cstdint>

extern "C" int ampstudio_fuzz_pyliteral(const std::uint8_t*, std::size_t);
extern "C" int ampstudio_fuzz_config(const std::uint8_t*, std::size_t);
extern "C" int ampstudio_fuzz_metrics(const std::uint8_t*, std::size_t);
extern "C" int ampstudio_fuzz_pickle(const std::uint8_t*, std::size_t);
extern "C" int ampstudio_fuzz_video(const std::uint8_t*, std::size_t);
extern "C" int ampstudio_fuzz_ava(const std::uint8_t*, std::size_t);

namespace {

using Target = int (*)(const std::uint8_t*, std::size_t);

struct Entry {
  const char* name;
  Target fn;
  QStringList extra;  ///< test data folders that are inputs of this kind too
};

std::vector<Entry> targets() {
  const QString data = QString(AMPSTUDIO_SOURCE_DIR) + "/tests/data";
  return {{"pyliteral", ampstudio_fuzz_pyliteral, {}},
          {"config", ampstudio_fuzz_config, {QString(AMPSTUDIO_SOURCE_DIR) + "/configs/demo"}},
          {"metrics", ampstudio_fuzz_metrics, {}},
          {"pickle", ampstudio_fuzz_pickle, {data + "/checkpoints"}},
          {"video", ampstudio_fuzz_video, {data + "/videos"}},
          {"ava", ampstudio_fuzz_ava, {}}};
}

QStringList inputs(const QString& dir) {
  QStringList files;
  QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) files << it.next();
  files.sort();
  return files;
}

}  // namespace

Q_DECLARE_METATYPE(Target)

class TestFuzzCorpus : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void everyTargetHasASeedCorpus() {
    for (const auto& t : targets())
      QVERIFY2(!inputs(QString(AMPSTUDIO_FUZZ_DIR) + "/" + t.name).isEmpty(), t.name);
  }

  void replay_data() {
    QTest::addColumn<Target>("target");
    QTest::addColumn<QString>("file");
    for (const auto& t : targets()) {
      QStringList files = inputs(QString(AMPSTUDIO_FUZZ_DIR) + "/" + t.name);
      for (const auto& extra : t.extra) files << inputs(extra);
      for (const auto& f : files)
        QTest::newRow(qPrintable(QString("%1: %2").arg(t.name, QFileInfo(f).fileName())))
            << t.fn << f;
    }
  }
  void replay() {
    QFETCH(Target, target);
    QFETCH(QString, file);
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QCOMPARE(target(reinterpret_cast<const std::uint8_t*>(bytes.constData()),
                    static_cast<std::size_t>(bytes.size())),
             0);
  }
};

QTEST_GUILESS_MAIN(TestFuzzCorpus)
#include "tst_fuzzcorpus.moc"
