// The run list's filter syntax (runlog/RunFilter): words, run fields, tags, figures and config
// keys with = != < > <= >=, a leading '-', and terms it cannot read.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "runlog/RunFilter.h"

using namespace amp::runlog;

namespace {

RunFilterRow sweepRun(const std::string& name, const std::string& precision, const std::string& lr,
                      double best) {
  RunFilterRow r;
  r.name = name;
  r.status = "finished";
  r.precision = precision;
  r.model = "SlowFast R50";
  r.dir = "/runs/" + name;
  r.tags = {"sweep-3"};
  r.numbers = {{"best", best}, {"hours", 1.5}};
  r.config = {
      {"SOLVER.BASE_LR", lr}, {"TRAIN.BATCH_SIZE", "16"}, {"TRAIN.MIXED_PRECISION", "True"}};
  return r;
}

}  // namespace

class TestRunFilter : public QObject {
  Q_OBJECT
 private slots:
  void emptyMatchesEverything() {
    RunFilter f("   ");
    QVERIFY(f.empty());
    QVERIFY(f.matches(sweepRun("a", "bf16", "0.1", 50)));
    QVERIFY(f.problems().empty());
  }

  void wordsLookAcrossTheTextFields() {
    auto r = sweepRun("x3d-lr0.1", "bf16", "0.1", 50);
    r.note = "Diverged after the warm-up";
    QVERIFY(RunFilter("X3D").matches(r));            // the name, any case
    QVERIFY(RunFilter("slowfast").matches(r));       // the model
    QVERIFY(RunFilter("diverged").matches(r));       // the note
    QVERIFY(RunFilter("sweep").matches(r));          // a tag
    QVERIFY(RunFilter("bf16 finished").matches(r));  // every term must hold
    QVERIFY(!RunFilter("bf16 failed").matches(r));
    QVERIFY(!RunFilter("-bf16").matches(r));
  }

  void fieldsAndTags() {
    auto r = sweepRun("a", "fp16", "0.1", 50);
    QVERIFY(RunFilter("status:fin").matches(r));   // ':' holds the text
    QVERIFY(!RunFilter("status=fin").matches(r));  // '=' is the whole value
    QVERIFY(RunFilter("status=FINISHED").matches(r));
    QVERIFY(RunFilter("precision!=bf16").matches(r));
    QVERIFY(RunFilter("tag:sweep-3").matches(r));
    QVERIFY(!RunFilter("tag:sweep").matches(r));  // a tag is matched whole
    QVERIFY(RunFilter("-tag:broken").matches(r));
    QVERIFY(RunFilter("note:\"\"").problems().size() == 1);  // no value: said, matches nothing
  }

  void keyValueOnTheConfig() {
    const auto a = sweepRun("a", "bf16", "0.1", 50), b = sweepRun("b", "bf16", "0.05", 60);
    QVERIFY(RunFilter("SOLVER.BASE_LR=0.1").matches(a));
    QVERIFY(RunFilter("solver.base_lr=1e-1").matches(a));  // keys any case, numbers by value
    QVERIFY(RunFilter("SOLVER.BASE_LR=0.10").matches(a));
    QVERIFY(!RunFilter("SOLVER.BASE_LR=0.1").matches(b));
    QVERIFY(RunFilter("SOLVER.BASE_LR<0.08").matches(b));
    QVERIFY(!RunFilter("SOLVER.BASE_LR<0.08").matches(a));
    QVERIFY(RunFilter("TRAIN.BATCH_SIZE>=16 TRAIN.BATCH_SIZE<=16").matches(a));
    QVERIFY(RunFilter("TRAIN.MIXED_PRECISION=true").matches(a));  // True = true
    QVERIFY(RunFilter("SOLVER.BASE_LR!=0.1").matches(b));
    QVERIFY(RunFilter("SOLVER.BASE_LR=0.1").needsConfig());
    QVERIFY(!RunFilter("bf16 best>10").needsConfig());
    // A key the run's config.yaml does not set reads as its schema default (SOLVER.MOMENTUM 0.9).
    QVERIFY(RunFilter("SOLVER.MOMENTUM=0.9").matches(a));
    QVERIFY(!RunFilter("SOLVER.MOMENTUM=0.8").matches(a));
    RunFilterRow noConfig = a;  // an imported or unreadable run: no keys, no defaults
    noConfig.config.clear();
    noConfig.hasConfig = false;
    QVERIFY(!RunFilter("SOLVER.MOMENTUM=0.9").matches(noConfig));
    QVERIFY(RunFilter("-SOLVER.MOMENTUM=0.9").matches(noConfig));
    // Figures of the run.
    QVERIFY(RunFilter("best>55").matches(b));
    QVERIFY(!RunFilter("best>55").matches(a));
    QVERIFY(RunFilter("hours<2").matches(a));
    RunFilterRow noFigures = a;
    noFigures.numbers.clear();
    QVERIFY(!RunFilter("best>0").matches(noFigures));  // no figure: no comparison holds
  }

