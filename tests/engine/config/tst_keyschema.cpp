#include <QtTest>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "config/Config.h"
#include "config/KeySchema.h"

using namespace amp::config;
using json = nlohmann::json;

namespace {
// Python type name of the reference table -> what our schema must accept for it.
bool typeMatches(const std::string& pytype, const KeyDef& def) {
  const auto outer = def.type.outer();
  if (pytype == "bool") return outer == TypeSpec::Kind::Bool;
  if (pytype == "int") return outer == TypeSpec::Kind::Int;
  if (pytype == "float") return outer == TypeSpec::Kind::Float;
  if (pytype == "str") return outer == TypeSpec::Kind::Str;
  if (pytype == "list" || pytype == "tuple") return outer == TypeSpec::Kind::List;
  if (pytype == "NoneType") return def.type.nullable;
  return false;
}

json parseReferenceDefault(const std::string& text) {
  if (text == "Infinity") return std::numeric_limits<double>::infinity();
  if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
  return json::parse(text);
}
}  // namespace

class TestKeySchema : public QObject {
  Q_OBJECT
 private slots:
  void everyPySlowFastKeyWithItsDefault() {
    const std::string path =
        std::string(AMPSTUDIO_TEST_DATA_DIR) + "/reference/pyslowfast-config-keys.tsv";
    std::ifstream in(path);
    QVERIFY2(
        in, ("reference table not found (tests/data/ is part of the repository): " + path).c_str());
    auto schema = KeySchema::builtin();
    std::string line;
    int rows = 0;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#' || line.rfind("key\t", 0) == 0) continue;
      std::istringstream ss(line);
      std::string key, pytype, dflt;
      std::getline(ss, key, '\t');
      std::getline(ss, pytype, '\t');
      std::getline(ss, dflt);
      ++rows;
      const KeyDef* def = schema->find(key);
      QVERIFY2(def, key.c_str());
      QVERIFY2(typeMatches(pytype, *def),
               (key + " type " + pytype + " vs " + def->type.text()).c_str());
      json expected = parseReferenceDefault(dflt);
      if (pytype == "float" && expected.is_number()) expected = expected.get<double>();
      QVERIFY2(def->defaultValue == expected,
               (key + ": " + def->defaultValue.dump() + " vs " + dflt).c_str());
      QVERIFY2(!def->studioKey, key.c_str());
    }
    QCOMPARE(rows, 339);
  }

  void studioKeys() {
    auto schema = KeySchema::builtin();
    const std::pair<const char*, json> expected[] = {
        {"AMP.DTYPE", "auto"},        {"AMP.SCALER", "auto"},         {"AMP.INIT_SCALE", 65536.0},
        {"AMP.GROWTH_FACTOR", 2.0},   {"AMP.BACKOFF_FACTOR", 0.5},    {"AMP.GROWTH_INTERVAL", 2000},
        {"SOLVER.LR_SCALE", 1.0},     {"SOLVER.GRAD_ACCUM_STEPS", 1}, {"AMP.MAX_SKIPPED_STEPS", 50},
        {"AMP.MIN_LOSS_SCALE", 1e-4}, {"AMP.CHANNELS_LAST_3D", false}};
    for (const auto& [key, value] : expected) {
      const KeyDef* def = schema->find(key);
      QVERIFY2(def, key);
      QVERIFY(def->studioKey);
      QCOMPARE(def->defaultValue, value);
    }
    QCOMPARE(schema->find("AMP.DTYPE")->constraint.choices.size(), size_t(3));
  }

  void everyKeyDocumented() {
    for (const auto& k : KeySchema::builtin()->keys()) {
      QVERIFY2(k.doc.size() > 8, k.key.c_str());
      QVERIFY2(k.doc.find('\t') == std::string::npos, k.key.c_str());
      // Every default satisfies its own constraint.
      QVERIFY2(!k.constraint.check(k.defaultValue), k.key.c_str());
    }
  }

  // A key marked active must be read by the product: its name appears as a string literal in the
  // engine, CLI or studio sources (not only in schema.tsv). Catches "active but nobody acts on it".
  void everyActiveKeyIsReadSomewhere() {
    std::string sources;
    for (const char* dir : {"engine", "app", "widgets"}) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(
               std::string(AMPSTUDIO_SOURCE_DIR) + "/" + dir)) {
        const auto ext = e.path().extension().string();
        if (ext != ".cpp" && ext != ".h") continue;
        std::ifstream in(e.path());
        sources.append(std::istreambuf_iterator<char>(in), {});
      }
    }
    QVERIFY(sources.size() > 100000);
    std::vector<std::string> unread;
    for (const auto& k : KeySchema::builtin()->keys())
      if (k.status == KeyStatus::Active && sources.find("\"" + k.key + "\"") == std::string::npos)
        unread.push_back(k.key);
    std::string list;
    for (const auto& k : unread) list += k + " ";
    QVERIFY2(unread.empty(),
             ("active keys no source reads (mark them inactive, or act on them): " + list).c_str());
  }

  // docs/config.md's "Where each key is acted on" table: a row for every active key and for no
  // other key, and every file a row names exists and holds the key as a string literal.
  void docsSayWhereEachActiveKeyIsActedOn() {
    const std::string root = AMPSTUDIO_SOURCE_DIR;
    std::ifstream in(root + "/docs/config.md");
    QVERIFY2(in, (root + "/docs/config.md not found").c_str());
    auto schema = KeySchema::builtin();
    const std::regex row(R"(^\| `([^`]+)` \| ([^|]*) \|)"), file("`([^`]+)`");
    std::set<std::string> rows;
    std::string line, bad;
    bool inSection = false;
    while (std::getline(in, line)) {
      if (line.rfind("## ", 0) == 0) inSection = line == "## Where each key is acted on";
      std::smatch m;
      if (!inSection || !std::regex_search(line, m, row)) continue;
      const std::string key = m[1].str(), files = m[2].str();
      rows.insert(key);
      const KeyDef* def = schema->find(key);
      if (!def || def->status != KeyStatus::Active) bad += key + " (not an active key) ";
      int named = 0;
      for (std::sregex_iterator f(files.begin(), files.end(), file), end; f != end; ++f, ++named) {
        std::ifstream src(root + "/" + (*f)[1].str());
        std::string text;
        if (src) text.assign(std::istreambuf_iterator<char>(src), {});
        if (text.find("\"" + key + "\"") == std::string::npos)
          bad += key + " (not in " + (*f)[1].str() + ") ";
      }
      if (named == 0) bad += key + " (names no file) ";
    }
    for (const auto& k : schema->keys())
      if (k.status == KeyStatus::Active && !rows.count(k.key)) bad += k.key + " (no row) ";
    QVERIFY2(rows.size() > 100,
             "docs/config.md: no table rows under '## Where each key is acted on'");
    QVERIFY2(bad.empty(), ("docs/config.md, 'Where each key is acted on': " + bad).c_str());
  }

  void groupsAndPrefixes() {
    auto schema = KeySchema::builtin();
    QVERIFY(schema->isGroup("SOLVER"));
    QVERIFY(schema->isGroup("MVIT.REV"));
    QVERIFY(schema->isGroup("TENSORBOARD.MODEL_VIS.GRAD_CAM"));
    QVERIFY(!schema->isGroup("SOLVER.BASE_LR"));
    QCOMPARE(schema->withPrefix("AMP.").size(), size_t(9));
    const auto groups = schema->topLevelGroups();
    QVERIFY(std::find(groups.begin(), groups.end(), "AMP") != groups.end());
    QVERIFY(std::find(groups.begin(), groups.end(), "") !=
            groups.end());  // NUM_GPUS, OUTPUT_DIR ...
  }

  void suggestions() {
    auto schema = KeySchema::builtin();
    QCOMPARE(schema->suggest("TRAIN.BASE_LR").front(), std::string("SOLVER.BASE_LR"));
    QCOMPARE(schema->suggest("SOLVER.BASE_RL").front(), std::string("SOLVER.BASE_LR"));
    QCOMPARE(schema->suggest("DATA.NUM_FRAME").front(), std::string("DATA.NUM_FRAMES"));
    QVERIFY(schema->suggest("COMPLETELY.UNRELATED_THING_HERE").empty());
  }

  void typeSpecs() {
    for (const char* t :
         {"bool", "int", "float?", "str", "list", "list[int]", "list[list[float]]", "tuple[str]"}) {
      auto spec = TypeSpec::parse(t);
      QVERIFY2(spec, t);
      QCOMPARE(spec->text(), std::string(t));
    }
    QVERIFY(!TypeSpec::parse("dict"));
    QCOMPARE(TypeSpec::parse("list[list[int]]")->describe(),
             std::string("a list of lists of integers"));
  }

  void constraints() {
    auto range = *Constraint::parse("(0,1)");
    QVERIFY(range.check(json(0.5)) == std::nullopt);
    QVERIFY(range.check(json(0.0)));
    QVERIFY(range.check(json(1.0)));
    auto lower = *Constraint::parse(">=0");
    QVERIFY(lower.check(json(-0.1)));
    QVERIFY(!lower.check(json(0)));
    auto choices = *Constraint::parse("{1,3}");
    QVERIFY(!choices.check(json(3)));
    QVERIFY(choices.check(json(2)));
    QCOMPARE(choices.text(), std::string("one of: 1, 3"));
    QVERIFY(!Constraint::parse("between 1 and 2"));
  }

  // set() gives the problem back for the caller to place; setOrThrow() is for values the program
  // computed, where a refusal is a bug and must not pass silently.
  void setReportsAndSetOrThrowThrows() {
    Config c(KeySchema::builtin());
    QVERIFY(!c.set("TRAIN.BATCH_SIZE", json(8)));
    QCOMPARE(c.getInt("TRAIN.BATCH_SIZE"), std::int64_t{8});
    const auto problem = c.set("TRAIN.BATCH_SIZE", json("eight"));
    QVERIFY(problem);
    QCOMPARE(c.getInt("TRAIN.BATCH_SIZE"), std::int64_t{8});  // unchanged
    c.setOrThrow("DATA.NUM_FRAMES", json(4));
    QCOMPARE(c.getInt("DATA.NUM_FRAMES"), std::int64_t{4});
    try {
      c.setOrThrow("TRAIN.BATCH_SIZE", json("eight"));
      QFAIL("a refused value did not throw");
    } catch (const std::invalid_argument& e) {
      QCOMPARE(std::string(e.what()), "TRAIN.BATCH_SIZE: " + *problem);
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, c.setOrThrow("NO.SUCH_KEY", json(1)));
  }

  void malformedTableNamesTheLine() {
    try {
      KeySchema::fromTsv("A.B\tint\t1\t-\tactive\tdoc\nA.C\tnumber\t1\t-\tactive\tdoc\n");
      QFAIL("expected an error");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("schema.tsv:2") != std::string::npos, e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestKeySchema)
#include "tst_keyschema.moc"
