#include "checkpoint/TorchFile.h"

#include <caffe2/serialize/inline_container.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "checkpoint/Pickle.h"
#include "util/AtomicFile.h"

namespace amp::checkpoint {
namespace {

using Kind = PyObj::Kind;

[[noreturn]] void bad(const std::string& why) { throw PickleError(why); }

std::int64_t asInt(const PyRef& v, const char* what) {
  if (v->kind == Kind::Int) return v->i;
  if (v->kind == Kind::Bool) return v->b ? 1 : 0;
  bad(std::string(what) + " is a " + v->describe() + ", not an int");
}

std::vector<std::int64_t> intTuple(const PyRef& v, const char* what) {
  if (v->kind != Kind::Tuple && v->kind != Kind::List) bad(std::string(what) + " is a " + v->describe() + ", not a tuple");
  std::vector<std::int64_t> out;
  for (const auto& x : v->items) out.push_back(asInt(x, what));
  return out;
}

const std::vector<PyRef>& args(const PyRef& t, std::size_t min, std::size_t max, const std::string& fn) {
  if (t->items.size() < min || t->items.size() > max)
    bad(fn + " called with " + std::to_string(t->items.size()) + " arguments");
  return t->items;
}

// UTF-8 text whose code points are all below 256 -> those bytes (Python's str.encode("latin1")).
std::string latin1(const std::string& utf8) {
  std::string out;
  for (std::size_t k = 0; k < utf8.size(); ++k) {
    const auto c = static_cast<unsigned char>(utf8[k]);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if ((c & 0xe0) == 0xc0 && k + 1 < utf8.size() && c <= 0xc3) {
      out += static_cast<char>(((c & 0x1f) << 6) | (static_cast<unsigned char>(utf8[k + 1]) & 0x3f));
      ++k;
    } else {
      bad("_codecs.encode: text outside latin-1");
    }
  }
  return out;
}

struct StorageType {
  const char* name;
  at::ScalarType dtype;
};
constexpr StorageType kStorageTypes[] = {
    {"FloatStorage", at::kFloat},   {"DoubleStorage", at::kDouble},    {"HalfStorage", at::kHalf},
    {"BFloat16Storage", at::kBFloat16}, {"LongStorage", at::kLong},   {"IntStorage", at::kInt},
    {"ShortStorage", at::kShort},   {"CharStorage", at::kChar},        {"ByteStorage", at::kByte},
    {"BoolStorage", at::kBool},     {"ComplexFloatStorage", at::kComplexFloat},
    {"ComplexDoubleStorage", at::kComplexDouble}, {"UntypedStorage", at::kByte},
};

// A NumPy dtype as far as array reconstruction needs it.
struct NpDtype {
  char kind = 'f';  // f i u b
  int size = 4;
  char order = '<';
  at::ScalarType scalar() const {
    switch (kind) {
      case 'f':
        if (size == 2) return at::kHalf;
        if (size == 4) return at::kFloat;
        if (size == 8) return at::kDouble;
        break;
      case 'i':
        if (size == 1) return at::kChar;
        if (size == 2) return at::kShort;
        if (size == 4) return at::kInt;
        if (size == 8) return at::kLong;
        break;
      case 'u':
        if (size == 1) return at::kByte;
        break;
      case 'b':
        if (size == 1) return at::kBool;
        break;
      default: break;
    }
    bad(std::string("NumPy dtype ") + kind + std::to_string(size) + " has no tensor type");
  }
};

torch::Tensor tensorFromBytes(const std::string& raw, at::ScalarType dtype, std::vector<std::int64_t> shape, bool swap) {
  std::int64_t n = 1;
  for (auto s : shape) {
    if (s < 0) bad("negative array dimension");
    n *= s;
  }
  const auto elem = static_cast<std::int64_t>(c10::elementSize(dtype));
  if (static_cast<std::int64_t>(raw.size()) != n * elem)
    bad("array data holds " + std::to_string(raw.size()) + " bytes for " + std::to_string(n) + " elements of " +
        std::to_string(elem) + " bytes");
  auto t = torch::empty(shape, torch::TensorOptions().dtype(dtype));
  std::memcpy(t.data_ptr(), raw.data(), raw.size());
  if (swap && elem > 1) {
    auto* p = static_cast<unsigned char*>(t.data_ptr());
    for (std::int64_t k = 0; k < n; ++k) std::reverse(p + k * elem, p + (k + 1) * elem);
  }
  return t;
}

// The globals torch.save, OrderedDict and NumPy arrays use, and nothing else.
class TorchHost : public PickleHost {
 public:
  // key, dtype, element count -> a 1-D tensor over the storage's bytes
  std::function<torch::Tensor(const std::string&, at::ScalarType, std::int64_t)> storage;

