// The pickle reader behind every checkpoint: plain data reads back; a container that contains
// itself (possible through the memo, never in a checkpoint) is refused instead of leaking its
// cycle (found by scripts/fuzz.sh pickle under LeakSanitizer).
#include <QtTest>

#include "checkpoint/Pickle.h"

using namespace amp::checkpoint;

namespace {

std::string fromHex(const char* hex) {
  std::string out;
  for (const char* p = hex; p[0] && p[1]; p += 2) out.push_back(static_cast<char>(std::stoi(std::string(p, 2), nullptr, 16)));
  return out;
}

}  // namespace

class TestPickle : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void plainDataReadsBack() {
    // pickle.dumps({'a': [1, 2.5, None, True], 'b': (b'xy', 'e')}, protocol=3)
    const std::string data = fromHex("80037d71002858010000006171015d7102284b014740040000000000004e886558010000006271034302787971045801000000657105867106752e");
    std::size_t pos = 0;
    PickleHost host;
    const PyRef v = unpickle(data, pos, host);
    QCOMPARE(pos, data.size());
    QVERIFY(v->kind == PyObj::Kind::Dict);
    const PyRef a = v->get("a");
    QVERIFY(a && a->kind == PyObj::Kind::List);
    QCOMPARE(a->items.size(), size_t(4));
    QCOMPARE(a->items[0]->i, std::int64_t{1});
    QCOMPARE(a->items[1]->f, 2.5);
    const PyRef b = v->get("b");
    QVERIFY(b && b->kind == PyObj::Kind::Tuple);
    QCOMPARE(b->items[0]->s, std::string("xy"));
    QCOMPARE(b->items[1]->s, std::string("e"));
  }

  void aContainerInsideItselfIsRefused_data() {
    QTest::addColumn<QString>("hex");
    QTest::newRow("l = []; l.append(l)") << "80025d71006800612e";
    QTest::newRow("d = {}; d['self'] = [d]") << "80027d7100580400000073656c6671015d7102680061732e";
  }
  void aContainerInsideItselfIsRefused() {
    QFETCH(QString, hex);
    const std::string data = fromHex(hex.toLatin1().constData());
    std::size_t pos = 0;
    PickleHost host;
    QString message;
    try {
      (void)unpickle(data, pos, host);
    } catch (const PickleError& e) {
      message = e.what();
    }
    QVERIFY2(message.contains("contains itself"), qPrintable(message));
  }
};

QTEST_GUILESS_MAIN(TestPickle)
#include "tst_pickle.moc"
