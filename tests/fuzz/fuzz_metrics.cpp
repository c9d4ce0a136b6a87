// A run's metrics.jsonl (ours or a torn one), its run.json, and PySlowFast's json_stats lines,
// as the studio and `runs` read them from a folder copied off a GPU server.
#include <fstream>

#include "FuzzTarget.h"
#include "runlog/MetricsReader.h"
#include "runlog/PySlowFastLog.h"
#include "runlog/RunMetadata.h"
#include "runlog/RunRecord.h"
#include "util/BoundedInput.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = amp::fuzz::bytes(data, size);
  // Each line as the live reader sees it, ours and PySlowFast's, and the whole as one run.json.
  amp::runlog::PySlowFastLogState state;
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto nl = text.find('\n', at);
    const std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    (void)amp::runlog::parseJsonLine(line);
    (void)amp::runlog::parsePySlowFastStats(line, state);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  // As RunDirectory::readMetadata parses it: depth-limited (a deep value crashed the copy).
  if (const auto j = amp::util::parseJson(text)) {
    std::string error;
    if (auto m = amp::runlog::RunMetadata::fromJson(*j, &error)) (void)m->toJson().dump();
  }
  // The file reader: resumes, torn last line, problems; then the record and its CSV.
  const std::string path = amp::fuzz::scratchDir() + "/metrics.jsonl";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  amp::runlog::MetricsReader::ReadStats stats;
  const auto events = amp::runlog::MetricsReader::readAll(path, &stats);
  amp::runlog::RunRecord record;
  record.addAll(events);
  (void)record.toCsv();
  (void)record.summary();
  // The per_class lists as the Compare view reads them: the newest of a split and its history.
  for (const char* split : {"val", "test"})
    if (const auto* p = record.latestPerClass(split))
      for (std::size_t i = 0; i < p->values.classes.size(); ++i)
        (void)(p->values.nameAt(i).size() + record.perClassHistory(split).size());
  return 0;
}
