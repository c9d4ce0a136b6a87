#pragma once
// The Compare tab's tables: the summary researchers quote (one row per run, or per group of runs
// with each figure's mean ± standard deviation), every figure also as a ratio to the baseline's,
// and the config keys whose values differ. Split from ComparisonPanel, which lays out and wires.
//
//   ComparisonSummary tables(summaryTable, diffTable, tabs);
//   tables.fillRuns(runs, /*baseline=*/0);           // or fillGroups(runs, groups, 0)
//   tables.fillDiff(runs);
//   QApplication::clipboard()->setText(tables.markdown());
#include <QString>
#include <memory>
#include <vector>

#include "ComparedRun.h"

class QTableWidget;
class QTabWidget;

namespace amp::widgets {

class ComparisonSummary {
 public:
  /// Fills these widgets (not owned); `tabs` holds the diff table as its second tab.
  ComparisonSummary(QTableWidget* summary, QTableWidget* diff, QTabWidget* tabs);

  /// One row per run: its figures, and the others' ratios to the baseline run's.
  void fillRuns(const std::vector<std::unique_ptr<ComparedRun>>& runs, int baseline);
  /// One row per group: how many runs it holds, each figure's mean ± standard deviation over the
  /// runs that have it ("[n=3]" when fewer than all), and the ratio of its mean to the baseline
  /// group's mean.
  void fillGroups(const std::vector<std::unique_ptr<ComparedRun>>& runs,
                  const std::vector<ComparedGroup>& groups, int baseline);
  /// The keys whose values differ, one column per run with a readable config.
  void fillDiff(const std::vector<std::unique_ptr<ComparedRun>>& runs);
  /// The summary as a Markdown table.
  QString markdown() const;

 private:
  void fitPane(int rows);

  QTableWidget* summary_;
  QTableWidget* diff_;
  QTabWidget* tabs_;
};

}  // namespace amp::widgets