  void termsItCannotReadAreSaidAndMatchNothing() {
    const auto a = sweepRun("a", "bf16", "0.1", 50);
    RunFilter notANumber("SOLVER.BASE_LR>abc");
    QCOMPARE(notANumber.problems().size(), std::size_t(1));
    QVERIFY(QString::fromStdString(notANumber.problems()[0]).contains("abc"));
    QVERIFY(!notANumber.matches(a));
    RunFilter unknownKey("SOLVER.BASE_RL=0.1");
    QCOMPARE(unknownKey.problems().size(), std::size_t(1));
    QVERIFY(QString::fromStdString(unknownKey.problems()[0]).contains("SOLVER.BASE_RL"));
    QVERIFY(!unknownKey.matches(a));
    QVERIFY(!RunFilter("status!failed").problems().empty());
    QVERIFY(!RunFilter("note:\"open").problems().empty());
  }

  void configValuesFromYaml() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("config.yaml").toStdString();
    std::ofstream(path) << "SOLVER:\n  BASE_LR: 0.1\n  STEPS: [0, 10, 20]\nTRAIN:\n  "
                           "BATCH_SIZE: 8\nMODEL:\n  ARCH: slowfast\n";
    std::string error;
    const auto values = RunFilter::readConfigValues(path, &error);
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(values.at("SOLVER.BASE_LR"), std::string("0.1"));
    QCOMPARE(values.at("SOLVER.STEPS"), std::string("[0, 10, 20]"));
    QCOMPARE(values.at("MODEL.ARCH"), std::string("slowfast"));
    RunFilterRow r;
    r.config = values;
    r.hasConfig = true;
    QVERIFY(RunFilter("SOLVER.STEPS=[0,10,20] model.arch=SlowFast").matches(r));
    // Without the defaults: SOLVER.MOMENTUM 0.9 is left out and still matches as the default.
    std::ofstream(path) << "SOLVER:\n  BASE_LR: 0.2  # comment\n  MOMENTUM: 0.9\nOUTPUT_DIR: "
                           "\"runs/a b\"\nTRAIN:\n  CHECKPOINT_FILE_PATH: ''\n";
    r.config = RunFilter::readConfigValues(path, &error, false);
    QCOMPARE(r.config.count("SOLVER.MOMENTUM"), std::size_t(0));
    QCOMPARE(r.config.at("SOLVER.BASE_LR"), std::string("0.2"));  // the comment is not the value
    QCOMPARE(r.config.count("TRAIN.CHECKPOINT_FILE_PATH"), std::size_t(0));  // '' is the default
    QCOMPARE(r.config.at("OUTPUT_DIR"), std::string("runs/a b"));
    QVERIFY(RunFilter("SOLVER.MOMENTUM=0.9 \"OUTPUT_DIR=runs/a b\"").matches(r));
    // What the quick scan does not read (a block list, an anchor) goes to yaml-cpp, same keys.
    std::ofstream(path) << "SOLVER:\n  STEPS:\n    - 0\n    - 10\nMODEL: &m\n  ARCH: x3d\n";
    const auto block = RunFilter::readConfigValues(path, &error);
    QCOMPARE(block.at("SOLVER.STEPS"), std::string("[0, 10]"));
    QCOMPARE(block.at("MODEL.ARCH"), std::string("x3d"));
    std::ofstream(path) << "SOLVER: [unclosed\n";
    QVERIFY(RunFilter::readConfigValues(path, &error).empty());
    QVERIFY(QString::fromStdString(error).contains("config.yaml"));
  }
};

QTEST_GUILESS_MAIN(TestRunFilter)
#include "tst_runfilter.moc"
