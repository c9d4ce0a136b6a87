// A run's metrics as columns, its summary figures, CSV export and the config diff the
// comparison view shows.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "config/ConfigDiff.h"
#include "configfile/ConfigLoader.h"
#include "runlog/RunRecord.h"

using namespace amp::runlog;

namespace {
MetricEvent ev(const char* kind, std::int64_t step, std::map<std::string, double> values) {
  MetricEvent e;
  e.kind = kind;
  e.step = step;
  e.epoch = static_cast<double>(step) / 4.0;
  e.time_s = static_cast<double>(step) * 2.0;
  e.values = std::move(values);
  return e;
}
}  // namespace

class TestRunRecord : public QObject {
  Q_OBJECT
 private slots:
  void seriesPerKindAndMetric() {
    RunRecord r;
    for (int s = 1; s <= 4; ++s) r.add(ev(kind::kTrain, s, {{"loss", 2.0 - 0.1 * s}, {"lr", 0.1}}));
    r.add(ev(kind::kVal, 4, {{"top1_err", 40}, {"loss", 1.5}}));
    const Series* loss = r.series("train", "loss");
    QVERIFY(loss);
    QCOMPARE(loss->size(), std::size_t(4));
    QCOMPARE(loss->step.back(), 4.0);
    QCOMPARE(loss->epoch.back(), 1.0);
    QCOMPARE(loss->time.back(), 8.0);
    QCOMPARE(r.series("val", "loss")->value.front(), 1.5);
    QVERIFY(!r.series("train", "top1_err"));
    QCOMPARE(r.seriesNames(),
             (std::vector<std::string>{"train/loss", "train/lr", "val/loss", "val/top1_err"}));
  }

  void resumeDropsTheLostSteps() {
    RunRecord r;
    for (int s = 1; s <= 6; ++s) r.add(ev(kind::kTrain, s, {{"loss", 1.0 * s}}));
    MetricEvent ck = ev(kind::kEvent, 6, {});
    ck.name = "checkpoint";
    r.add(ck);
    const auto gen = r.generation();
    MetricEvent resumed = ev(kind::kEvent, 4, {});
    resumed.name = "resumed";
    r.add(resumed);
    QVERIFY(r.generation() != gen);
    QCOMPARE(r.series("train", "loss")->size(), std::size_t(4));
    QCOMPARE(r.notableEvents().size(), std::size_t(1));
    QCOMPARE(r.notableEvents().front().name, std::string("resumed"));
    r.add(ev(kind::kTrain, 5, {{"loss", 50}}));
    QCOMPARE(r.series("train", "loss")->value.back(), 50.0);
  }

  void summaryFigures() {
    RunRecord r;
    QVERIFY(!r.summary().bestValTop1);
    for (int s = 1; s <= 4; ++s)
      r.add(ev(kind::kTrain, s,
               {{"loss", 1},
                {"iter_time_s", 0.5},
                {"data_wait_s", 0.05},
                {"clips_per_s", 10.0 * s},
                {"skipped", s == 2 ? 1.0 : 0.0},
                {"mem_peak_rss_bytes", 100.0 * s}}));
    r.add(ev(kind::kVal, 2, {{"top1_err", 30}}));
    r.add(ev(kind::kVal, 4, {{"top1_err", 35}}));
    r.add(ev(kind::kEpoch, 4, {{"loss", 0.75}}));
    const RunSummary s = r.summary();
    QCOMPARE(*s.bestValTop1, 70.0);
    QCOMPARE(*s.finalValTop1, 65.0);
    QCOMPARE(*s.finalLoss, 0.75);
    QCOMPARE(*s.peakMemoryBytes, 400.0);
    QCOMPARE(*s.itersPerSecond, 2.0);
    QCOMPARE(*s.clipsPerSecond, 25.0);
    QCOMPARE(*s.dataWaitFraction, 0.1);
    QCOMPARE(s.steps, std::int64_t(4));
    QCOMPARE(s.skippedSteps, std::int64_t(1));
    QCOMPARE(s.wallTimeSeconds, 8.0);
    // CUDA's peak allocated wins over RSS when present.
    r.add(ev(kind::kTrain, 5, {{"mem_peak_bytes", 50}}));
    QCOMPARE(*r.summary().peakMemoryBytes, 50.0);
    QCOMPARE(*ratio(std::optional<double>(3.0), std::optional<double>(2.0)), 1.5);
    QVERIFY(!ratio(std::optional<double>(3.0), std::nullopt));
    QVERIFY(!ratio(std::optional<double>(3.0), std::optional<double>(0.0)));
  }

