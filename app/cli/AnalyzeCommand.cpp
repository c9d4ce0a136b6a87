// ampstudio-cli analyze confusion: where a finished single-label run is right and wrong, from the
// analysis file its test or validation left (metrics::ConfusionRecord, docs/run-format.md):
// per-class accuracy worst first, the most confused pairs, and the matrix as CSV or as PySlowFast's
// figure (PNG).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "data/ImageWriter.h"
#include "metrics/ConfusionFigure.h"
#include "metrics/ConfusionRecord.h"
#include "util/AtomicFile.h"

namespace amp::cli {
namespace {

struct ConfusionArgs {
  std::string run, file, split, csv, png, parent;
  int epoch = 0;
  int top = 10;
  bool json = false, rates = false, subset = false;
};

// The analysis file asked for: --split/--epoch, else the test's, else the newest validation's.
std::string pickFile(const ConfusionArgs& a, std::string& error) {
  if (!a.file.empty()) return a.file;  // e.g. written by test --analysis
  const auto files = metrics::listConfusionFiles(a.run);
  if (files.empty()) {
    error = a.run +
            ": no analysis files (analysis/test_confusion.json, val_confusion_epoch_N.json); a "
            "single-label run writes them at each validation and at its test (multi-label and "
            "AVA runs, and runs recorded before this studio version, have none)";
    return {};
  }
  for (const auto& f : files) {
    if (!a.split.empty() && f.split != a.split) continue;
    if (a.epoch > 0 && f.epoch != a.epoch) continue;
    return f.path;
  }
  error = a.run + ": no analysis file of " + (a.split.empty() ? "any split" : a.split) +
          (a.epoch > 0 ? " at epoch " + std::to_string(a.epoch) : std::string()) + "; it has:";
  for (const auto& f : files)
    error += " " + f.split + (f.epoch > 0 ? " epoch " + std::to_string(f.epoch) : std::string());
  return {};
}

std::string percent(double v) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * v);
  return buf;
}

// The classes the figure and the CSV show: all, the recorded subset, or one parent's children.
std::vector<int> chosenClasses(const metrics::ConfusionRecord& r, const ConfusionArgs& a,
                               std::string& error) {
  if (a.subset) {
    if (!r.subset)
      error = "--subset: the run's config set no TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH";
    return r.subset ? *r.subset : std::vector<int>();
  }
  if (!a.parent.empty()) {
    for (const auto& [name, ids] : r.parents)
      if (name == a.parent) return ids;
    error = "--parent: no parent category \"" + a.parent + "\" (";
    for (const auto& p : r.parents) error += "\"" + p.first + "\" ";
    error += r.parents.empty() ? "the run's config set no TENSORBOARD.CATEGORIES_PATH)" : ")";
    return {};
  }
  std::vector<int> all(static_cast<std::size_t>(r.matrix.classes()));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

int runConfusion(const ConfusionArgs& a) {
  std::string error;
  const std::string path = pickFile(a, error);
  if (path.empty()) {
    std::cerr << "analyze confusion: " << error << "\n";
    return 1;
  }
  const auto r = metrics::readConfusionRecord(path, &error);
  if (!r) {
    std::cerr << "analyze confusion: " << error << "\n";
    return 1;
  }
  const auto ids = chosenClasses(*r, a, error);
  if (!error.empty()) {
    std::cerr << "analyze confusion: " << error << "\n";
    return 2;
  }
  const metrics::ConfusionMatrix& m = r->matrix;
  std::vector<int> order = ids;  // worst first; classes without samples last
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    const double ax = m.accuracy(x), ay = m.accuracy(y);
    if (std::isnan(ax) != std::isnan(ay)) return std::isnan(ay);
    return ax < ay;
  });
  const auto pairs = m.mostConfused(static_cast<std::size_t>(std::max(a.top, 0)));
  const double top1 = m.total() ? static_cast<double>(m.correct()) / m.total() : std::nan("");

  if (!a.csv.empty() &&
      !util::writeFileAtomically(a.csv, metrics::confusionCsv(*r, ids, a.rates), &error)) {
    std::cerr << "analyze confusion: --csv: " << error << "\n";
    return 1;
  }
  if (!a.png.empty()) {
    const int side = std::clamp(static_cast<int>(ids.size()) * 14 + 300, 800, 4000);
    const auto img =
        metrics::drawConfusionMatrix(m, ids, r->names, side, side, "Confusion matrix", &error);
    if (!img || !data::writePng(a.png, img->rgb.data(), img->width, img->height, &error)) {
      std::cerr << "analyze confusion: --png: " << error << "\n";
      return 1;
    }
  }
  if (a.json) {
    using nlohmann::json;
    const auto number = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
    json classes = json::array(), confused = json::array();
    for (const int k : order)
      classes.push_back({{"class", k},
                         {"name", r->className(k)},
                         {"accuracy", number(m.accuracy(k))},
                         {"samples", m.samples(k)}});
    for (const auto& p : pairs)
      confused.push_back({{"true", p.truth},
                          {"true_name", r->className(p.truth)},
                          {"pred", p.pred},
                          {"pred_name", r->className(p.pred)},
                          {"count", p.count},
                          {"rate", p.rate}});
    std::cout << json{{"file", path},
                      {"split", r->split},
                      {"epoch", r->epoch},
                      {"unit", r->unit},
                      {"samples", m.total()},
                      {"correct", m.correct()},
                      {"top1_acc", number(top1)},
                      {"classes", classes},
                      {"most_confused", confused},
                      {"mistakes",
                       static_cast<std::int64_t>(r->mistakes.size()) + r->mistakes_left_out}}
                     .dump(2)
              << "\n";
    return 0;
  }
  const std::string unit = r->unit == "video" ? "videos" : "clips";
  std::cout << "file         " << path << "\n"
            << "evaluation   " << (r->split == "test" ? "test" : "validation") << " at epoch "
            << r->epoch << ", " << m.total() << " " << unit
            << (r->unit == "video" ? " x " + std::to_string(r->views_per_video) + " views"
                                   : std::string())
            << "\n"
            << "top-1        " << percent(top1) << " (" << m.correct() << " of " << m.total()
            << ")\n\nper-class accuracy, worst first:\n";
  std::size_t width = 4;
  for (const int k : ids) width = std::max(width, r->className(k).size());
  width = std::min<std::size_t>(width, 40);
  char line[256];
  std::snprintf(line, sizeof line, "  %5s  %-*s  %9s  %7s\n", "class", static_cast<int>(width),
                "name", "accuracy", unit.c_str());
  std::cout << line;
  for (const int k : order) {
    std::snprintf(line, sizeof line, "  %5d  %-*s  %9s  %7lld\n", k, static_cast<int>(width),
                  r->className(k).substr(0, width).c_str(), percent(m.accuracy(k)).c_str(),
                  static_cast<long long>(m.samples(k)));
    std::cout << line;
  }
  std::cout << "\nmost confused pairs (true -> predicted):\n";
  if (pairs.empty()) std::cout << "  none: every sample was classified right\n";
  for (const auto& p : pairs) {
    std::snprintf(line, sizeof line, "  %-*s -> %-*s  %6lld  (%s of the class)\n",
                  static_cast<int>(width), r->className(p.truth).substr(0, width).c_str(),
                  static_cast<int>(width), r->className(p.pred).substr(0, width).c_str(),
                  static_cast<long long>(p.count), percent(p.rate).c_str());
    std::cout << line;
  }
  std::cout << "\nmistakes     "
            << r->mistakes.size() + static_cast<std::size_t>(r->mistakes_left_out)
            << " (each with its scores in the file; the studio's Analysis tab lists them)\n";
  if (!a.csv.empty()) std::cout << "csv          " << a.csv << "\n";
  if (!a.png.empty()) std::cout << "png          " << a.png << "\n";
  return 0;
}

}  // namespace

void addAnalyzeCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<ConfusionArgs>();
  CLI::App* analyze =
      app.add_subcommand("analyze", "Look at what a finished run learned, from its run directory");
  analyze->require_subcommand(1);
  CLI::App* c = analyze->add_subcommand(
      "confusion",
      "Confusion matrix of a single-label run's test or validation: per-class accuracy worst "
      "first, the most confused pairs, the matrix as CSV or PNG (PySlowFast's figure)");
  auto* run = c->add_option("--run", args->run, "Run directory (OUTPUT_DIR)");
  auto* file =
      c->add_option("--file", args->file,
                    "An analysis file instead of a run's (e.g. written by test --analysis)");
  run->excludes(file);
  file->excludes(run);
  auto* split = c->add_option("--split", args->split,
                              "test or val (default: the test's, else the newest "
                              "validation's)")
                    ->check(CLI::IsMember({"test", "val"}));
  auto* epoch = c->add_option("--epoch", args->epoch, "The validation of this epoch (1-based)")
                    ->check(CLI::PositiveNumber);
  file->excludes(split);
  file->excludes(epoch);
  c->add_option("--top", args->top, "Most confused pairs to list (default 10)")
      ->check(CLI::NonNegativeNumber);
  c->add_option("--csv", args->csv, "Write the matrix as CSV (counts; --rates: shares of the row)");
  c->add_flag("--rates", args->rates, "CSV of each true class's shares instead of counts");
  c->add_option("--png", args->png, "Write the matrix as a PNG figure (row-normalised, Blues)");
  c->add_flag("--subset", args->subset,
              "Only the classes of the run's TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH");
  c->add_option("--parent", args->parent,
                "Only the children of this parent of the run's TENSORBOARD.CATEGORIES_PATH");
  c->add_flag("--json", args->json, "Print the result as one JSON object");
  c->callback([args, &exitCode] {
    if (args->run.empty() && args->file.empty()) {
      std::cerr << "analyze confusion: give --run RUN_DIR or --file ANALYSIS.json\n";
      exitCode = 2;
      return;
    }
    exitCode = runConfusion(*args);
  });
}

}  // namespace amp::cli
