#pragma once
// One run as the Compare tab holds it (what was read of its folder, the name it is shown by, its
// colour), and one group of such runs (grouped by config keys, runlog::groupRuns). Shared by the
// panel, its charts and its summary tables.
#include <QColor>
#include <QString>
#include <cstddef>
#include <optional>
#include <vector>

#include "config/Config.h"
#include "runlog/RunMetadata.h"
#include "runlog/RunRecord.h"

namespace amp::widgets {

///   ComparedRun run;
///   run.dir = "/runs/lr0.1-seed1";
///   (void)run.record.loadRunDirectory(run.dir.toStdString(), nullptr);
///   const runlog::RunSummary s = run.record.summary();
struct ComparedRun {
  QString dir;
  QString name;  ///< run.json's name, else the folder's (with parent folders when two share it)
  std::optional<runlog::RunMetadata> meta;
  std::optional<config::Config> cfg;
  QString problem;  ///< what could not be read ("" when all was)
  runlog::RunRecord record;
  runlog::RunSummary summary;  ///< record.summary() when it was read (a regroup reuses it)
  QColor color;
};

/// Runs drawn as one: their mean and band in one colour, one summary row.
///   ComparedGroup g{"BASE_LR=0.1", seriesColor(0), {0, 3, 5}};
struct ComparedGroup {
  QString label;
  QColor color;
  std::vector<std::size_t> members;  ///< indices of the panel's runs
};

}  // namespace amp::widgets
