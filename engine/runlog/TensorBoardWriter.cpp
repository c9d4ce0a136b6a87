#include "runlog/TensorBoardWriter.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "runlog/RunDirectory.h"

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

bool TensorBoardWriter::addHistograms(const std::vector<TensorBoardHistogram>& histograms,
                                      std::int64_t step, double wallTime, std::string* error) {
  std::string bytes;
  for (const auto& h : histograms) {
    tb::Event e;
    e.set_wall_time(wallTime);
    e.set_step(step);
    auto* v = e.mutable_summary()->add_value();
    v->set_tag(h.tag);
    auto* p = v->mutable_histo();
    p->set_min(h.min);
    p->set_max(h.max);
    p->set_num(h.num);
    p->set_sum(h.sum);
    p->set_sum_squares(h.sum_squares);
    for (const double limit : h.bucket_limit) p->add_bucket_limit(limit);
    for (const double n : h.bucket) p->add_bucket(n);
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
bool TensorBoardWriter::addHistograms(const std::vector<TensorBoardHistogram>&, std::int64_t,
                                      double, std::string* error) {
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

#endif

}  // namespace amp::runlog