  PyRef global(const std::string& module, const std::string& name) override {
    static const std::map<std::string, std::vector<std::string>> allowed = {
        {"collections", {"OrderedDict"}},
        {"torch._utils",
         {"_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_parameter", "_rebuild_parameter_with_state"}},
        {"torch._tensor", {"_rebuild_from_type", "_rebuild_from_type_v2"}},
        {"torch.nn.parameter", {"Parameter"}},
        {"torch", {"Tensor", "Size"}},
        {"torch.jit._pickle",
         {"build_intlist", "build_doublelist", "build_boollist", "build_tensorlist", "restore_type_tag"}},
        {"_codecs", {"encode"}},
        {"numpy.core.multiarray", {"_reconstruct", "scalar"}},
        {"numpy._core.multiarray", {"_reconstruct", "scalar"}},
        {"numpy", {"ndarray", "dtype"}},
    };
    if (module == "torch" || module == "torch.cuda")
      for (const auto& st : kStorageTypes)
        if (name == st.name) return PyObj::global("torch", name);
    if (module == "torch.storage" && name == "UntypedStorage") return PyObj::global("torch", name);
    const auto it = allowed.find(module);
    if (it != allowed.end())
      for (const auto& n : it->second)
        if (n == name) return PyObj::global(module, name);
    if (module.rfind("torch.nn.modules", 0) == 0 || module.rfind("slowfast", 0) == 0)
      bad("refers to " + module + "." + name + ": the file holds a pickled model object, not weights; save its "
          "state_dict() with torch.save instead");
    return PickleHost::global(module, name);
  }

  PyRef call(const PyRef& fn, const PyRef& a) override {
    if (fn->kind != Kind::Global) bad("calls a " + fn->describe() + ", which is not callable here");
    const std::string f = fn->s + "." + fn->name;
    if (f == "collections.OrderedDict") {
      auto d = PyObj::dictionary();
      if (!a->items.empty()) {
        for (const auto& pair : a->items[0]->items) {
          if (pair->items.size() != 2) bad("OrderedDict built from something other than pairs");
          d->dict.emplace_back(pair->items[0], pair->items[1]);
        }
      }
      return d;
    }
    if (f == "torch._utils._rebuild_tensor_v2" || f == "torch._utils._rebuild_tensor") {
      const auto& v = args(a, 4, 7, f);
      return rebuildTensor(v[0], asInt(v[1], "storage offset"), intTuple(v[2], "size"), intTuple(v[3], "stride"));
    }
    if (f == "torch._utils._rebuild_parameter" || f == "torch._utils._rebuild_parameter_with_state" ||
        f == "torch.nn.parameter.Parameter") {
      const auto& v = args(a, 1, 4, f);
      tensorOf(v[0], f);
      return v[0];
    }
    if (f == "torch._tensor._rebuild_from_type_v2" || f == "torch._tensor._rebuild_from_type") {
      const auto& v = args(a, 3, 4, f);
      if (v[2]->kind != Kind::Tuple) bad(f + ": arguments are not a tuple");
      return call(v[0], v[2]);  // the tensor's Python subclass and attributes are not kept
    }
    if (f == "torch.Size") {
      const auto& v = args(a, 0, 1, f);
      return v.empty() ? PyObj::tuple({}) : PyObj::tuple(v[0]->items);
    }
    if (fn->s == "torch.jit._pickle") {
      const auto& v = args(a, 1, 2, f);
      return v[0];
    }
    if (f == "_codecs.encode") {
      const auto& v = args(a, 1, 2, f);
      if (v[0]->kind != Kind::Str) bad("_codecs.encode of a " + v[0]->describe());
      if (v.size() == 2 && v[1]->s != "latin1" && v[1]->s != "latin-1") bad("_codecs.encode to " + v[1]->s);
      return PyObj::bytes(latin1(v[0]->s));
    }
    if (fn->name == "_reconstruct") {  // numpy: an empty array that BUILD fills
      return PyObj::object("numpy.ndarray", torch::Tensor());
    }
    if (f == "numpy.dtype") {
      const auto& v = args(a, 1, 3, f);
      if (!v[0]->isStrLike() || v[0]->s.size() < 2) bad("numpy.dtype of " + v[0]->describe());
      NpDtype dt;
      dt.kind = v[0]->s[0];
      try {
        dt.size = std::stoi(v[0]->s.substr(1));
      } catch (const std::exception&) {
        bad("NumPy dtype '" + v[0]->s + "' is not an array of numbers");
      }
      return PyObj::object("numpy.dtype", dt);
    }
    if (fn->name == "scalar") {  // numpy.core.multiarray.scalar(dtype, bytes)
      const auto& v = args(a, 2, 2, f);
      const NpDtype dt = dtypeOf(v[0]);
      const auto t = tensorFromBytes(v[1]->s, dt.scalar(), {}, dt.order == '>');
      if (t.is_floating_point()) return PyObj::real(t.item<double>());
      return PyObj::integer(t.item<std::int64_t>());
    }
    bad("calls " + f + ", which is not allowed here");
  }

