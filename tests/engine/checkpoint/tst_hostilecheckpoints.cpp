// Checkpoints built to exhaust memory, time or the stack (issue 52): each is refused by name, in
// proportion to its own size, and what real files share (storages, memoized objects) still loads
// shared. Without the bounds these inputs hang, crash or take gigabytes.
#include <caffe2/serialize/inline_container.h>
#include <torch/torch.h>

#include <QtTest>

#include <QTemporaryDir>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "checkpoint/TorchFile.h"
#include "runlog/CheckpointFiles.h"
#include "train/Checkpoint.h"

#include "support/TestFiles.h"

using namespace amp;
using namespace std::string_literals;
namespace fs = std::filesystem;

namespace {

std::string readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

using testsupport::errorOf;

std::string le(std::uint64_t v, int n) {
  std::string out;
  for (int k = 0; k < n; ++k) out += static_cast<char>((v >> (8 * k)) & 0xff);
  return out;
}

// Pickle pieces (protocol 2).
std::string text(const std::string& s) {
  return "X" + le(s.size(), 4) + s;
}
std::string int64(std::int64_t v) {
  return "\x8a\x08" + le(static_cast<std::uint64_t>(v), 8);
}  // LONG1
std::string ints(const std::vector<std::int64_t>& v) {
  std::string out = "(";
  for (auto x : v) out += int64(x);
  return out + "t";
}
std::string storage(const std::string& key, std::int64_t numel) {
  return "(" + text("storage") + "ctorch\nFloatStorage\n" + text(key) + text("cpu") + int64(numel) +
         "tQ";
}
// torch._utils._rebuild_tensor_v2(storage, offset, size, stride, False, OrderedDict())
std::string tensor(const std::string& key, std::int64_t numel,
                   const std::vector<std::int64_t>& size, const std::vector<std::int64_t>& stride) {
  return "ctorch._utils\n_rebuild_tensor_v2\n(" + storage(key, numel) + int64(0) + ints(size) +
         ints(stride) +
         "\x89"
         "ccollections\nOrderedDict\n)RtR";
}

// What torch.save writes: a zip of archive/data.pkl and archive/data/<key> for each storage.
std::string zipWith(const std::string& pickle,
                    const std::map<std::string, std::string>& storages = {}) {
  std::string out;
  caffe2::serialize::PyTorchStreamWriter w([&out](const void* p, size_t n) {
    out.append(static_cast<const char*>(p), n);
    return n;
  });
  w.writeRecord("data.pkl", pickle.data(), pickle.size());
  for (const auto& [key, data] : storages) w.writeRecord("data/" + key, data.data(), data.size());
  w.writeEndOfFile();
  return out;
}

// The legacy stream around `pickle`: magic, protocol, sys_info, the object, no storages.
std::string legacyWith(const std::string& pickle) {
  return std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15) +
         std::string("\x80\x02M\xe9\x03.", 6) + "\x80\x02}." + pickle + "\x80\x02].";
}

