// ampstudio-cli make-demo-data: the built-in dataset.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "Commands.h"
#include "data/DemoDataGenerator.h"

namespace amp::cli {

void addDataCommands(CLI::App& app, int& exitCode) {
  auto opts = std::make_shared<data::DemoDataOptions>();
  opts->threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CLI::App* demo =
      app.add_subcommand("make-demo-data",
                         "Write the demo dataset: videos of moving shapes classed by their motion, "
                         "with Kinetics-style train/val/test CSVs");
  demo->add_option("--out", opts->out_dir, "Folder to write (created if missing)")->required();
  demo->add_option("--clips-per-class", opts->clips_per_class,
                   "Training clips per class (val and test: a quarter)")
      ->check(CLI::Range(1, 100000));
  auto format = std::make_shared<std::string>("kinetics");
  demo->add_option("--format", *format,
                   "kinetics: videos with train/val/test CSVs; ssv2: JPEG frame folders with "
                   "Something-Something v2's frame lists and label JSONs; charades: frame folders "
                   "of overlapping actions with per-frame labels; ava: frame folders with "
                   "AVA's frame lists, person boxes at keyframes, label map and exclusions")
      ->check(CLI::IsMember({"kinetics", "ssv2", "charades", "ava"}));
  demo->add_option("--seed", opts->seed, "Random seed; the same seed writes the same dataset");
  demo->add_option("--threads", opts->threads, "Encoding threads")->check(CLI::Range(1, 256));
  demo->callback([opts, format, &exitCode] {
    (void)data::demoFormatFromName(*format, opts->format);  // CLI11 allows only these four
    const auto start = std::chrono::steady_clock::now();
    data::DemoDataSummary summary;
    std::string error;
    const bool tty = isatty(2);
    const bool ok = data::generateDemoData(*opts, summary, &error, [tty](int done, int total) {
      if (tty && (done % 8 == 0 || done == total))
        std::cerr << "\rclips " << done << "/" << total << std::flush;
    });
    if (tty) std::cerr << "\n";
    if (!ok) {
      std::cerr << "make-demo-data: " << error << "\n";
      exitCode = 1;
      return;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "Wrote " << summary.train << " train, " << summary.val << " val, " << summary.test
              << " test " << (opts->format == data::DemoFormat::Kinetics ? "clips" : "videos")
              << " (" << data::demoClassNames().size() << " classes, " << summary.codec << ", "
              << *format << " layout) to " << opts->out_dir << " in " << seconds << " s\n";
    exitCode = 0;
  });
}

}  // namespace amp::cli