  // A multi-label run (Charades): val and test events carry `map` (a fraction) and no top-1;
  // its summary has mAP figures and no top-1 ones, and the record says it is multi-label.
  void multiLabelRunsAreJudgedByMeanAveragePrecision() {
    RunRecord r;
    for (int s = 1; s <= 4; ++s) r.add(ev(kind::kTrain, s, {{"loss", 0.2}, {"lr", 0.1}}));
    r.add(ev(kind::kEpoch, 2, {{"loss", 0.2}}));
    QVERIFY(!r.multiLabel());  // training alone does not tell
    QVERIFY(!r.summary().multiLabel);
    r.add(ev(kind::kVal, 2, {{"map", 0.35}, {"max_map", 0.35}}));
    QVERIFY(r.multiLabel());
    r.add(ev(kind::kVal, 3, {{"map", std::nan("")}, {"max_map", 0.35}}));  // a NaN is skipped
    r.add(ev(kind::kVal, 4, {{"map", 0.413}, {"max_map", 0.413}}));
    r.add(ev(kind::kVal, 5, {{"map", 0.39}, {"max_map", 0.413}}));
    RunSummary s = r.summary();
    QVERIFY(s.multiLabel);
    QCOMPARE(*s.bestValMap, 0.413);  // a fraction, not percent
    QCOMPARE(*s.finalValMap, 0.39);
    QVERIFY(!s.testMap);
    QVERIFY(!s.bestValTop1);
    QVERIFY(!s.finalValTop1);
    r.add(ev(kind::kTest, 5, {{"map", 0.42}, {"videos", 100}}));
    QCOMPARE(*r.summary().testMap, 0.42);
    // A resume before the best validation drops it from the best.
    MetricEvent resumed = ev(kind::kEvent, 3, {});
    resumed.name = "resumed";
    r.add(resumed);
    QCOMPARE(*r.summary().bestValMap, 0.35);
    // A test alone says multi-label too (`ampstudio-cli test` of a multi-label checkpoint).
    RunRecord tested;
    tested.add(ev(kind::kTest, 1, {{"map", 0.3}}));
    QVERIFY(tested.multiLabel());
    QVERIFY(!tested.summary().bestValMap);
    // A single-label run has no mAP figures.
    RunRecord single;
    single.add(ev(kind::kVal, 2, {{"top1_err", 30}, {"top5_err", 10}}));
    single.add(ev(kind::kTest, 2, {{"top1_err", 28}}));
    QVERIFY(!single.multiLabel());
    QVERIFY(!single.summary().bestValMap && !single.summary().testMap);
    QCOMPARE(*single.summary().bestValTop1, 70.0);
  }

  void csvHasOneColumnPerMetric() {
    RunRecord r;
    r.add(ev(kind::kTrain, 1, {{"loss", 2.5}, {"lr", 0.1}}));
    r.add(ev(kind::kVal, 1, {{"top1_err", std::nan("")}}));
    QCOMPARE(r.toCsv(), std::string("kind,step,epoch,time_s,loss,lr,top1_err\ntrain,1,0.25,2,2.5,0."
                                    "1,\nval,1,0.25,2,,,nan\n"));
  }