std::uint32_t crc32(const std::string& s) {
  std::uint32_t c = 0xffffffffu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

// A zip written by hand, for what torch.save never writes: deflated entries, declared sizes
// that are not the data's, two directory entries over the same bytes.
struct Entry {
  std::string name;
  std::string data;  // as stored in the file (raw deflate when method is 8)
  std::uint16_t method = 0;
  std::uint64_t declared = 0;  // the uncompressed size the directory declares; 0: data's size
  int sameBytesAs = -1;        // an earlier entry whose local header this one points at
};
std::string handZip(const std::vector<Entry>& entries) {
  std::string out, cd;
  std::vector<std::uint64_t> offsets;
  for (const auto& entry : entries) {
    const Entry& e =
        entry.sameBytesAs >= 0 ? entries[static_cast<std::size_t>(entry.sameBytesAs)] : entry;
    const std::uint64_t size = e.declared ? e.declared : e.data.size();
    const std::uint32_t crc = e.method ? 0 : crc32(e.data);
    std::uint64_t at = out.size();
    if (entry.sameBytesAs >= 0) {
      at = offsets[static_cast<std::size_t>(entry.sameBytesAs)];
    } else {
      out += "PK\x03\x04" + le(20, 2) + le(0, 2) + le(e.method, 2) + le(0, 4) + le(crc, 4) +
             le(e.data.size(), 4) + le(size, 4) + le(e.name.size(), 2) + le(0, 2) + e.name + e.data;
    }
    offsets.push_back(at);
    cd += "PK\x01\x02" + le(20, 2) + le(20, 2) + le(0, 2) + le(e.method, 2) + le(0, 4) +
          le(crc, 4) + le(e.data.size(), 4) + le(size, 4) + le(entry.name.size(), 2) + le(0, 2) +
          le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(at, 4) + entry.name;
  }
  const std::uint64_t cdAt = out.size();
  return out + cd + "PK\x05\x06" + le(0, 4) + le(entries.size(), 2) + le(entries.size(), 2) +
         le(cd.size(), 4) + le(cdAt, 4) + le(0, 2);
}

std::string rawDeflate(const QByteArray& data) {
  const QByteArray z = qCompress(data);  // 4-byte length, zlib header (2), deflate, Adler-32 (4)
  return std::string(z.constData() + 6, static_cast<std::size_t>(z.size() - 10));
}

fs::path tempFile(const char* name, const std::string& bytes) {
  const auto p =
      fs::temp_directory_path() / ("ampstudio-hostile-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(p, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return p;
}

// Both loads of one file: with the weights and structure only. Their messages must both match.
QStringList bothLoads(const std::string& bytes, const char* name) {
  const auto p = tempFile(name, bytes);
  QStringList out{errorOf([&] { checkpoint::loadTorchFile(p.string()); }),
                  errorOf([&] { checkpoint::loadTorchFileStructure(p.string()); })};
  fs::remove(p);
  return out;
}

}  // namespace

class TestHostileCheckpoints : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // The case: a storage of 10^12 floats declared in a file of under 100 bytes. Before,
  // the structure-only load reported it as a 4 TB tensor without a word.
  void aHugeStorageInATinyFileIsRefused() {
    const std::string pickle = "\x80\x02" + storage("0", 1000000000000) + ".";
    const std::string legacy = legacyWith(pickle);
    QVERIFY(legacy.size() < 100);
    for (const QString& e : bothLoads(legacy, "huge.pyth")) {
      QVERIFY2(e.contains("huge.pyth: "), qPrintable(e));
      QVERIFY2(e.contains("storage 0 claims 1000000000000 elements") &&
                   e.contains("more than the file holds"),
               qPrintable(e));
    }
    for (const QString& e : bothLoads(zipWith(pickle, {{"0", std::string(4, '\0')}}), "huge.pyth"))
      QVERIFY2(e.contains("storage data/0 holds 4 bytes, not 1000000000000 x 4"), qPrintable(e));
  }

  // Each legacy storage alone below the file's size, together a thousand times it: refused at
  // the first storage the file cannot hold, before allocating it.
  void legacyStoragesAddUpToTheFileAtMost() {
    std::string pickle = "\x80\x02(";
    for (int k = 0; k < 1000; ++k) pickle += storage(std::to_string(k), 4000);
    pickle += "t.";
    const std::string file = legacyWith(pickle);
    QVERIFY(file.size() > 16000 && file.size() < 100000);
    for (const QString& e : bothLoads(file, "many.pyth"))
      QVERIFY2(e.contains("claims 4000 elements") && e.contains("more than the file holds"),
               qPrintable(e));
  }

  // A zip entry declaring 2 GB over a few bytes of deflate, in the record and in the version
  // record PyTorchStreamReader reads first: refused from the directory, nothing inflated.
  void zipRecordsCannotUnpackPastTheFile() {
    const std::string pickle = "\x80\x02" + tensor("0", std::int64_t{1} << 29, {1}, {1}) + ".";
    const std::string bomb = rawDeflate(QByteArray(4096, '\0'));
    const std::string zip = handZip({{"archive/data.pkl", pickle},
                                     {"archive/data/0", bomb, 8, std::uint64_t{1} << 31},
                                     {"archive/version", "3\n"}});
    const QStringList errors = bothLoads(zip, "bomb.pyth");
    QVERIFY2(
        errors[0].contains("data/0 unpacks to 2147483648 bytes") && errors[0].contains("zip bomb"),
        qPrintable(errors[0]));
    QVERIFY2(errors[1].isEmpty(), qPrintable(errors[1]));  // a structure load reads no storage
    const std::string badVersion = handZip(
        {{"archive/data.pkl", "\x80\x02N."}, {"archive/version", bomb, 8, std::uint64_t{1} << 31}});
    for (const QString& e : bothLoads(badVersion, "version.pyth"))
      QVERIFY2(e.contains("version") && e.contains("2147483648"), qPrintable(e));
  }

  // Two directory entries over the same 300 KB: each record is within the file, both together
  // are not, so the second is refused (a thousand such entries cost a thousand copies).
  void overlappingZipEntriesAreRefused() {
    const std::string pickle =
        "\x80\x02(" + tensor("0", 75000, {75000}, {1}) + tensor("1", 75000, {75000}, {1}) + "t.";
    const std::string zip = handZip({{"archive/data.pkl", pickle},
                                     {"archive/version", "3\n"},
                                     {"archive/data/0", std::string(300000, '\1')},
                                     {"archive/data/1", "", 0, 300000, 2}});
    const QString e = errorOf([&] { checkpoint::loadTorchBytes(zip, "overlap.pyth"); });
    QVERIFY2(e.contains("data/1 unpacks to 300000 bytes"), qPrintable(e));
  }

  // L_k = [L_{k-1}, L_{k-1}], 60 levels in 600 bytes: Python's unpickler shares each L_k, and so
  // does the result here; converting each reference apart was 2^60 visits.
  void sharedObjectsConvertOnceAndStayShared() {
    std::string pickle = "\x80\x02]q\x00"s;
    for (int k = 1; k <= 60; ++k)
      pickle += std::string("0](h") + char(k - 1) + "h" + char(k - 1) + "eq" + char(k);
    pickle += ".";
    c10::IValue v = checkpoint::loadTorchBytes(zipWith(pickle), "laughs.pyth");
    for (int k = 60; k > 0; --k) {
      QVERIFY(v.isList());
      const auto l = v.toList();
      QCOMPARE(l.size(), size_t(2));
      QVERIFY(l.get(0).is(l.get(1)));
      v = l.get(0);
    }
    QVERIFY(v.toList().empty());

    // A tensor saved under two names (tied weights) is one tensor, as in PyTorch.
    const std::string tied =
        "\x80\x02}(" + text("a") + tensor("0", 2, {2}, {1}) + "q\x01" + text("b") + "h\x01u.";
    const float two[2] = {1, 2};
    const auto d =
        checkpoint::loadTorchBytes(
            zipWith(tied, {{"0", std::string(reinterpret_cast<const char*>(two), 8)}}), "tied.pyth")
            .toGenericDict();
    QVERIFY(d.at("a").is(d.at("b")));
    QVERIFY(torch::equal(d.at("b").toTensor(), torch::tensor({1.0f, 2.0f})));
  }

  // _rebuild_from_type_v2 wrapped in itself 100,000 times (7 bytes a level): was a recursion
  // per level and a stack overflow.
  void nestedTypeWrappersAreRefused() {
    const int n = 100000;
    std::string pickle =
        "\x80\x02"
        "ctorch._tensor\n_rebuild_from_type_v2\nq\x00"
        "0"
        "ctorch\nSize\nq\x01"
        "0"
        "h\x00"s;
    for (int k = 0; k < n; ++k) pickle += "(h\x00N"s;
    pickle += "(h\x01N)Nt";
    for (int k = 0; k < n; ++k) pickle += "Nt";
    pickle += "R.";
    const QString e = errorOf([&] { checkpoint::loadTorchBytes(zipWith(pickle), "wrapped.pyth"); });
    QVERIFY2(e.contains("_rebuild_from_type_v2 nested in itself more than 8 deep"), qPrintable(e));
    // once, as torch.save writes it, it still reads
    const std::string once =
        "\x80\x02"
        "ctorch._tensor\n_rebuild_from_type_v2\n(ctorch\nSize\nN)NtR.";
    QVERIFY(checkpoint::loadTorchBytes(zipWith(once), "once.pyth").isTuple());
  }

  // Views: stride 0 over one element (torch.save keeps expand() as it is) reads while small; 10^12
  // elements of it, or sizes whose product passes 2^63, are refused.
  void viewsAreBoundedByTheirStorage() {
    const std::string one("\0\0\x80\x3f", 4);  // 1.0f
    const auto small = checkpoint::loadTorchBytes(
        zipWith("\x80\x02" + tensor("0", 1, {1000}, {0}) + ".", {{"0", one}}), "expand.pyth");
    QVERIFY(torch::equal(small.toTensor(), torch::ones({1000})));
    const QString huge = errorOf([&] {
      checkpoint::loadTorchBytes(
          zipWith("\x80\x02" + tensor("0", 1, {1000000000000}, {0}) + ".", {{"0", one}}),
          "expand.pyth");
    });
    QVERIFY2(huge.contains("view of 1000000000000 elements over a storage of 1") &&
                 huge.contains(".clone()"),
             qPrintable(huge));
    const QString wraps = errorOf([&] {
      checkpoint::loadTorchBytes(
          zipWith("\x80\x02" +
                      tensor("0", 1, {std::int64_t{1} << 32, std::int64_t{1} << 32}, {0, 0}) + ".",
                  {{"0", one}}),
          "wraps.pyth");
    });
    QVERIFY2(wraps.contains("2^63"), qPrintable(wraps));
  }

  // Hosts copying what the memo shares: one 300 KB string encoded a thousand times, one list
  // of 20,000 pairs made into an OrderedDict ten thousand times. Refused by the pickle's budget.
  void hostCopiesCountAgainstThePickle() {
    std::string encode = "\x80\x02" + text(std::string(300000, 'a')) +
                         "q\x00"
                         "0"
                         "c_codecs\nencode\nq\x01"
                         "0"s +
                         text("latin1") +
                         "q\x02"
                         "0](";
    for (int k = 0; k < 1000; ++k) encode += "h\x01h\x00h\x02\x86R"s;
    encode += "e.";
    const QString e1 = errorOf([&] { checkpoint::loadTorchBytes(zipWith(encode), "encode.pyth"); });
    QVERIFY2(e1.contains("bytes of data") && e1.contains("refused"), qPrintable(e1));

    std::string pairs = "\x80\x02](";
    for (int k = 0; k < 20000; ++k) pairs += "NN\x86";
    pairs +=
        "eq\x00"
        "0ccollections\nOrderedDict\nq\x01"
        "0]("s;
    for (int k = 0; k < 10000; ++k) pairs += "h\x01h\x00\x85R"s;
    pairs += "e.";
    const QString e2 = errorOf([&] { checkpoint::loadTorchBytes(zipWith(pairs), "pairs.pyth"); });
    QVERIFY2(e2.contains("container slots") && e2.contains("refused"), qPrintable(e2));
  }

  // One 200 KB key shared by 50,000 dicts: every insertion hashes it (10 GB in all).
  void sharedLongDictKeysAreBounded() {
    std::string pickle = "\x80\x02" + text(std::string(200000, 'k')) +
                         "q\x00"
                         "0]("s;
    for (int k = 0; k < 50000; ++k) pickle += "}h\x00Ns"s;
    pickle += "e.";
    const QString e = errorOf([&] { checkpoint::loadTorchBytes(zipWith(pickle), "keys.pyth"); });
    QVERIFY2(e.contains("dict keys adding up"), qPrintable(e));
    QVERIFY2(e.size() < 1000, "the message does not repeat the key");
  }

  // A 100 KB blob name: libstdc++'s regex recursed per character (a stack overflow) in the
  // Caffe2 name conversion. Refused by the reader and by the conversion itself.
  // A FIFO named like a checkpoint: listed by nobody, and refused unopened by the structure
  // reader the studio calls on its GUI thread (opening it would wait for a writer forever).
  void aFifoNamedLikeACheckpointIsNotOpened() {
    QTemporaryDir dir;
    const fs::path run(dir.path().toStdString());
    fs::create_directories(run / "checkpoints");
    const fs::path fifo = run / "checkpoints" / "checkpoint_epoch_00001.pyth";
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    QVERIFY(runlog::listCheckpointFiles(run.string()).empty());
    const QString error = errorOf([&] { checkpoint::loadTorchFileStructure(fifo.string()); });
    QVERIFY2(error.contains("not a regular file"), qPrintable(error));
  }

  void longCaffe2BlobNamesAreRefused() {
    std::string pkl =
        readAll(std::string(AMPSTUDIO_TEST_DATA_DIR) + "/checkpoints/caffe2_blobs.pkl");
    const std::string name = text("conv1_w");
    QVERIFY(pkl.find(name) != std::string::npos);
    pkl.replace(pkl.find(name), name.size(), text(std::string(100000, 'w')));
    const auto p = tempFile("long.pkl", pkl);
    const QString e = errorOf([&] { checkpoint::loadCaffe2Blobs(p.string()); });
    fs::remove(p);
    QVERIFY2(e.contains("a blob name of 100000 characters") && e.contains("at most 256"),
             qPrintable(e));
    const QString c = errorOf([] { train::convertCaffe2Name(std::string(100000, 'w') + "_b"); });
    QVERIFY2(c.contains("100002 characters") && c.contains("refused before renaming"),
             qPrintable(c));
    QCOMPARE(QString::fromStdString(train::convertCaffe2Name("pred_w")),
             QString("head.projection.weight"));
  }
};

QTEST_APPLESS_MAIN(TestHostileCheckpoints)
#include "tst_hostilecheckpoints.moc"
