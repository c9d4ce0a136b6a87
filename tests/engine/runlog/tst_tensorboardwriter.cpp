#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runlog/RunDirectory.h"
#include "runlog/TensorBoardReader.h"
#include "runlog/TensorBoardWriter.h"

using namespace amp::runlog;

namespace {

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::uint32_t le32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

}  // namespace

class TestTensorBoardWriter : public QObject {
  Q_OBJECT
 private slots:
  void crc32cIsCastagnolis() {
    // The check value of CRC-32C and RFC 3720's (iSCSI) test vectors, B.4.
    QCOMPARE(crc32c("123456789", 9), 0xE3069283u);
    const std::string zeros(32, '\0'), ones(32, '\xFF');
    std::string ascending;
    for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
    QCOMPARE(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
    QCOMPARE(crc32c(ones.data(), ones.size()), 0x62A8AB43u);
    QCOMPARE(crc32c(ascending.data(), ascending.size()), 0x46DD794Eu);
    // TFRecord's mask: rotate right by 15, add 0xa282ead8.
    const std::uint32_t c = 0xE3069283u;
    QCOMPARE(maskedCrc32c("123456789", 9),
             static_cast<std::uint32_t>(((c >> 15) | (c << 17)) + 0xa282ead8u));
  }

  void aScalarIsTheRecordTensorBoardReads() {
    QTemporaryDir dir;
    TensorBoardWriter w;
    QVERIFY(w.open(dir.path().toStdString() + "/tb", 1.5, nullptr));
    QVERIFY(w.add({{"a", 2.0}}, 3, 1.5, nullptr));
    w.close();
    const std::string bytes = readBytes(w.path());
    // First record: the file version. Its payload: field 1 (wall_time, fixed64) 1.5, field 3
    // (file_version, length-delimited) "brain.Event:2".
    const std::string version =
        std::string("\x09\x00\x00\x00\x00\x00\x00\xF8\x3F", 9) + "\x1A\x0D" + "brain.Event:2";
    // Second: wall_time 1.5; field 2 (step, varint) 3; field 5 (summary) holding field 1 (value)
    // holding field 1 (tag) "a" and field 2 (simple_value, fixed32) 2.0f = 0x40000000.
    const std::string scalar = std::string(
        "\x09\x00\x00\x00\x00\x00\x00\xF8\x3F\x10\x03\x2A\x0A\x0A\x08\x0A\x01\x61\x15\x00\x00\x00"
        "\x40",
        23);
    auto record = [](const std::string& payload) {
      std::string r;
      for (int i = 0; i < 8; ++i)
        r.push_back(static_cast<char>((payload.size() >> (8 * i)) & 0xFF));
      const std::uint32_t lenCrc = maskedCrc32c(r.data(), 8),
                          dataCrc = maskedCrc32c(payload.data(), payload.size());
      for (int i = 0; i < 4; ++i) r.push_back(static_cast<char>((lenCrc >> (8 * i)) & 0xFF));
      r += payload;
      for (int i = 0; i < 4; ++i) r.push_back(static_cast<char>((dataCrc >> (8 * i)) & 0xFF));
      return r;
    };
    QCOMPARE(bytes.size(), record(version).size() + record(scalar).size());
    QVERIFY(bytes == record(version) + record(scalar));
    QCOMPARE(le32(bytes, 8), maskedCrc32c(bytes.data(), 8));
  }

  void readsBackEveryScalarIncludingZero() {
    QTemporaryDir dir;
    TensorBoardWriter w;
    QVERIFY(w.open(dir.path().toStdString(), 1.7e9, nullptr));
    QVERIFY(w.add({{"Train/loss", 2.25}, {"Train/Top1_err", 0.0}}, 0, 1.7e9 + 1, nullptr));
    QVERIFY(w.add({{"Train/loss", 1.5}, {"Train/lr", 1e-4}}, 12345678901LL, 1.7e9 + 2, nullptr));
    w.close();
    const auto f = readTensorBoardFile(w.path());
    QCOMPARE(f.error, std::string());
    QCOMPARE(f.events.size(), std::size_t{5});
    QCOMPARE(f.events[0].file_version, std::string("brain.Event:2"));
    QVERIFY(f.events[0].scalars.empty());
    QCOMPARE(f.events[1].scalars.size(), std::size_t{1});
    QCOMPARE(f.events[1].scalars[0].tag, std::string("Train/loss"));
    QCOMPARE(f.events[1].scalars[0].value, 2.25);
    QCOMPARE(f.events[1].wall_time, 1.7e9 + 1);
    QCOMPARE(f.events[2].scalars.size(),
             std::size_t{1});  // an exact 0 is a value, not an absent one
    QCOMPARE(f.events[2].scalars[0].tag, std::string("Train/Top1_err"));
    QCOMPARE(f.events[2].scalars[0].value, 0.0);
    QCOMPARE(f.events[4].step, 12345678901LL);
    QCOMPARE(f.events[4].scalars[0].value, static_cast<double>(1e-4f));  // stored as a float
  }

  void anImageIsASummaryImageOfItsPng() {
    QTemporaryDir dir;
    TensorBoardWriter w;
    QVERIFY(w.open(dir.path().toStdString(), 1.5, nullptr));
    QVERIFY(w.addImages({{"i", 2, 1, "P"}}, 3, 1.5, nullptr));
    w.close();
    // wall_time 1.5, step 3, summary { value { tag "i", image (field 4) { height 1, width 2,
    // colorspace 3 (RGB), encoded_image_string "P" } } }: summary.proto's Summary.Image.
    const std::string payload = std::string(
        "\x09\x00\x00\x00\x00\x00\x00\xF8\x3F\x10\x03\x2A\x10\x0A\x0E\x0A\x01\x69\x22\x09"
        "\x08\x01\x10\x02\x18\x03\x22\x01\x50",
        29);
    const std::string bytes = readBytes(w.path());
    QVERIFY(bytes.size() > payload.size() + 4);
    QCOMPARE(bytes.substr(bytes.size() - 4 - payload.size(), payload.size()), payload);
    const auto f = readTensorBoardFile(w.path());
    QCOMPARE(f.error, std::string());
    QCOMPARE(f.events.size(), std::size_t{2});
    QCOMPARE(f.events[1].images.size(), std::size_t{1});
    QCOMPARE(f.events[1].images[0].tag, std::string("i"));
    QCOMPARE(f.events[1].images[0].width, 2);
    QCOMPARE(f.events[1].images[0].height, 1);
    QCOMPARE(f.events[1].images[0].png, std::string("P"));
    QVERIFY(f.events[1].scalars.empty());
  }

  void filesAreNamedAsTensorBoardsAndNeverReused() {
    QTemporaryDir dir;
    const std::string logDir = dir.path().toStdString() + "/a/b";  // created
    TensorBoardWriter one, two;
    QVERIFY(one.open(logDir, 1796329477.9, nullptr));
    QVERIFY(two.open(logDir, 1796329477.2, nullptr));
    const std::string name = std::filesystem::path(one.path()).filename().string();
    const std::string prefix =
        "events.out.tfevents.1796329477." + hostName() + "." + std::to_string(::getpid()) + ".";
    QVERIFY2(name.rfind(prefix, 0) == 0, name.c_str());
    QVERIFY(one.path() != two.path());
    QCOMPARE(std::filesystem::path(one.path()).parent_path().string(), logDir);
    // An early wall time keeps TensorBoard's ten digits.
    TensorBoardWriter early;
    QVERIFY(early.open(logDir, 12.0, nullptr));
    QVERIFY2(std::filesystem::path(early.path())
                     .filename()
                     .string()
                     .rfind("events.out.tfevents.0000000012.", 0) == 0,
             early.path().c_str());
  }

  void aTornOrDamagedRecordStopsTheReading() {
    QTemporaryDir dir;
    TensorBoardWriter w;
    QVERIFY(w.open(dir.path().toStdString(), 1.0, nullptr));
    for (int i = 0; i < 3; ++i) QVERIFY(w.add({{"x", static_cast<double>(i)}}, i, 2.0, nullptr));
    w.close();
    const std::string bytes = readBytes(w.path());
    const std::string torn = dir.path().toStdString() + "/torn",
                      bad = dir.path().toStdString() + "/bad";
    std::ofstream(torn, std::ios::binary)
        << bytes.substr(0, bytes.size() - 3);  // a writer killed mid-record
    auto f = readTensorBoardFile(torn);
    QCOMPARE(f.events.size(), std::size_t{3});  // the version and the first two scalars
    QVERIFY2(
        f.error.find("torn record") != std::string::npos && f.error.find(torn) != std::string::npos,
        f.error.c_str());
    std::string flipped = bytes;
    flipped[flipped.size() - 6] ^= 0x01;  // inside the last payload
    std::ofstream(bad, std::ios::binary) << flipped;
    f = readTensorBoardFile(bad);
    QCOMPARE(f.events.size(), std::size_t{3});
    QVERIFY2(f.error.find("checksum") != std::string::npos, f.error.c_str());
    QVERIFY(readTensorBoardFile(dir.path().toStdString() + "/none").error.find("cannot open") !=
            std::string::npos);
  }

  void logDirIsPySlowFasts() {
    QCOMPARE(tensorBoardLogDir("out/run", "", "kinetics"), std::string("out/run/runs-kinetics"));
    QCOMPARE(tensorBoardLogDir("out/run", "tb", "kinetics"), std::string("out/run/tb"));
    QCOMPARE(tensorBoardLogDir("out/run", "/abs/tb", "kinetics"),
             std::string("/abs/tb"));  // os.path.join
  }

  void anUnwritableFolderIsNamed() {
    QTemporaryDir dir;  // a file where the folder should be (even root cannot write there)
    const std::string file = dir.path().toStdString() + "/file";
    std::ofstream(file) << "x";
    TensorBoardWriter w;
    std::string error;
    QVERIFY(!w.open(file + "/tb", 1.0, &error));
    QVERIFY2(error.find(file + "/tb") != std::string::npos, error.c_str());
    QVERIFY(!w.isOpen());
    QVERIFY(!w.add({{"x", 1.0}}, 0, 1.0, &error));
    QVERIFY2(error.find("not open") != std::string::npos, error.c_str());
  }
  // The test: a record declaring a 4 GB length in a small file is refused by name without
  // allocating it; a FIFO in the place of an events file is refused, not waited on.
  void hostileFilesAreRefusedByName() {
    QTemporaryDir dir;
    const std::string huge = dir.path().toStdString() + "/huge";
    const std::string fifo = dir.path().toStdString() + "/fifo";
    std::string header(8, '\0');
    const std::uint64_t len = 4ull << 30;
    for (int i = 0; i < 8; ++i)
      header[static_cast<std::size_t>(i)] = static_cast<char>((len >> (8 * i)) & 0xff);
    const std::uint32_t crc = maskedCrc32c(header.data(), 8);
    for (int i = 0; i < 4; ++i) header += static_cast<char>((crc >> (8 * i)) & 0xff);
    std::ofstream(huge, std::ios::binary) << header << std::string(100, 'x');
    auto f = readTensorBoardFile(huge);
    QVERIFY(f.events.empty());
    QVERIFY2(f.error.find(huge) != std::string::npos &&
                 f.error.find("4294967296 bytes") != std::string::npos,
             f.error.c_str());
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    f = readTensorBoardFile(fifo);
    QVERIFY2(f.error.find("not a regular file") != std::string::npos, f.error.c_str());
  }
};

QTEST_GUILESS_MAIN(TestTensorBoardWriter)
#include "tst_tensorboardwriter.moc"
