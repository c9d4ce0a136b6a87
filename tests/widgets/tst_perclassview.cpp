// The Compare view's per-class table on its own: AVA's named classes, the filter box and the
// bars that follow it, the split a test-only run gets, a reader's sort kept across a live reload,
// and what Copy puts on the clipboard (the rows as shown).
#include <QtTest>

#include <qcustomplot.h>
#include <QHeaderView>
#include <QTableView>
#include <cmath>

#include "PerClassChart.h"
#include "PerClassView.h"

using namespace amp;
using widgets::PerClassView;

namespace {
runlog::PerClassEntry entry(const std::string& split, std::vector<double> values,
                            std::int64_t step = 20) {
  runlog::PerClassEntry e;
  e.step = step;
  e.epoch = 2;
  e.values.split = split;
  e.values.classes = {1, 12, 80};  // AVA's label-map ids
  e.values.names = {"bend/bow (at the waist)", "stand", "watch (a person)"};
  e.values.values = std::move(values);
  e.values.positives = {4, 30, 9};
  return e;
}

QStringList column(QAbstractItemModel* m, int col) {
  QStringList out;
  for (int r = 0; r < m->rowCount(); ++r) out << m->index(r, col).data().toString();
  return out;
}
}  // namespace

class TestPerClassView : public QObject {
  Q_OBJECT
 private slots:
  void filterFindsClassesByNameOrNumber() {
    PerClassView view;
    const auto fp32 = entry("val", {0.2, 0.9, 0.5}), amp = entry("val", {0.25, 0.6, 0.5});
    view.setRuns({{"fp32", Qt::blue, &fp32, nullptr}, {"amp", Qt::red, &amp, nullptr}}, 0);
    QCOMPARE(column(view.model(), PerClassView::kNameColumn),
             (QStringList{"stand", "bend/bow (at the waist)", "watch (a person)"}));
    QCOMPARE(view.note(), QString());
    QCOMPARE(view.chart()->barCount(), 3);  // one run against the baseline, three classes
    auto* bars = qobject_cast<QCPBars*>(view.chart()->plot()->plottable(0));
    QVERIFY(bars);
    QVERIFY(std::abs(bars->data()->at(0)->value - -30.0) < 1e-9);  // "stand" first, -30 points
    view.setFilter("WATCH");
    QCOMPARE(view.chart()->barCount(), 1);
    QCOMPARE(column(view.model(), PerClassView::kClassColumn), QStringList{"80"});
    view.setFilter("12");
    QCOMPARE(column(view.model(), PerClassView::kClassColumn), QStringList{"12"});
    view.setFilter("");
    QCOMPARE(view.model()->rowCount(), 3);
  }

  void copiesTheRowsAsShown() {
    PerClassView view;
    const auto fp32 = entry("val", {0.2, 0.9, 0.5}), amp = entry("val", {0.25, 0.6, 0.5});
    view.setRuns({{"fp32", Qt::blue, &fp32, nullptr}, {"amp", Qt::red, &amp, nullptr}}, 0);
    view.setFilter("a");  // all three names hold an "a"; "stand" first by its -30 points
    QCOMPARE(view.csv(), QString("Class,Name,Positives,AP fp32,AP amp,Δ amp,Largest |Δ|\n"
                                 "12,stand,30,90.00,60.00,-30.00,30.00\n"
                                 "1,bend/bow (at the waist),4,20.00,25.00,+5.00,5.00\n"
                                 "80,watch (a person),9,50.00,50.00,0.00,0.00\n"));
    view.setFilter("stand");
    QCOMPARE(view.markdown(),
             QString("| Class | Name | Positives | AP fp32 | AP amp | Δ amp | Largest \\|Δ\\| |\n"
                     "|---|---|---|---|---|---|---|\n"
                     "| 12 | stand | 30 | 90.00 | 60.00 | -30.00 | 30.00 |\n"));
  }