  void build(const PyRef& obj, const PyRef& state) override {
    if (obj->kind == Kind::Dict) {  // an OrderedDict's attributes: _metadata of a state_dict
      obj->state = state;
      return;
    }
    if (obj->kind == Kind::Object && obj->name == "numpy.dtype") {
      // (version, byte order, subarray, names, fields, elsize, alignment, flags)
      if (state->kind != Kind::Tuple || state->items.size() < 2 || !state->items[1]->isStrLike())
        bad("unexpected numpy.dtype state");
      auto dt = std::any_cast<NpDtype>(obj->payload);
      if (!state->items[1]->s.empty()) dt.order = state->items[1]->s[0];
      if (state->items.size() > 3 && state->items[3]->kind != Kind::None) bad("structured NumPy arrays are not weights");
      obj->payload = dt;
      return;
    }
    if (obj->kind == Kind::Object && obj->name == "numpy.ndarray") {
      // (version, shape, dtype, is_fortran, raw data)
      if (state->kind != Kind::Tuple || state->items.size() != 5) bad("unexpected numpy.ndarray state");
      const auto shape = intTuple(state->items[1], "array shape");
      const NpDtype dt = dtypeOf(state->items[2]);
      const bool fortran = state->items[3]->kind == Kind::Bool ? state->items[3]->b : asInt(state->items[3], "is_fortran") != 0;
      const auto& raw = state->items[4];
      if (!raw->isStrLike()) bad("object arrays (dtype O) are not weights");
      const std::string bytes = raw->kind == Kind::Str ? latin1(raw->s) : raw->s;
      if (!fortran) {
        obj->payload = tensorFromBytes(bytes, dt.scalar(), shape, dt.order == '>');
      } else {
        std::vector<std::int64_t> rev(shape.rbegin(), shape.rend());
        std::vector<std::int64_t> perm;
        for (auto k = static_cast<std::int64_t>(shape.size()); k-- > 0;) perm.push_back(k);
        obj->payload = tensorFromBytes(bytes, dt.scalar(), rev, dt.order == '>').permute(perm).contiguous();
      }
      return;
    }
    if (obj->kind == Kind::Object && obj->name == "tensor") return;  // a Parameter's Python attributes
    PickleHost::build(obj, state);
  }

  PyRef persistentLoad(const PyRef& pid) override {
    // ('storage', storage type, key, location, element count[, view metadata])
    if (pid->kind != Kind::Tuple || pid->items.size() < 5 || !pid->items[0]->isStrLike() || pid->items[0]->s != "storage")
      bad("a persistent reference that is not a tensor storage");
    const auto& type = pid->items[1];
    if (type->kind != Kind::Global) bad("a storage of unknown type");
    at::ScalarType dtype = at::kByte;
    bool known = false;
    for (const auto& st : kStorageTypes)
      if (type->name == st.name) dtype = st.dtype, known = true;
    if (!known) bad("a storage of type " + type->describe());
    if (!pid->items[2]->isStrLike()) bad("a storage key that is not a string");
    const std::string key = pid->items[2]->s;
    const std::int64_t numel = asInt(pid->items[4], "storage size");
    if (numel < 0) bad("negative storage size");
    auto it = storages_.find(key);
    if (it == storages_.end()) it = storages_.emplace(key, storage(key, dtype, numel)).first;
    torch::Tensor flat = it->second;
    if (flat.scalar_type() != dtype) bad("storage " + key + " is used with two types");
    if (pid->items.size() > 5 && pid->items[5]->kind == Kind::Tuple) {  // legacy view: (view key, offset, size)
      const auto& view = pid->items[5]->items;
      if (view.size() != 3) bad("malformed storage view");
      const auto offset = asInt(view[1], "view offset"), size = asInt(view[2], "view size");
      if (offset < 0 || size < 0 || offset + size > flat.numel()) bad("a storage view outside its storage");
      flat = flat.narrow(0, offset, size);
    }
    return PyObj::object("storage", flat);
  }

