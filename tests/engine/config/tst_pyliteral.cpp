#include <QtTest>

#include "config/PyLiteral.h"

using amp::config::parsePythonLiteral;
using json = nlohmann::json;

class TestPyLiteral : public QObject {
  Q_OBJECT
 private slots:
  void numbers() {
    QCOMPARE(*parsePythonLiteral("42"), json(42));
    QCOMPARE(*parsePythonLiteral("-7"), json(-7));
    QCOMPARE(*parsePythonLiteral("1_000"), json(1000));
    QCOMPARE(*parsePythonLiteral("0x10"), json(16));
    const auto f = *parsePythonLiteral("1e-4");
    QVERIFY(f.is_number_float());
    QCOMPARE(f.get<double>(), 1e-4);
    QCOMPARE(parsePythonLiteral("1.")->get<double>(), 1.0);
    QVERIFY(parsePythonLiteral("1.")->is_number_float());
    QCOMPARE(parsePythonLiteral(".5")->get<double>(), 0.5);
    QCOMPARE(parsePythonLiteral("-2.5E+3")->get<double>(), -2500.0);
  }
  void constants() {
    QCOMPARE(*parsePythonLiteral("True"), json(true));
    QCOMPARE(*parsePythonLiteral("False"), json(false));
    QVERIFY(parsePythonLiteral("None")->is_null());
    QVERIFY(!parsePythonLiteral("true"));  // Python spelling only
    QVERIFY(!parsePythonLiteral("Truex"));
  }
  void strings() {
    QCOMPARE(*parsePythonLiteral("'abc'"), json("abc"));
    QCOMPARE(*parsePythonLiteral("\"a'b\""), json("a'b"));
    QCOMPARE(*parsePythonLiteral("'it\\'s'"), json("it's"));
    QVERIFY(!parsePythonLiteral("'unterminated"));
  }
  void sequences() {
    QCOMPARE(*parsePythonLiteral("(3, 7, 7)"), json::parse("[3, 7, 7]"));
    QCOMPARE(*parsePythonLiteral("[[1, 2.0], [3, 2.0]]"), json::parse("[[1, 2.0], [3, 2.0]]"));
    QCOMPARE(*parsePythonLiteral("[]"), json::array());
    QCOMPARE(*parsePythonLiteral("()"), json::array());
    QCOMPARE(*parsePythonLiteral("(5,)"), json::parse("[5]"));
    QCOMPARE(*parsePythonLiteral("(5)"), json(5));  // parentheses only group, as in Python
    QCOMPARE(*parsePythonLiteral("[1, 2,]"), json::parse("[1, 2]"));
    QCOMPARE(*parsePythonLiteral(" [ 'a' , ( 1 , ) ] "), json::parse(R"(["a", [1]])"));
  }
  void notLiterals() {
    for (const char* text :
         {"kinetics", "bottleneck_transform", "/data/k400", "rand-m9-mstd0.5-inc1", "010", "1.2.3",
          "12abc", "[1, 2", "(1 2)", "", ".", "1e", "- ", "{'a': 1}"})
      QVERIFY2(!parsePythonLiteral(text), text);
  }
  // Nesting as deep as CPython's tokenizer allows (200) is a literal; one more is not (a
  // SyntaxError there, so fvcore keeps the text), and 100,000 brackets do not overflow the stack.
  void nestingStopsWhereCPythonStops() {
    const auto nested = [](int n) { return std::string(n, '[') + "1" + std::string(n, ']'); };
    auto deep = parsePythonLiteral(nested(200));
    QVERIFY(deep);
    json* inner = &*deep;
    for (int i = 0; i < 199; ++i) inner = &(*inner)[0];
    QCOMPARE((*inner)[0], json(1));
    QVERIFY(!parsePythonLiteral(nested(201)));
    QVERIFY(!parsePythonLiteral(nested(100000)));
    QVERIFY(!parsePythonLiteral(std::string(100000, '(')));
  }
};

QTEST_APPLESS_MAIN(TestPyLiteral)
#include "tst_pyliteral.moc"