  void configDiffShowsOnlyTheKeysThatDiffer() {
    amp::config::ConfigLoader loader;
    auto a = loader.loadText("TRAIN:\n  MIXED_PRECISION: False\nSOLVER:\n  BASE_LR: 0.1\n",
                             "a.yaml", ".");
    auto b = loader.loadText(
        "TRAIN:\n  MIXED_PRECISION: True\nSOLVER:\n  BASE_LR: 0.1\n  LR_SCALE: 0.6\n", "b.yaml",
        ".");
    QVERIFY(a.ok() && b.ok());
    auto diff = amp::config::diffConfigs({&a.config, &b.config});
    QCOMPARE(diff.size(), std::size_t(2));
    QCOMPARE(diff[0].key, std::string("TRAIN.MIXED_PRECISION"));
    QCOMPARE(diff[0].values, (std::vector<std::string>{"False", "True"}));
    QCOMPARE(diff[1].key, std::string("SOLVER.LR_SCALE"));
    QCOMPARE(diff[1].values, (std::vector<std::string>{"1.0", "0.6"}));
    QVERIFY(amp::config::diffConfigs({&a.config}).empty());
  }
  // 100,000 resumes, each after a lost step, with a notable event before each: filtering every
  // column and event list at each resume was quadratic; popping the tail is linear.
  // The resuming process writes events (here 'tensorboard' at step 0) before 'resumed': the lost
  // event logged by the interrupted one still goes, though it is not at the back.
  void aLostEventBeforeAStartupEventIsDropped() {
    RunRecord r;
    const auto named = [](const char* name, std::int64_t step) {
      MetricEvent e = ev(kind::kEvent, step, {});
      e.name = name;
      return e;
    };
    r.add(named("checkpoint", 5));
    r.add(named("decode_failure", 8));  // lost work
    r.add(named("tensorboard", 0));     // the new process, before its resume
    r.add(named("resumed", 5));
    std::vector<std::string> names;
    for (const auto& e : r.notableEvents()) names.push_back(e.name);
    QCOMPARE(names, (std::vector<std::string>{"checkpoint", "tensorboard", "resumed"}));
  }

