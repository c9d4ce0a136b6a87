// Grouping a sweep's runs: the keys offered are the run fields and config keys that differ, the
// groups are the distinct value combinations in numeric order, a run without run.json or config
// is in a "(none)" group rather than lost.
#include <QtTest>

#include <string>
#include <vector>

#include "configfile/ConfigLoader.h"
#include "runlog/RunGroups.h"

using namespace amp;

namespace {
config::Config configOf(const std::string& yaml) {
  auto r = config::ConfigLoader().loadText(yaml, "test.yaml", ".");
  if (!r.ok()) qFatal("%s", config::formatDiagnostics(r.diagnostics).c_str());
  return r.config;
}
runlog::RunMetadata metaOf(const std::string& precision) {
  runlog::RunMetadata m;
  m.precision = precision;
  m.status = runlog::RunStatus::Finished;
  return m;
}
}  // namespace

class TestRunGroups : public QObject {
  Q_OBJECT
 private slots:
  void keysAndGroupsOfASweep() {
    // BASE_LR 0.1 / 0.05 x fp32 / bf16, two seeds of three of the settings; one run lacks a config.
    const std::vector<config::Config> cfgs = {
        configOf("SOLVER:\n  BASE_LR: 0.1\nRNG_SEED: 1\n"),
        configOf("SOLVER:\n  BASE_LR: 0.1\nRNG_SEED: 2\n"),
        configOf("SOLVER:\n  BASE_LR: 0.05\nRNG_SEED: 1\n"),
        configOf("SOLVER:\n  BASE_LR: 0.05\nRNG_SEED: 2\n"),
        configOf("SOLVER:\n  BASE_LR: 0.1\nRNG_SEED: 1\n"),
    };
    const std::vector<runlog::RunMetadata> metas = {metaOf("fp32"), metaOf("fp32"), metaOf("bf16"),
                                                    metaOf("bf16"), metaOf("bf16"), metaOf("fp32")};
    std::vector<runlog::GroupableRun> runs;
    for (std::size_t i = 0; i < metas.size(); ++i)
      runs.push_back({&metas[i], i < cfgs.size() ? &cfgs[i] : nullptr});
    const std::vector<std::string> keys = runlog::groupKeys(runs);
    QCOMPARE(keys, (std::vector<std::string>{"precision", "SOLVER.BASE_LR", "RNG_SEED"}));
    QVERIFY(runlog::isGroupKey(runs, "TRAIN.BATCH_SIZE"));  // not differing, still a key
    QVERIFY(!runlog::isGroupKey(runs, "NO.SUCH_KEY"));

    const auto byLr = runlog::groupRuns(runs, {"SOLVER.BASE_LR"});
    QCOMPARE(byLr.size(), std::size_t(3));  // 0.05 before 0.1 (as numbers), then the config-less
    QCOMPARE(byLr[0].label, std::string("BASE_LR=0.05"));
    QCOMPARE(byLr[0].members, (std::vector<std::size_t>{2, 3}));
    QCOMPARE(byLr[1].label, std::string("BASE_LR=0.1"));
    QCOMPARE(byLr[1].members, (std::vector<std::size_t>{0, 1, 4}));
    QCOMPARE(byLr[2].label, std::string("BASE_LR=(none)"));
    QCOMPARE(byLr[2].members, (std::vector<std::size_t>{5}));

    const auto two = runlog::groupRuns(runs, {"SOLVER.BASE_LR", "precision"});
    QCOMPARE(two.size(), std::size_t(4));
    QCOMPARE(two[1].label, std::string("BASE_LR=0.1, precision=bf16"));
    QCOMPARE(two[1].members, (std::vector<std::size_t>{4}));
    QCOMPARE(two[2].values, (std::vector<std::string>{"0.1", "fp32"}));
    QCOMPARE(two[2].members, (std::vector<std::size_t>{0, 1}));

    const auto all = runlog::groupRuns(runs, {});
    QCOMPARE(all.size(), std::size_t(1));
    QCOMPARE(all[0].members.size(), std::size_t(6));
    QVERIFY(runlog::groupKeys({runs[0]}).empty());
    const runlog::GroupableRun unreadable{};
    QCOMPARE(runlog::groupValue(unreadable, "precision"), std::string("(none)"));
  }
};

QTEST_APPLESS_MAIN(TestRunGroups)
#include "tst_rungroups.moc"