  std::vector<std::string> storageKeys() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : storages_) out.push_back(k);
    return out;
  }

 private:
  static const torch::Tensor& tensorOf(const PyRef& v, const std::string& where) {
    if (v->kind != Kind::Object || v->name != "tensor") bad(where + ": expected a tensor, got a " + v->describe());
    return *std::any_cast<torch::Tensor>(&v->payload);
  }
  static NpDtype dtypeOf(const PyRef& v) {
    if (v->kind != Kind::Object || v->name != "numpy.dtype") bad("expected a numpy.dtype, got a " + v->describe());
    return std::any_cast<NpDtype>(v->payload);
  }
  static PyRef rebuildTensor(const PyRef& st, std::int64_t offset, const std::vector<std::int64_t>& size,
                             const std::vector<std::int64_t>& stride) {
    if (st->kind != Kind::Object || st->name != "storage") bad("a tensor rebuilt from a " + st->describe());
    const auto& flat = *std::any_cast<torch::Tensor>(&st->payload);
    if (size.size() != stride.size()) bad("a tensor with " + std::to_string(size.size()) + " sizes and " +
                                          std::to_string(stride.size()) + " strides");
    std::int64_t last = offset;
    bool empty = false;
    for (std::size_t k = 0; k < size.size(); ++k) {
      if (size[k] < 0 || stride[k] < 0) bad("a tensor with a negative size or stride");
      if (size[k] == 0) empty = true;
      last += (size[k] - 1) * stride[k];
    }
    if (offset < 0 || (!empty && last >= flat.numel()))
      bad("a tensor reaching element " + std::to_string(last) + " of a storage of " + std::to_string(flat.numel()));
    if (empty) return PyObj::object("tensor", torch::empty(size, flat.options()));
    return PyObj::object("tensor", flat.as_strided(size, stride, flat.storage_offset() + offset));  // offsets are absolute
  }

  std::map<std::string, torch::Tensor> storages_;
};

c10::IValue toIValue(const PyRef& v, const std::string& where, int depth = 0);

c10::IValue dictToIValue(const PyRef& v, const std::string& where, int depth) {
  bool strKeys = true, intKeys = true;
  for (const auto& [k, x] : v->dict) {
    strKeys = strKeys && k->isStrLike();
    intKeys = intKeys && k->kind == Kind::Int;
  }
  if (!strKeys && !intKeys) bad(where + ": a dict whose keys are neither all strings nor all integers");
  const c10::TypePtr keyType = strKeys ? c10::TypePtr(c10::StringType::get()) : c10::TypePtr(c10::IntType::get());
  c10::impl::GenericDict d(keyType, c10::AnyType::get());
  for (const auto& [k, x] : v->dict) {
    const c10::IValue key = strKeys ? c10::IValue(k->s) : c10::IValue(k->i);
    d.insert_or_assign(key, toIValue(x, where + "[" + (strKeys ? k->s : std::to_string(k->i)) + "]", depth + 1));
  }
  return d;
}

c10::IValue toIValue(const PyRef& v, const std::string& where, int depth) {
  if (depth > 200) bad(where + ": nested more than 200 deep (a list that contains itself?)");
  switch (v->kind) {
    case Kind::None: return {};
    case Kind::Bool: return v->b;
    case Kind::Int: return v->i;
    case Kind::BigInt: bad(where + ": an integer wider than 64 bits");
    case Kind::Float: return v->f;
    case Kind::Str:
    case Kind::Bytes: return v->s;
    case Kind::List: {
      c10::impl::GenericList l(c10::AnyType::get());
      for (std::size_t k = 0; k < v->items.size(); ++k) l.push_back(toIValue(v->items[k], where + "[" + std::to_string(k) + "]", depth + 1));
      return l;
    }
    case Kind::Tuple: {
      std::vector<c10::IValue> items;
      for (std::size_t k = 0; k < v->items.size(); ++k) items.push_back(toIValue(v->items[k], where + "[" + std::to_string(k) + "]", depth + 1));
      return c10::ivalue::Tuple::create(std::move(items));
    }
    case Kind::Dict: return dictToIValue(v, where, depth);
    case Kind::Global: return v->s + "." + v->name;
    case Kind::Object:
      if (const auto* t = std::any_cast<torch::Tensor>(&v->payload); t && t->defined()) return *t;
      bad(where + ": a " + v->name + " object");
  }
  return {};
}

