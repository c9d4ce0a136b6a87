#pragma once
// ampstudio-gui-bench runs [--runs N] [--steps S]: the run list at a sweep's scale (issue #49).
// Writes N runs with the real writers (run.json, config.yaml, metrics.jsonl of S training steps
// and a validation every S/10) into a temporary folder, then times the list's first listing, a
// refresh with nothing changed, a refresh while 20 runs are being written, filters (text, field,
// KEY=VALUE on the config, a figure) and a sort, and reports the process's memory.
//
//   return amp::bench::runListBench(1000, 200);

namespace amp::bench {

int runListBench(int runs, int stepsPerRun);

}  // namespace amp::bench
