#include "checkpoint/TorchFile.h"

#include <caffe2/serialize/inline_container.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "checkpoint/Pickle.h"
#include "checkpoint/TorchHost.h"
#include "util/AtomicFile.h"

namespace amp::checkpoint {
namespace {

using Kind = PyObj::Kind;
using detail::bad;
using detail::toIValue;
using detail::TorchHost;

std::string fileError(const std::string& name, const std::string& why) {
  return name + ": " + why;
}

bool isZip(const std::string& bytes) {
  return bytes.size() >= 4 && bytes.compare(0, 4, "PK\x03\x04", 4) == 0;
}

// numel x element size, or nullopt past 2^63 (a hostile count must not wrap around).
std::optional<std::uint64_t> storageBytes(std::int64_t numel, at::ScalarType dtype) {
  std::int64_t n = 0;
  if (numel < 0 ||
      __builtin_mul_overflow(numel, static_cast<std::int64_t>(c10::elementSize(dtype)), &n))
    return {};
  return static_cast<std::uint64_t>(n);
}

// The sizes a zip's central directory declares, read before PyTorchStreamReader (miniz) is asked
// for an entry: it allocates the declared uncompressed size in full and inflates into it, so a
// 1 KB deflate bomb, an entry declaring 2^40 bytes or a thousand entries over the same bytes
// would cost gigabytes. torch.save stores every record uncompressed and once, so the records a
// load reads add up to at most the zip's own size; loadZip refuses whatever would go past it.
class ZipSizes {
 public:
  using Reader = std::function<std::string(std::uint64_t offset, std::size_t n)>;

  ZipSizes(std::uint64_t archiveSize, const Reader& read) {
    // The end of central directory record, searched from the end as miniz does.
    const std::uint64_t tailSize = std::min<std::uint64_t>(archiveSize, 22 + 65535);
    const std::string tail = read(archiveSize - tailSize, static_cast<std::size_t>(tailSize));
    std::size_t eocd = std::string::npos;
    for (std::size_t k = tail.size() >= 22 ? tail.size() - 22 + 1 : 0; k-- > 0;)
      if (tail.compare(k, 4, "PK\x05\x06", 4) == 0) {
        eocd = k;
        break;
      }
    if (eocd == std::string::npos) damaged("no end of central directory");
    std::uint64_t cdSize = le(tail, eocd + 12, 4), cdOffset = le(tail, eocd + 16, 4);
    if (eocd >= 20 && tail.compare(eocd - 20, 4, "PK\x06\x07", 4) == 0) {  // zip64 (> 4 GB)
      const std::uint64_t at = le(tail, eocd - 20 + 8, 8);
      if (at > archiveSize || archiveSize - at < 56) damaged("a zip64 directory outside the file");
      const std::string z = read(at, 56);
      if (z.compare(0, 4, "PK\x06\x06", 4) != 0) damaged("no zip64 end of central directory");
      cdSize = le(z, 40, 8);
      cdOffset = le(z, 48, 8);
    }
    if (cdOffset > archiveSize || cdSize > archiveSize - cdOffset)
      damaged("a central directory outside the file");
    const std::string cd = read(cdOffset, static_cast<std::size_t>(cdSize));
    for (std::size_t p = 0; p + 46 <= cd.size() && cd.compare(p, 4, "PK\x01\x02", 4) == 0;) {
      const std::size_t nameLen = le(cd, p + 28, 2), extraLen = le(cd, p + 30, 2),
                        commentLen = le(cd, p + 32, 2);
      if (p + 46 + nameLen + extraLen > cd.size()) damaged("a truncated central directory");
      std::uint64_t size = le(cd, p + 24, 4);
      if (size == 0xffffffff) {  // the real size is in the zip64 extra field, first of its values
        for (std::size_t e = p + 46 + nameLen; e + 4 <= p + 46 + nameLen + extraLen;) {
          const std::size_t id = le(cd, e, 2), len = le(cd, e + 2, 2);
          if (id == 1 && len >= 8 && e + 12 <= cd.size()) size = le(cd, e + 4, 8);
          e += 4 + len;
        }
      }
      std::string entry = cd.substr(p + 46, nameLen);
      if (first_.empty()) first_ = entry;
      std::transform(entry.begin(), entry.end(), entry.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      auto& declared = sizes_[entry];
      declared = std::max(declared, size);  // duplicate names: miniz may pick either
      p += 46 + nameLen + extraLen + commentLen;
    }
  }

  /// The size declared for record `r` of the archive (PyTorchStreamReader's name without its
  /// "archive/" folder, which is the first entry's), compared as miniz does (ignoring case).
  std::optional<std::uint64_t> declared(const std::string& r) const {
    std::string full = first_.substr(0, first_.find('/')) + "/" + r;
    std::transform(full.begin(), full.end(), full.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    const auto it = sizes_.find(full);
    if (it == sizes_.end()) return {};
    return it->second;
  }

  /// PyTorchStreamReader reads the version record (".data/version" or "version", "3\n") as it
  /// opens the zip, before loadZip can count it: refused here when it declares more than a few
  /// bytes.
  void checkVersionRecord() const {
    for (const char* r : {".data/version", "version"})
      if (const auto size = declared(r); size && *size > 64)
        bad("the zip's " + std::string(r) + " record unpacks to " + std::to_string(*size) +
            " bytes where torch.save writes a few; refused (a zip bomb or a damaged file)");
  }

 private:
  [[noreturn]] static void damaged(const std::string& why) { bad("a damaged zip (" + why + ")"); }
  static std::uint64_t le(const std::string& s, std::size_t at, int n) {
    if (at + static_cast<std::size_t>(n) > s.size()) damaged("a truncated header");
    std::uint64_t v = 0;
    for (int k = n - 1; k >= 0; --k)
      v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<std::size_t>(k)]);
    return v;
  }