std::string fileError(const std::string& name, const std::string& why) { return name + ": " + why; }

bool isZip(const std::string& bytes) { return bytes.size() >= 4 && bytes.compare(0, 4, "PK\x03\x04", 4) == 0; }

// Tensors of a structure-only load: shapes, strides and dtypes on the meta device, no data.
torch::Tensor metaStorage(at::ScalarType dtype, std::int64_t numel) {
  return torch::empty({numel}, torch::TensorOptions().dtype(dtype).device(torch::kMeta));
}

template <typename Source>
std::unique_ptr<caffe2::serialize::PyTorchStreamReader> openZip(Source source, const std::string& name) {
  try {
    return std::make_unique<caffe2::serialize::PyTorchStreamReader>(source);
  } catch (const c10::Error& e) {
    throw std::runtime_error(fileError(name, std::string("a damaged torch.save zip (") + e.what_without_backtrace() + ")"));
  }
}

c10::IValue loadZip(caffe2::serialize::PyTorchStreamReader* zip, const std::string& name, bool weights) {
  auto record = [&](const std::string& r) {
    if (!zip->hasRecord(r)) throw std::runtime_error(fileError(name, "the zip has no " + r + " (not a torch.save file?)"));
    try {
      auto [ptr, size] = zip->getRecord(r);
      return std::string(static_cast<const char*>(ptr.get()), size);
    } catch (const c10::Error& e) {
      throw std::runtime_error(fileError(name, "cannot read " + r + " (" + e.what_without_backtrace() + ")"));
    }
  };
  const std::string pickle = record("data.pkl");
  TorchHost host;
  host.storage = [&](const std::string& key, at::ScalarType dtype, std::int64_t numel) {
    if (!weights) return metaStorage(dtype, numel);
    const std::string raw = record("data/" + key);
    const auto elem = static_cast<std::int64_t>(c10::elementSize(dtype));
    if (static_cast<std::int64_t>(raw.size()) != numel * elem)
      bad("storage data/" + key + " holds " + std::to_string(raw.size()) + " bytes, not " + std::to_string(numel) + " x " +
          std::to_string(elem));
    return tensorFromBytes(raw, dtype, {numel}, false);
  };
  std::size_t pos = 0;
  try {
    return toIValue(unpickle(pickle, pos, host), "checkpoint");
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
    static const std::string kMagic("\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 10);  // 0x1950a86a20f9469cfc6c
    if (magic->kind != Kind::BigInt || magic->s != kMagic) bad("not a torch.save file (no PyTorch magic number)");
    const PyRef protocol = unpickle(bytes, pos, plain);
    if (protocol->kind != Kind::Int || protocol->i != 1001)
      bad("torch.save protocol " + (protocol->kind == Kind::Int ? std::to_string(protocol->i) : protocol->describe()) +
          " (1001 expected)");
    const PyRef sys = unpickle(bytes, pos, plain);
    if (const PyRef little = sys->kind == Kind::Dict ? sys->get("little_endian") : nullptr;
        little && little->kind == Kind::Bool && !little->b)
      bad("written on a big-endian machine");
  } catch (const PickleError& e) {
    throw std::runtime_error(fileError(name, std::string("not a checkpoint PyTorch wrote (") + e.what() + ")"));
  }
  TorchHost host;
  std::map<std::string, torch::Tensor> pending;
  host.storage = [&](const std::string& key, at::ScalarType dtype, std::int64_t numel) {
    if (!weights) return metaStorage(dtype, numel);
    if (static_cast<std::uint64_t>(numel) > bytes.size() / c10::elementSize(dtype))
      bad("storage " + key + " claims " + std::to_string(numel) + " elements, more than the file holds");
    auto t = torch::empty({numel}, torch::TensorOptions().dtype(dtype));
    pending[key] = t;
    return t;
  };
  PyRef object;
  try {
    object = unpickle(bytes, pos, host);
    if (!weights) return toIValue(object, "checkpoint");
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
      if (count != t.numel()) bad("storage " + k->s + " holds " + std::to_string(count) + " elements, " +
                                  std::to_string(t.numel()) + " expected");
      if (bytes.size() - pos < size) bad("truncated: storage " + k->s + " is cut short");
      std::memcpy(t.data_ptr(), bytes.data() + pos, size);
      pos += size;
      pending.erase(it);
    }
    if (!pending.empty()) bad("storage " + pending.begin()->first + " is used but not in the file");
  } catch (const PickleError& e) {
    throw std::runtime_error(fileError(name, e.what()));
  }
  try {
    return toIValue(object, "checkpoint");
  } catch (const PickleError& e) {
    throw std::runtime_error(fileError(name, e.what()));
  }
}