  void manyResumesStayLinear() {
    RunRecord r;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
      MetricEvent ck = ev(kind::kEvent, 2 * i, {});
      ck.name = "checkpoint";
      r.add(ck);
      r.add(ev(kind::kTrain, 2 * i, {{"loss", 1.0}}));
      r.add(ev(kind::kTrain, 2 * i + 1, {{"loss", 9.0}}));  // lost: the resume below is at 2i
      MetricEvent resumed = ev(kind::kEvent, 2 * i, {});
      resumed.name = "resumed";
      r.add(resumed);
    }
    QCOMPARE(r.series("train", "loss")->size(), std::size_t(n));
    for (double v : r.series("train", "loss")->value) QCOMPARE(v, 1.0);
    QCOMPARE(r.notableEvents().size(),
             RunRecord::kMaxNotableEvents);  // the first ones; the rest counted
    QCOMPARE(r.droppedValues(), std::size_t(2 * n) - RunRecord::kMaxNotableEvents);
  }

  // A log naming thousands of metrics keeps the first kMaxSeries and counts the rest, so resumes
  // and the CSV (one column per name on every row) stay in proportion to the file.
  void seriesBeyondTheCapAreCounted() {
    RunRecord r;
    std::map<std::string, double> many;
    for (int i = 0; i < 1000; ++i) many["m" + std::to_string(1000 + i)] = i;
    r.add(ev(kind::kTrain, 1, many));
    r.add(ev(kind::kTrain, 2, {{"loss", 1.0}}));
    QCOMPARE(r.seriesNames().size(), RunRecord::kMaxSeries);
    QCOMPARE(r.droppedValues(), std::size_t(1000 - RunRecord::kMaxSeries + 1));
    QVERIFY(!r.series("train", "loss"));
    const std::string csv = r.toCsv();
    const std::string header = csv.substr(0, csv.find('\n'));
    QCOMPARE(static_cast<std::size_t>(std::count(header.begin(), header.end(), ',')),
             3 + RunRecord::kMaxSeries);
    r.clear();
    QCOMPARE(r.droppedValues(), std::size_t(0));
  }

  // Kinds and names come from a file: one with a comma or a quote must not shift the columns.
  // per_class lines follow the log's rules: a resume drops those written after its step, a torn
  // last line and lists that do not fit together are skipped, and a run recorded before these
  // lines existed (or a single-label one) simply has none.
  void perClassLinesFollowTheLogRules() {
    QTemporaryDir tmp;
    const QString dir = tmp.path();
    {
      std::ofstream(dir.toStdString() + "/run.json")
          << R"({"format":"ampstudio-run","format_version":1,"name":"r","status":"finished"})";
      std::ofstream m(dir.toStdString() + "/metrics.jsonl");
      m << R"({"v":1,"kind":"val","step":10,"epoch":1,"values":{"map":0.3}})"
        << "\n"
        << R"({"v":1,"kind":"per_class","step":10,"epoch":1,"split":"val","metric":"ap","classes":[0,1],"class_values":[0.2,0.4],"positives":[3,4]})"
        << "\n"
        << R"({"v":1,"kind":"per_class","step":20,"epoch":2,"split":"val","metric":"ap","classes":[0,1],"class_values":[0.9,0.9]})"
        << "\n"
        << R"({"v":1,"kind":"event","step":10,"epoch":1,"name":"resumed"})"
        << "\n"
        // three values for two classes: damaged, skipped
        << R"({"v":1,"kind":"per_class","step":15,"epoch":1.5,"split":"val","classes":[0,1],"class_values":[0.1,0.1,0.1]})"
        << "\n"
        << R"({"v":1,"kind":"per_class","step":20,"epoch":2,"split":"val","metric":"ap","classes":[0,1],"class_values":[0.25,"nan"]})"
        << "\n"
        << R"({"v":1,"kind":"per_class","step":30,"epoch":3,"split":"val","classes":[0)";  // torn
    }
    RunRecord r;
    QVERIFY(r.loadRunDirectory(dir.toStdString(), nullptr));
    const auto& history = r.perClassHistory("val");
    QCOMPARE(history.size(), std::size_t{2});  // step 10, and step 20 written after the resume
    QCOMPARE(history[0].values.values[1], 0.4);
    QCOMPARE(history[0].values.positives[1], std::int64_t{4});
    QCOMPARE(history[1].step, std::int64_t{20});
    QCOMPARE(history[1].values.values[0], 0.25);  // not the lost 0.9
    QVERIFY(std::isnan(history[1].values.values[1]));
    QCOMPARE(r.latestPerClass("val"), &history.back());
    QVERIFY(!r.latestPerClass("test"));
    QCOMPARE(r.readProblems().size(), std::size_t{1});  // the torn line, named
    QCOMPARE(r.summary().finalValMap.value(), 0.3);     // the other lines read as ever

    // Live: a resume read event by event drops the lost lists too.
    RunRecord live;
    MetricEvent pc = ev(kind::kPerClass, 20, {});
    pc.perClass = PerClassValues{};
    pc.perClass->classes = {3};
    pc.perClass->values = {0.5};
    live.add(pc);
    MetricEvent resumed = ev(kind::kEvent, 10, {});
    resumed.name = "resumed";
    live.add(resumed);
    QVERIFY(!live.latestPerClass("val"));
    QCOMPARE(live.eventCount(), std::size_t{1});

    // An old run: train and val lines only.
    RunRecord old;
    old.add(ev(kind::kVal, 4, {{"top1_err", 40}}));
    QVERIFY(!old.latestPerClass("val"));
    QVERIFY(old.perClassHistory("val").empty());
  }

  void csvQuotesTextFromTheFile() {
    RunRecord r;
    r.add(ev("a,b", 1, {{"x\"y", 1.0}}));
    QCOMPARE(r.toCsv(), std::string("kind,step,epoch,time_s,\"x\"\"y\"\n\"a,b\",1,0.25,2,1\n"));
  }
};

QTEST_APPLESS_MAIN(TestRunRecord)
#include "tst_runrecord.moc"
