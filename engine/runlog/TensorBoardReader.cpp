#include "runlog/TensorBoardReader.h"

#include <limits>
#include <map>

#include "util/AtomicFile.h"

#if AMPSTUDIO_WITH_TENSORBOARD
#include "runlog/TensorScalar.h"
#include "runlog/tensorboard_event.pb.h"
#endif

namespace amp::runlog {

#if AMPSTUDIO_WITH_TENSORBOARD

namespace {

std::uint64_t littleEndianAt(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

TensorBoardFile readTensorBoardFile(const std::string& path) {
  TensorBoardFile out;
  // A regular file only (a FIFO or /dev/zero behind the name would be read forever); its size
  // bounds every record's announced length below.
  std::string all, why;
  if (!util::readFile(path, all, &why, util::kNoReadCap)) {
    out.error = "cannot open '" + path + "' (" + why + ")";
    return out;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(all.data());
  std::size_t at = 0;
  // Each tag's plugin: a writer names it on a tag's first value only.
  std::map<std::string, std::string> pluginOfTag;
  while (at < all.size()) {
    const std::string where = "'" + path + "' at byte " + std::to_string(at);
    if (all.size() - at < 12) {
      out.error =
          where + ": a torn record (" + std::to_string(all.size() - at) + " bytes of its header)";
      return out;
    }
    const std::uint64_t len = littleEndianAt(p + at, 8);
    if (static_cast<std::uint32_t>(littleEndianAt(p + at + 8, 4)) != maskedCrc32c(p + at, 8)) {
      out.error = where + ": the length's checksum does not match";
      return out;
    }
    if (len > static_cast<std::uint64_t>(
                  std::numeric_limits<int>::max())) {  // protobuf parses at most that
      out.error = where + ": a record of " + std::to_string(len) + " bytes is no event";
      return out;
    }
    if (len > all.size() - at - 12 || all.size() - at - 12 - len < 4) {
      out.error = where + ": a torn record (" + std::to_string(len) + " bytes announced)";
      return out;
    }
    const unsigned char* payload = p + at + 12;
    if (static_cast<std::uint32_t>(littleEndianAt(payload + len, 4)) !=
        maskedCrc32c(payload, len)) {
      out.error = where + ": the record's checksum does not match";
      return out;
    }
    tb::Event e;
    if (!e.ParseFromArray(payload, static_cast<int>(len))) {
      out.error = where + ": the record is not an Event";
      return out;
    }
    TensorBoardEvent ev;
    ev.wall_time = e.wall_time();
    ev.step = e.step();
    if (e.what_case() == tb::Event::kFileVersion) ev.file_version = e.file_version();
    if (e.what_case() == tb::Event::kSummary) {
      for (const auto& v : e.summary().value()) {
        if (v.value_case() == tb::SummaryValue::kSimpleValue)
          ev.scalars.push_back({v.tag(), v.simple_value()});
        else if (v.value_case() == tb::SummaryValue::kImage)
          ev.images.push_back(
              {v.tag(), v.image().width(), v.image().height(), v.image().encoded_image_string()});
        else if (v.value_case() == tb::SummaryValue::kHisto) {
          const auto& p = v.histo();
          ev.histograms.push_back({v.tag(),
                                   p.min(),
                                   p.max(),
                                   p.num(),
                                   p.sum(),
                                   p.sum_squares(),
                                   {p.bucket_limit().begin(), p.bucket_limit().end()},
                                   {p.bucket().begin(), p.bucket().end()}});
        }
        if (v.has_metadata() && !v.metadata().plugin_data().plugin_name().empty())
          pluginOfTag[v.tag()] = v.metadata().plugin_data().plugin_name();
        // A scalar `tensor` summary: the scalars plugin's, or one number of a tag no plugin
        // claimed (a histogram or an image tensor holds more than one element).
        if (v.value_case() == tb::SummaryValue::kTensor) {
          const auto plugin = pluginOfTag.find(v.tag());
          if (plugin == pluginOfTag.end() || plugin->second == "scalars")
            if (const auto x = tensorScalarValue(v.tensor())) ev.scalars.push_back({v.tag(), *x});
        }
      }
    }
    out.events.push_back(std::move(ev));
    at += 12 + len + 4;
  }
  return out;
}

#else  // built without protobuf or ISA-L

TensorBoardFile readTensorBoardFile(const std::string&) {
  return {{}, *tensorBoardSupport()};
}

#endif

}  // namespace amp::runlog