void refuseTar(const std::string& bytes, const std::string& name) {
  if (bytes.size() > 262 && bytes.compare(257, 5, "ustar") == 0)
    throw std::runtime_error(fileError(name, "a tar checkpoint of PyTorch < 0.4; load and save it again with a newer PyTorch"));
}

}  // namespace

c10::IValue loadTorchBytes(const std::string& bytes, const std::string& name) {
  try {
    if (isZip(bytes)) {
      std::istringstream in(bytes);
      return loadZip(openZip(&in, name).get(), name, true);
    }
    refuseTar(bytes, name);
    return loadLegacy(bytes, name, true);
  } catch (const c10::Error& e) {  // LibTorch refusing something the checks above let through
    throw std::runtime_error(fileError(name, std::string("damaged checkpoint (") + e.what_without_backtrace() + ")"));
  }
}

c10::IValue loadTorchFileStructure(const std::string& path) {
  std::string head, err;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open it");
    head.resize(4);
    in.read(head.data(), 4);
    head.resize(static_cast<std::size_t>(in.gcount()));
  }
  try {
    if (isZip(head)) return loadZip(openZip(path, path).get(), path, false);  // reads data.pkl only
    std::string bytes;
    if (!util::readFile(path, bytes, &err)) throw std::runtime_error(err);
    refuseTar(bytes, path);
    return loadLegacy(bytes, path, false);
  } catch (const c10::Error& e) {
    throw std::runtime_error(fileError(path, std::string("damaged checkpoint (") + e.what_without_backtrace() + ")"));
  }
}

c10::IValue loadTorchFile(const std::string& path) {
  std::string bytes, err;
  if (!util::readFile(path, bytes, &err)) throw std::runtime_error(err);
  return loadTorchBytes(bytes, path);
}

std::vector<std::pair<std::string, torch::Tensor>> loadCaffe2Blobs(const std::string& path) {
  std::string bytes, err;
  if (!util::readFile(path, bytes, &err)) throw std::runtime_error(err);
  TorchHost host;
  host.storage = [](const std::string&, at::ScalarType, std::int64_t) -> torch::Tensor {
    bad("a Caffe2 .pkl with a tensor storage (is it a PyTorch checkpoint? set TRAIN.CHECKPOINT_TYPE pytorch)");
  };
  PyRef top;
  try {
    std::size_t pos = 0;
    top = unpickle(bytes, pos, host);
  } catch (const PickleError& e) {
    throw std::runtime_error(fileError(path, std::string("not a Caffe2 weights pickle (") + e.what() + ")"));
  } catch (const c10::Error& e) {
    throw std::runtime_error(fileError(path, std::string("damaged Caffe2 weights pickle (") + e.what_without_backtrace() + ")"));
  }
  if (top->kind != Kind::Dict) throw std::runtime_error(fileError(path, "a Caffe2 weights pickle holds a dict; this one a " + top->describe()));
  PyRef blobs = top->get("blobs");
  if (!blobs) blobs = top;
  if (blobs->kind != Kind::Dict) throw std::runtime_error(fileError(path, "\"blobs\" is not a dict"));
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& [k, v] : blobs->dict) {
    if (!k->isStrLike() || v->kind != Kind::Object || v->name != "numpy.ndarray") continue;
    const auto* t = std::any_cast<torch::Tensor>(&v->payload);
    if (!t || !t->defined()) throw std::runtime_error(fileError(path, "array " + k->s + " has no data"));
    out.emplace_back(k->s, *t);
  }
  return out;
}

}  // namespace amp::checkpoint
