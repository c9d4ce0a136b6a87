// The pickle reader behind every checkpoint: plain data reads back; a container that contains
// itself (possible through the memo, never in a checkpoint) is refused instead of leaking its
// cycle (found by scripts/fuzz.sh pickle under LeakSanitizer).
#include <QtTest>

#include "checkpoint/Pickle.h"

using namespace amp::checkpoint;
using namespace std::string_literals;

namespace {

std::string fromHex(const char* hex) {
  std::string out;
  for (const char* p = hex; p[0] && p[1]; p += 2)
    out.push_back(static_cast<char>(std::stoi(std::string(p, 2), nullptr, 16)));
  return out;
}

QString refusalOf(const std::string& data, PickleHost& host) {
  std::size_t pos = 0;
  try {
    (void)unpickle(data, pos, host);
  } catch (const PickleError& e) {
    return e.what();
  }
  return {};
}

// A host that copies the list it is called with, as an OrderedDict(list of pairs) does.
class CopyingHost : public PickleHost {
 public:
  PyRef global(const std::string& module, const std::string& name) override {
    return PyObj::global(module, name);
  }
  PyRef call(const PyRef&, const PyRef& args) override {
    chargeUnpickle(args->items[0]->items.size());
    auto l = PyObj::list();
    l->items = args->items[0]->items;
    return l;
  }
};

}  // namespace

class TestPickle : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void plainDataReadsBack() {
    // pickle.dumps({'a': [1, 2.5, None, True], 'b': (b'xy', 'e')}, protocol=3)
    const std::string data = fromHex(
        "80037d71002858010000006171015d7102284b014740040000000000004e886558010000006271034302787971"
        "045801000000657105867106752e");
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

  // Opcodes of one byte that each make an object (TUPLE1 around the last one): 1 MB of them made
  // a million objects, ~200 MB. Refused once the objects pass half the bytes read (+ 65536).
  void objectFloodsAreRefused() {
    PickleHost host;
    const QString m = refusalOf("\x80\x02N" + std::string(300000, '\x85') + ".", host);
    QVERIFY2(m.contains("makes more than") && m.contains("objects") && m.contains("refused"),
             qPrintable(m));
    QVERIFY2(m.startsWith("byte 1"), qPrintable(m));  // where: byte 13xxxx, opcode 0x85
  }

  // MEMOIZE (one byte) over and over: a memo entry per byte.
  void memoFloodsAreRefused() {
    PickleHost host;
    const QString m = refusalOf("\x80\x04N" + std::string(300000, '\x94') + ".", host);
    QVERIFY2(m.contains("memo entries") && m.contains("refused"), qPrintable(m));
  }

  // What a host copies counts too: one memoized list of 20,000 items copied 10,000 times.
  void hostCopiesAreCounted() {
    std::string data = "\x80\x02](" + std::string(20000, 'N') +
                       "eq\x00"
                       "0cm\nf\nq\x01"
                       "0]("s;
    for (int k = 0; k < 10000; ++k) data += "h\x01h\x00\x85R"s;
    data += "e.";
    CopyingHost host;
    const QString m = refusalOf(data, host);
    QVERIFY2(m.contains("container slots") && m.contains("refused"), qPrintable(m));
  }

  // The shapes real picklers write stay inside the budget: a million Nones, booleans and small
  // ints (shared, not new objects), and protocol 4's empty lists (EMPTY_LIST MEMOIZE, two bytes).
  void whatPicklersWriteIsNotRefused() {
    std::string values = "\x80\x02](";
    for (int k = 0; k < 250000; ++k) values += "N\x88K\x07";
    values += "e.";
    std::size_t pos = 0;
    PickleHost host;
    const PyRef v = unpickle(values, pos, host);
    QCOMPARE(v->items.size(), std::size_t(750000));
    QVERIFY(v->items[0] == v->items[3] && v->items[2] == v->items[5]);
    QCOMPARE(v->items[2]->i, std::int64_t{7});

    std::string lists = "\x80\x04]\x94(";
    for (int k = 0; k < 300000; ++k) lists += "]\x94";
    lists += "e.";
    pos = 0;
    QCOMPARE(unpickle(lists, pos, host)->items.size(), std::size_t(300000));
  }

  // Lengths are checked against the bytes left before anything is allocated: 20-byte pickles
  // declaring 2^62-byte text, 2^31-byte integers and 4 GB bytes.
  void declaredLengthsAreCheckedBeforeAllocating_data() {
    QTest::addColumn<QByteArray>("pickle");
    QTest::newRow("BINUNICODE8") << QByteArray("\x80\x04\x8d\x00\x00\x00\x00\x00\x00\x00\x40x.",
                                               13);
    QTest::newRow("BINBYTES8") << QByteArray("\x80\x04\x8e\x00\x00\x00\x00\x00\x00\x00\x40x.", 13);
    QTest::newRow("LONG4") << QByteArray("\x80\x02\x8b\xff\xff\xff\x7fx.", 9);
    QTest::newRow("BINBYTES") << QByteArray(
        "\x80\x03"
        "B\xff\xff\xff\xffx.",
        9);
  }
  void declaredLengthsAreCheckedBeforeAllocating() {
    QFETCH(QByteArray, pickle);
    PickleHost host;
    const QString m =
        refusalOf(std::string(pickle.constData(), static_cast<std::size_t>(pickle.size())), host);
    QVERIFY2(m.contains("runs past the end"), qPrintable(m));
  }
};

QTEST_GUILESS_MAIN(TestPickle)
#include "tst_pickle.moc"