  std::string first_;
  std::unordered_map<std::string, std::uint64_t> sizes_;
};

// Tensors of a structure-only load: shapes, strides and dtypes on the meta device, no data.
torch::Tensor metaStorage(at::ScalarType dtype, std::int64_t numel) {
  return torch::empty({numel}, torch::TensorOptions().dtype(dtype).device(torch::kMeta));
}

template <typename Source>
std::unique_ptr<caffe2::serialize::PyTorchStreamReader> openZip(Source source,
                                                                const std::string& name) {
  try {
    return std::make_unique<caffe2::serialize::PyTorchStreamReader>(source);
  } catch (const c10::Error& e) {
    throw std::runtime_error(fileError(
        name, std::string("a damaged torch.save zip (") + e.what_without_backtrace() + ")"));
  }
}

c10::IValue loadZip(caffe2::serialize::PyTorchStreamReader* zip, const ZipSizes& sizes,
                    std::uint64_t archiveSize, const std::string& name, bool weights) {
  std::uint64_t left = archiveSize;  // what the records read may still add up to (see ZipSizes)
  auto record = [&](const std::string& r) {
    if (!zip->hasRecord(r))
      throw std::runtime_error(
          fileError(name, "the zip has no " + r + " (not a torch.save file?)"));
    const auto declared = sizes.declared(r);
    if (!declared)
      throw std::runtime_error(
          fileError(name, "a damaged zip (its directory does not list " + r + ")"));
    if (*declared > left)
      throw std::runtime_error(
          fileError(name, r + " unpacks to " + std::to_string(*declared) +
                              " bytes, more than the " + std::to_string(left) +
                              " the zip's size leaves; torch.save stores each record once, "
                              "uncompressed: refused (a damaged "
                              "file or a zip bomb; save it again with torch.save)"));
    left -= *declared;
    try {
      auto [ptr, size] = zip->getRecord(r);
      if (size > *declared)
        throw std::runtime_error(
            fileError(name, "a damaged zip (" + r + " is larger than declared)"));
      return std::make_pair(std::move(ptr), size);
    } catch (const c10::Error& e) {
      throw std::runtime_error(
          fileError(name, "cannot read " + r + " (" + e.what_without_backtrace() + ")"));
    }
  };
  std::string pickle;
  {
    const auto [ptr, size] = record("data.pkl");
    pickle.assign(static_cast<const char*>(ptr.get()), size);
  }
  TorchHost host;
  host.storage = [&](const std::string& key, at::ScalarType dtype, std::int64_t numel) {
    // Checked against the directory before anything is read or allocated, in both loads: a
    // structure load must not report 10^12 elements that the file does not hold.
    const auto want = storageBytes(numel, dtype);
    const auto declared = sizes.declared("data/" + key);
    if (!declared) bad("storage data/" + key + " is used but not in the zip");
    if (!want || *want != *declared)
      bad("storage data/" + key + " holds " + std::to_string(*declared) + " bytes, not " +
          std::to_string(numel) + " x " + std::to_string(c10::elementSize(dtype)));
    if (!weights) return metaStorage(dtype, numel);
    const auto [ptr, size] = record("data/" + key);
    if (size != *want)
      bad("storage data/" + key + " holds " + std::to_string(size) + " bytes, not " +
          std::to_string(*want));
    auto t = torch::empty({numel}, torch::TensorOptions().dtype(dtype));
    if (size) std::memcpy(t.data_ptr(), ptr.get(), size);
    return t;
  };
  std::size_t pos = 0;
  try {
    return toIValue(unpickle(pickle, pos, host), pickle.size());
  } catch (const PickleError& e) {
    throw std::runtime_error(fileError(name, std::string("data.pkl: ") + e.what()));
  }
}

// The pre-1.6 format: magic number, protocol version, sys info, the object, the storage keys,
// then each storage as its element count (int64) and its bytes, in the order of the keys.
c10::IValue loadLegacy(const std::string& bytes, const std::string& name, bool weights) {
  std::size_t pos = 0;
  PickleHost plain;  // the header pickles hold plain data only
  try {
    const PyRef magic = unpickle(bytes, pos, plain);
    static const std::string kMagic("\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19",
                                    10);  // 0x1950a86a20f9469cfc6c
    if (magic->kind != Kind::BigInt || magic->s != kMagic)
      bad("not a torch.save file (no PyTorch magic number)");
    const PyRef protocol = unpickle(bytes, pos, plain);
    if (protocol->kind != Kind::Int || protocol->i != 1001)
      bad("torch.save protocol " +
          (protocol->kind == Kind::Int ? std::to_string(protocol->i) : protocol->describe()) +
          " (1001 expected)");
    const PyRef sys = unpickle(bytes, pos, plain);
    if (const PyRef little = sys->kind == Kind::Dict ? sys->get("little_endian") : nullptr;
        little && little->kind == Kind::Bool && !little->b)
      bad("written on a big-endian machine");
  } catch (const PickleError& e) {
    throw std::runtime_error(
        fileError(name, std::string("not a checkpoint PyTorch wrote (") + e.what() + ")"));
  }
  TorchHost host;
  std::map<std::string, torch::Tensor> pending;
  // The storages follow the pickle in the file, so together they hold at most the file's bytes:
  // checked before each allocation (each one alone below the file's size was not enough: a
  // thousand storages each claiming the whole file cost a thousand times its size).
  std::uint64_t left = bytes.size();
  host.storage = [&](const std::string& key, at::ScalarType dtype, std::int64_t numel) {
    const auto want = storageBytes(numel, dtype);
    if (!want || *want > left)
      bad("storage " + key + " claims " + std::to_string(numel) + " elements of " +
          std::to_string(c10::elementSize(dtype)) + " bytes, more than the file holds (" +
          std::to_string(left) + " bytes left of " + std::to_string(bytes.size()) + ")");
    left -= *want;
    if (!weights) return metaStorage(dtype, numel);
    auto t = torch::empty({numel}, torch::TensorOptions().dtype(dtype));
    pending[key] = t;
    return t;
  };
  PyRef object;
  try {
    const std::size_t start = pos;
    object = unpickle(bytes, pos, host);
    if (!weights) return toIValue(object, pos - start);
    const PyRef keys = unpickle(bytes, pos, plain);
    if (keys->kind != Kind::List) bad("the storage key list is a " + keys->describe());
    for (const auto& k : keys->items) {
      if (!k->isStrLike()) bad("a storage key that is not a string");
      const auto it = pending.find(k->s);
      if (it == pending.end()) bad("storage " + k->s + " is listed but no tensor uses it");
      torch::Tensor& t = it->second;
      if (bytes.size() - pos < 8) bad("truncated: storage " + k->s + " is missing");
      std::int64_t count = 0;
      std::memcpy(&count, bytes.data() + pos, 8);
      pos += 8;
      const auto size = static_cast<std::size_t>(t.numel()) * c10::elementSize(t.scalar_type());
      if (count != t.numel())
        bad("storage " + k->s + " holds " + std::to_string(count) + " elements, " +
            std::to_string(t.numel()) + " expected");
      if (bytes.size() - pos < size) bad("truncated: storage " + k->s + " is cut short");
      std::memcpy(t.data_ptr(), bytes.data() + pos, size);
      pos += size;
      pending.erase(it);
    }
    if (!pending.empty()) bad("storage " + pending.begin()->first + " is used but not in the file");
    return toIValue(object, bytes.size());
  } catch (const PickleError& e) {
    throw std::runtime_error(fileError(name, e.what()));
  }
}

void refuseTar(const std::string& bytes, const std::string& name) {
  if (bytes.size() > 262 && bytes.compare(257, 5, "ustar") == 0)
    throw std::runtime_error(fileError(
        name, "a tar checkpoint of PyTorch < 0.4; load and save it again with a newer PyTorch"));
}

// Runs a load so that nothing but std::runtime_error naming the file leaves it: LibTorch's
// c10::Error, std::bad_alloc (an allocation no check foresaw) and the standard library's
// logic errors included, so the caller can report it and carry on.
template <typename F>
auto guarded(const std::string& name, F&& load) -> decltype(load()) {
  try {
    return load();
  } catch (const c10::Error& e) {  // LibTorch refusing something the checks let through
    throw std::runtime_error(
        fileError(name, std::string("damaged checkpoint (") + e.what_without_backtrace() + ")"));
  } catch (const PickleError& e) {  // a check outside the loaders' own handlers (ZipSizes)
    throw std::runtime_error(fileError(name, e.what()));
  } catch (const std::runtime_error&) {
    throw;  // already names the file
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(
        fileError(name, "reading it needs more memory than this machine has; refused"));
  } catch (const std::exception& e) {
    throw std::runtime_error(fileError(name, std::string("damaged checkpoint (") + e.what() + ")"));
  }
}

}  // namespace

c10::IValue loadTorchBytes(const std::string& bytes, const std::string& name) {
  return guarded(name, [&] {
    if (isZip(bytes)) {
      const ZipSizes sizes(bytes.size(),
                           [&](std::uint64_t at, std::size_t n) { return bytes.substr(at, n); });
      sizes.checkVersionRecord();
      std::istringstream in(bytes);
      return loadZip(openZip(&in, name).get(), sizes, bytes.size(), name, true);
    }
    refuseTar(bytes, name);
    return loadLegacy(bytes, name, true);
  });
}

c10::IValue loadTorchFileStructure(const std::string& path) {
  std::string head, err;
  std::uint64_t size = 0;
  {
    // A FIFO named like a checkpoint would block the open (the studio's GUI thread reads these).
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
      throw std::runtime_error(path +
                               ": not a regular file; a checkpoint is a file torch.save wrote");
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw std::runtime_error(path + ": cannot open it");
    size = static_cast<std::uint64_t>(in.tellg());
    in.seekg(0);
    head.resize(4);
    in.read(head.data(), 4);
    head.resize(static_cast<std::size_t>(in.gcount()));
  }
  return guarded(path, [&] {
    if (isZip(head)) {  // reads the directory and data.pkl only
      std::ifstream in(path, std::ios::binary);
      const ZipSizes sizes(size, [&](std::uint64_t at, std::size_t n) {
        std::string out(n, '\0');
        in.seekg(static_cast<std::streamoff>(at));
        in.read(out.data(), static_cast<std::streamsize>(n));
        if (static_cast<std::size_t>(in.gcount()) != n) bad("a damaged zip (cut short)");
        return out;
      });
      sizes.checkVersionRecord();
      return loadZip(openZip(path, path).get(), sizes, size, path, false);
    }
    std::string bytes;
    if (!util::readFile(path, bytes, &err, util::kNoReadCap)) throw std::runtime_error(err);
    refuseTar(bytes, path);
    return loadLegacy(bytes, path, false);
  });
}

c10::IValue loadTorchFile(const std::string& path) {
  std::string bytes, err;
  if (!util::readFile(path, bytes, &err, util::kNoReadCap)) throw std::runtime_error(err);
  return loadTorchBytes(bytes, path);
}

std::vector<std::pair<std::string, torch::Tensor>> loadCaffe2Blobs(const std::string& path) {
  std::string bytes, err;
  if (!util::readFile(path, bytes, &err, util::kNoReadCap)) throw std::runtime_error(err);
  return guarded(path, [&] {
    TorchHost host;
    host.storage = [](const std::string&, at::ScalarType, std::int64_t) -> torch::Tensor {
      bad("a Caffe2 .pkl with a tensor storage (is it a PyTorch checkpoint? set "
          "TRAIN.CHECKPOINT_TYPE pytorch)");
    };
    PyRef top;
    try {
      std::size_t pos = 0;
      top = unpickle(bytes, pos, host);
    } catch (const PickleError& e) {
      throw std::runtime_error(
          fileError(path, std::string("not a Caffe2 weights pickle (") + e.what() + ")"));
    } catch (const c10::Error& e) {
      throw std::runtime_error(fileError(
          path, std::string("damaged Caffe2 weights pickle (") + e.what_without_backtrace() + ")"));
    }
    if (top->kind != Kind::Dict)
      throw std::runtime_error(
          fileError(path, "a Caffe2 weights pickle holds a dict; this one a " + top->describe()));
    PyRef blobs = top->get("blobs");
    if (!blobs) blobs = top;
    if (blobs->kind != Kind::Dict)
      throw std::runtime_error(fileError(path, "\"blobs\" is not a dict"));
    std::vector<std::pair<std::string, torch::Tensor>> out;
    std::unordered_map<std::string, std::size_t>
        at;  // a key repeated: the last value, the first place, as a dict
    for (const auto& [k, v] : blobs->dict) {
      if (!k->isStrLike() || v->kind != Kind::Object || v->name != "numpy.ndarray") continue;
      if (k->s.size() > kMaxCaffe2BlobName)
        throw std::runtime_error(fileError(
            path, "a blob name of " + std::to_string(k->s.size()) + " characters (" +
                      k->s.substr(0, 40) + "...); Caffe2 names are at most " +
                      std::to_string(kMaxCaffe2BlobName) + ": not Caffe2 weights, refused"));
      const auto* t = std::any_cast<torch::Tensor>(&v->payload);
      if (!t || !t->defined())
        throw std::runtime_error(fileError(path, "array " + k->s + " has no data"));
      if (const auto [it, added] = at.emplace(k->s, out.size()); !added)
        out[it->second].second = *t;
      else
        out.emplace_back(k->s, *t);
    }
    return out;
  });
}

}  // namespace amp::checkpoint
