// A run's metrics.jsonl (ours or a torn one) and its run.json, as the studio and `runs` read
// them from a folder copied off a GPU server.
#include <fstream>

#include "FuzzTarget.h"
#include "runlog/MetricsReader.h"
#include "runlog/RunMetadata.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = amp::fuzz::bytes(data, size);
  // Each line as the live reader sees it, and the whole as one run.json.
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto nl = text.find('\n', at);
    (void)amp::runlog::parseJsonLine(text.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_discarded()) {
    std::string error;
    if (auto m = amp::runlog::RunMetadata::fromJson(j, &error)) (void)m->toJson().dump();
  }
  // The file reader: resumes, torn last line, problems.
  const std::string path = amp::fuzz::scratchDir() + "/metrics.jsonl";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  amp::runlog::MetricsReader::ReadStats stats;
  (void)amp::runlog::MetricsReader::readAll(path, &stats);
  return 0;
}
