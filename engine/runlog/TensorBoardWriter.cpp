#include "runlog/TensorBoardWriter.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "runlog/RunDirectory.h"
#include "util/AtomicFile.h"

#if AMPSTUDIO_WITH_TENSORBOARD
#include <isa-l/crc.h>

#include "runlog/tensorboard_event.pb.h"
#endif

namespace amp::runlog {

namespace fs = std::filesystem;

std::string tensorBoardLogDir(const std::string& outputDir, const std::string& logDir,
                              const std::string& dataset) {
  return (fs::path(outputDir) / (logDir.empty() ? "runs-" + dataset : logDir)).string();
}

#if AMPSTUDIO_WITH_TENSORBOARD

std::optional<std::string> tensorBoardSupport() {
  return std::nullopt;
}

std::uint32_t crc32c(const void* data, std::size_t size) {
  // ISA-L's iSCSI CRC is CRC-32C without the standard's initial and final inversion.
  std::uint32_t crc = 0xFFFFFFFFu;
  auto* p = static_cast<unsigned char*>(const_cast<void*>(data));
  while (size > 0) {  // its length is an int
    const int n = static_cast<int>(std::min<std::size_t>(size, 1u << 30));
    crc = crc32_iscsi(p, n, crc);
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return ~crc;
}

std::uint32_t maskedCrc32c(const void* data, std::size_t size) {
  const std::uint32_t crc = crc32c(data, size);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;  // the TFRecord format's mask
}

namespace {

void putLe(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::uint64_t getLe(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// One record: length, masked CRC of the length, payload, masked CRC of the payload.
void appendRecord(std::string& out, const std::string& payload) {
  std::string len;
  putLe(len, payload.size(), 8);
  out += len;
  putLe(out, maskedCrc32c(len.data(), len.size()), 4);
  out += payload;
  putLe(out, maskedCrc32c(payload.data(), payload.size()), 4);
}

std::atomic<int> fileCounter{0};

}  // namespace

TensorBoardWriter::TensorBoardWriter() = default;
TensorBoardWriter::~TensorBoardWriter() {
  close();
}

bool TensorBoardWriter::open(const std::string& logDir, double wallTime, std::string* error) {
  std::lock_guard<std::mutex> lock(mutex_);
  file_.close();
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  std::error_code ec;
  fs::create_directories(logDir, ec);
  if (ec) return fail("cannot create the TensorBoard folder '" + logDir + "': " + ec.message());
  char name[64];
  std::snprintf(name, sizeof name, "events.out.tfevents.%010lld.",
                static_cast<long long>(wallTime));
  path_ = (fs::path(logDir) / (name + hostName() + "." + std::to_string(::getpid()) + "." +
                               std::to_string(fileCounter++)))
              .string();
  if (std::string why; !file_.open(path_, /*createNew=*/true, &why))
    return fail("cannot create the TensorBoard events file '" + path_ + "': " + why);
  tb::Event e;
  e.set_wall_time(wallTime);
  e.set_file_version("brain.Event:2");
  std::string bytes;
  appendRecord(bytes, e.SerializeAsString());
  return append(bytes, error);
}

bool TensorBoardWriter::add(const std::vector<TensorBoardScalar>& scalars, std::int64_t step,
                            double wallTime, std::string* error) {
  std::string bytes;
  for (const auto& s : scalars) {
    tb::Event e;
    e.set_wall_time(wallTime);
    e.set_step(step);
    auto* v = e.mutable_summary()->add_value();
    v->set_tag(s.tag);
    v->set_simple_value(static_cast<float>(s.value));
    appendRecord(bytes, e.SerializeAsString());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return append(bytes, error);
}

bool TensorBoardWriter::addImages(const std::vector<TensorBoardImage>& images, std::int64_t step,
                                  double wallTime, std::string* error) {
  std::string bytes;
  for (const auto& i : images) {
    tb::Event e;
    e.set_wall_time(wallTime);
    e.set_step(step);
    auto* v = e.mutable_summary()->add_value();
    v->set_tag(i.tag);
    auto* image = v->mutable_image();
    image->set_height(i.height);
    image->set_width(i.width);
    image->set_colorspace(3);
    image->set_encoded_image_string(i.png);
    appendRecord(bytes, e.SerializeAsString());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return append(bytes, error);
}

bool TensorBoardWriter::isOpen() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return file_.isOpen();
}

bool TensorBoardWriter::append(const std::string& bytes, std::string* error) {
  if (!file_.isOpen()) {
    if (error) *error = "the TensorBoard events file is not open";
    return false;
  }
  return file_.append(bytes, error);
}

void TensorBoardWriter::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  file_.sync();
  file_.close();
}

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
  while (at < all.size()) {
    const std::string where = "'" + path + "' at byte " + std::to_string(at);
    if (all.size() - at < 12) {
      out.error =
          where + ": a torn record (" + std::to_string(all.size() - at) + " bytes of its header)";
      return out;
    }
    const std::uint64_t len = getLe(p + at, 8);
    if (static_cast<std::uint32_t>(getLe(p + at + 8, 4)) != maskedCrc32c(p + at, 8)) {
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
    if (static_cast<std::uint32_t>(getLe(payload + len, 4)) != maskedCrc32c(payload, len)) {
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
      }
    }
    out.events.push_back(std::move(ev));
    at += 12 + len + 4;
  }
  return out;
}

#else  // built without protobuf or ISA-L

std::optional<std::string> tensorBoardSupport() {
  return "this build writes no TensorBoard event files (configured with AMPSTUDIO_WITH_TENSORBOARD "
         "OFF: no protobuf and ISA-L)";
}
std::uint32_t crc32c(const void*, std::size_t) {
  return 0;
}
std::uint32_t maskedCrc32c(const void*, std::size_t) {
  return 0;
}
TensorBoardWriter::TensorBoardWriter() = default;
TensorBoardWriter::~TensorBoardWriter() = default;
bool TensorBoardWriter::open(const std::string&, double, std::string* error) {
  if (error) *error = *tensorBoardSupport();
  return false;
}
bool TensorBoardWriter::add(const std::vector<TensorBoardScalar>&, std::int64_t, double,
                            std::string* error) {
  if (error) *error = *tensorBoardSupport();
  return false;
}
bool TensorBoardWriter::addImages(const std::vector<TensorBoardImage>&, std::int64_t, double,
                                  std::string* error) {
  if (error) *error = *tensorBoardSupport();
  return false;
}
bool TensorBoardWriter::isOpen() const {
  return false;
}
bool TensorBoardWriter::append(const std::string&, std::string* error) {
  if (error) *error = *tensorBoardSupport();
  return false;
}
void TensorBoardWriter::close() {}
TensorBoardFile readTensorBoardFile(const std::string&) {
  return {{}, *tensorBoardSupport()};
}

#endif

}  // namespace amp::runlog