  void aTestOnlyRunShowsItsTest() {
    PerClassView view;
    const auto test = entry("test", {0.5, 0.5, std::nan("")});
    view.setRuns({{"tested", Qt::blue, nullptr, &test}}, 0);
    QCOMPARE(view.split(), PerClassView::Split::Test);
    QCOMPARE(view.model()->rowCount(), 3);
    QCOMPARE(view.model()->index(2, PerClassView::kFirstRunColumn).data().toString(),
             QString("–"));  // class 80: no ground truth, no AP
    view.setSplit(PerClassView::Split::Val);
    QCOMPARE(view.model()->rowCount(), 0);
    QVERIFY2(view.note().contains("Run tested has no per-class figures of its validation"),
             qPrintable(view.note()));
  }

  void singleLabelRunsCompareTopOneAccuracy() {
    PerClassView view;
    auto fp32 = entry("test", {1.0, 0.75, 0.5}), amp = entry("test", {1.0, 0.5, 0.5});
    fp32.values.metric = amp.values.metric = "top1_acc";
    view.setRuns({{"fp32", Qt::blue, nullptr, &fp32}, {"amp", Qt::red, nullptr, &amp}}, 0);
    QCOMPARE(view.metricLabel(), QString("Top-1"));
    QCOMPARE(view.model()->headerData(PerClassView::kFirstRunColumn, Qt::Horizontal).toString(),
             QString("Top-1 fp32"));
    QCOMPARE(view.chart()->plot()->yAxis->label(), QString("Δ Top-1 vs baseline (points)"));
    QCOMPARE(view.model()->index(0, view.diffColumn(1)).data().toString(), QString("-25.00"));
    QVERIFY2(view.note().isEmpty(), qPrintable(view.note()));
    // An AP run beside them is named: its differences would compare other figures.
    const auto charades = entry("test", {0.3, 0.3, 0.3});
    view.setRuns({{"fp32", Qt::blue, nullptr, &fp32}, {"charades", Qt::red, nullptr, &charades}},
                 0);
    QVERIFY2(view.note().contains("charades measured classes otherwise"), qPrintable(view.note()));
    // An AP baseline labels the columns AP.
    view.setRuns({{"charades", Qt::red, nullptr, &charades}}, 0);
    QCOMPARE(view.metricLabel(), QString("AP"));
    QCOMPARE(view.chart()->plot()->yAxis->label(), QString("Δ AP vs baseline (points)"));
  }

  void aReloadKeepsTheReadersSort() {
    PerClassView view;
    const auto fp32 = entry("val", {0.2, 0.9, 0.5}), amp = entry("val", {0.25, 0.6, 0.5});
    view.setRuns({{"fp32", Qt::blue, &fp32, nullptr}, {"amp", Qt::red, &amp, nullptr}}, 0);
    view.table()->sortByColumn(PerClassView::kClassColumn, Qt::AscendingOrder);
    QCOMPARE(column(view.model(), PerClassView::kClassColumn), (QStringList{"1", "12", "80"}));
    const auto later = entry("val", {0.2, 0.1, 0.5}, 30);
    view.setRuns({{"fp32", Qt::blue, &fp32, nullptr}, {"amp", Qt::red, &later, nullptr}}, 0);
    QCOMPARE(column(view.model(), PerClassView::kClassColumn), (QStringList{"1", "12", "80"}));
    QCOMPARE(view.model()->index(1, view.diffColumn(1)).data().toString(), QString("-80.00"));
    // A baseline without figures: no differences, and the line says why.
    view.setRuns({{"old", Qt::blue, nullptr, nullptr}, {"amp", Qt::red, &amp, nullptr}}, 0);
    QVERIFY2(view.note().contains("choose another baseline"), qPrintable(view.note()));
    QCOMPARE(view.model()->index(0, view.diffColumn(1)).data().toString(), QString("–"));
  }
};

QTEST_MAIN(TestPerClassView)
#include "tst_perclassview.moc"
