#include "checkpoint/TorchHost.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace amp::checkpoint::detail {

void bad(const std::string& why) {
  throw PickleError(why);
}

namespace {

using Kind = PyObj::Kind;

std::int64_t asInt(const PyRef& v, const char* what) {
  if (v->kind == Kind::Int) return v->i;
  if (v->kind == Kind::Bool) return v->b ? 1 : 0;
  bad(std::string(what) + " is a " + v->describe() + ", not an int");
}

std::vector<std::int64_t> intTuple(const PyRef& v, const char* what) {
  if (v->kind != Kind::Tuple && v->kind != Kind::List)
    bad(std::string(what) + " is a " + v->describe() + ", not a tuple");
  if (v->items.size() > kMaxDims)
    bad(std::string(what) + " has " + std::to_string(v->items.size()) +
        " dimensions, more than the " + std::to_string(kMaxDims) + " any tensor has");
  std::vector<std::int64_t> out;
  for (const auto& x : v->items) out.push_back(asInt(x, what));
  return out;
}

const std::vector<PyRef>& args(const PyRef& t, std::size_t min, std::size_t max,
                               const std::string& fn) {
  if (t->items.size() < min || t->items.size() > max)
    bad(fn + " called with " + std::to_string(t->items.size()) + " arguments");
  return t->items;
}

// "module.name" of a global, "" for anything else.
std::string globalName(const PyRef& v) {
  return v->kind == Kind::Global ? v->s + "." + v->name : std::string();
}

// UTF-8 text whose code points are all below 256 -> those bytes (Python's str.encode("latin1")).
std::string latin1(const std::string& utf8) {
  std::string out;
  for (std::size_t k = 0; k < utf8.size(); ++k) {
    const auto c = static_cast<unsigned char>(utf8[k]);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if ((c & 0xe0) == 0xc0 && k + 1 < utf8.size() && c <= 0xc3) {
      out +=
          static_cast<char>(((c & 0x1f) << 6) | (static_cast<unsigned char>(utf8[k + 1]) & 0x3f));
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
    {"FloatStorage", at::kFloat},
    {"DoubleStorage", at::kDouble},
    {"HalfStorage", at::kHalf},
    {"BFloat16Storage", at::kBFloat16},
    {"LongStorage", at::kLong},
    {"IntStorage", at::kInt},
    {"ShortStorage", at::kShort},
    {"CharStorage", at::kChar},
    {"ByteStorage", at::kByte},
    {"BoolStorage", at::kBool},
    {"ComplexFloatStorage", at::kComplexFloat},
    {"ComplexDoubleStorage", at::kComplexDouble},
    {"UntypedStorage", at::kByte},
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
      default:
        break;
    }
    bad(std::string("NumPy dtype ") + kind + std::to_string(size) + " has no tensor type");
  }
};

torch::Tensor tensorFromBytes(const std::string& raw, at::ScalarType dtype,
                              std::vector<std::int64_t> shape, bool swap) {
  std::int64_t n = 1;
  for (auto s : shape) {
    if (s < 0) bad("negative array dimension");
    if (__builtin_mul_overflow(n, s, &n)) bad("an array of more than 2^63 elements");
  }
  const auto elem = static_cast<std::int64_t>(c10::elementSize(dtype));
  if (n > static_cast<std::int64_t>(raw.size()) / elem ||
      static_cast<std::int64_t>(raw.size()) != n * elem)
    bad("array data holds " + std::to_string(raw.size()) + " bytes for " + std::to_string(n) +
        " elements of " + std::to_string(elem) + " bytes");
  chargeUnpickle(shape.size(),
                 raw.size());  // a new tensor each time, even from one memoized string
  auto t = torch::empty(shape, torch::TensorOptions().dtype(dtype));
  std::memcpy(t.data_ptr(), raw.data(), raw.size());
  if (swap && elem > 1) {
    auto* p = static_cast<unsigned char*>(t.data_ptr());
    for (std::int64_t k = 0; k < n; ++k) std::reverse(p + k * elem, p + (k + 1) * elem);
  }
  return t;
}

const torch::Tensor& tensorOf(const PyRef& v, const std::string& where) {
  if (v->kind != Kind::Object || v->name != "tensor")
    bad(where + ": expected a tensor, got a " + v->describe());
  return *std::any_cast<torch::Tensor>(&v->payload);
}

NpDtype dtypeOf(const PyRef& v) {
  if (v->kind != Kind::Object || v->name != "numpy.dtype")
    bad("expected a numpy.dtype, got a " + v->describe());
  return std::any_cast<NpDtype>(v->payload);
}

}  // namespace

PyRef TorchHost::global(const std::string& module, const std::string& name) {
  static const std::map<std::string, std::vector<std::string>> allowed = {
      {"collections", {"OrderedDict"}},
      {"torch._utils",
       {"_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_parameter",
        "_rebuild_parameter_with_state"}},
      {"torch._tensor", {"_rebuild_from_type", "_rebuild_from_type_v2"}},
      {"torch.nn.parameter", {"Parameter"}},
      {"torch", {"Tensor", "Size"}},
      {"torch.jit._pickle",
       {"build_intlist", "build_doublelist", "build_boollist", "build_tensorlist",
        "restore_type_tag"}},
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
    bad("refers to " + module + "." + name +
        ": the file holds a pickled model object, not weights; save its "
        "state_dict() with torch.save instead");
  return PickleHost::global(module, name);
}

PyRef TorchHost::call(const PyRef& fn, const PyRef& a) {
  if (fn->kind != Kind::Global) bad("calls a " + fn->describe() + ", which is not callable here");
  const std::string f = fn->s + "." + fn->name;
  if (f == "collections.OrderedDict") {
    auto d = PyObj::dictionary();
    if (!a->items.empty()) {
      chargeUnpickle(2 * a->items[0]->items.size());  // a copy, each call, of one memoized list
      for (const auto& pair : a->items[0]->items) {
        if (pair->items.size() != 2) bad("OrderedDict built from something other than pairs");
        d->dict.emplace_back(pair->items[0], pair->items[1]);
      }
    }
    return d;
  }
  if (f == "torch._utils._rebuild_tensor_v2" || f == "torch._utils._rebuild_tensor") {
    const auto& v = args(a, 4, 7, f);
    return rebuildTensor(v[0], asInt(v[1], "storage offset"), intTuple(v[2], "size"),
                         intTuple(v[3], "stride"));
  }
  if (f == "torch._utils._rebuild_parameter" || f == "torch._utils._rebuild_parameter_with_state" ||
      f == "torch.nn.parameter.Parameter") {
    const auto& v = args(a, 1, 4, f);
    tensorOf(v[0], f);
    return v[0];
  }
  if (f == "torch._tensor._rebuild_from_type_v2" || f == "torch._tensor._rebuild_from_type") {
    // (func, type, args, state): func(*args), the tensor's Python subclass and attributes not
    // kept. Unwrapped in a loop, not by recursion: a file nesting it 100,000 deep in 700 KB must
    // not overflow the stack. torch.save writes it once, around _rebuild_tensor_v2.
    PyRef inner = fn, innerArgs = a;
    for (int wraps = 0;; ++wraps) {
      const std::string g = globalName(inner);
      if (g != "torch._tensor._rebuild_from_type_v2" && g != "torch._tensor._rebuild_from_type")
        break;
      if (wraps == kMaxTypeWraps)
        bad(f + " nested in itself more than " + std::to_string(kMaxTypeWraps) +
            " deep; torch.save writes it once around a tensor (a damaged or hostile file)");
      const auto& v = args(innerArgs, 3, 4, g);
      if (v[2]->kind != Kind::Tuple) bad(g + ": arguments are not a tuple");
      inner = v[0];
      innerArgs = v[2];
    }
    return call(inner, innerArgs);  // not a wrapper: no further recursion
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
    if (v.size() == 2 && v[1]->s != "latin1" && v[1]->s != "latin-1")
      bad("_codecs.encode to " + v[1]->s);
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

void TorchHost::build(const PyRef& obj, const PyRef& state) {
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
    if (state->items.size() > 3 && state->items[3]->kind != Kind::None)
      bad("structured NumPy arrays are not weights");
    obj->payload = dt;
    return;
  }
  if (obj->kind == Kind::Object && obj->name == "numpy.ndarray") {
    // (version, shape, dtype, is_fortran, raw data)
    if (state->kind != Kind::Tuple || state->items.size() != 5)
      bad("unexpected numpy.ndarray state");
    const auto shape = intTuple(state->items[1], "array shape");
    const NpDtype dt = dtypeOf(state->items[2]);
    const bool fortran = state->items[3]->kind == Kind::Bool
                             ? state->items[3]->b
                             : asInt(state->items[3], "is_fortran") != 0;
    const auto& raw = state->items[4];
    if (!raw->isStrLike()) bad("object arrays (dtype O) are not weights");
    const std::string bytes = raw->kind == Kind::Str ? latin1(raw->s) : raw->s;
    if (!fortran) {
      obj->payload = tensorFromBytes(bytes, dt.scalar(), shape, dt.order == '>');
    } else {
      std::vector<std::int64_t> rev(shape.rbegin(), shape.rend());
      std::vector<std::int64_t> perm;
      for (auto k = static_cast<std::int64_t>(shape.size()); k-- > 0;) perm.push_back(k);
      obj->payload =
          tensorFromBytes(bytes, dt.scalar(), rev, dt.order == '>').permute(perm).contiguous();
    }
    return;
  }
  if (obj->kind == Kind::Object && obj->name == "tensor")
    return;  // a Parameter's Python attributes
  PickleHost::build(obj, state);
}

PyRef TorchHost::persistentLoad(const PyRef& pid) {
  // ('storage', storage type, key, location, element count[, view metadata])
  if (pid->kind != Kind::Tuple || pid->items.size() < 5 || !pid->items[0]->isStrLike() ||
      pid->items[0]->s != "storage")
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
  if (pid->items.size() > 5 &&
      pid->items[5]->kind == Kind::Tuple) {  // legacy view: (view key, offset, size)
    const auto& view = pid->items[5]->items;
    if (view.size() != 3) bad("malformed storage view");
    const auto offset = asInt(view[1], "view offset"), size = asInt(view[2], "view size");
    if (offset < 0 || size < 0 || offset > flat.numel() || size > flat.numel() - offset)
      bad("a storage view outside its storage");
    flat = flat.narrow(0, offset, size);
  }
  return PyObj::object("storage", flat);
}

PyRef TorchHost::rebuildTensor(const PyRef& st, std::int64_t offset,
                               const std::vector<std::int64_t>& size,
                               const std::vector<std::int64_t>& stride) {
  if (st->kind != Kind::Object || st->name != "storage")
    bad("a tensor rebuilt from a " + st->describe());
  const auto& flat = *std::any_cast<torch::Tensor>(&st->payload);
  if (size.size() != stride.size())
    bad("a tensor with " + std::to_string(size.size()) + " sizes and " +
        std::to_string(stride.size()) + " strides");
  chargeUnpickle(2 * size.size());  // the view's sizes and strides
  if (offset < 0) bad("a tensor at a negative storage offset");
  // Overflow-checked: a size x stride past 2^63 is undefined behaviour in plain arithmetic.
  std::int64_t last = offset, numel = 1;
  bool empty = false, overflow = false;
  for (std::size_t k = 0; k < size.size(); ++k) {
    if (size[k] < 0 || stride[k] < 0) bad("a tensor with a negative size or stride");
    empty = empty || size[k] == 0;
  }
  for (std::size_t k = 0; k < size.size(); ++k) {
    if (size[k] == 0) continue;  // an empty tensor's other sizes need not multiply without overflow
    std::int64_t reach = 0;
    overflow = overflow || __builtin_mul_overflow(numel, size[k], &numel) ||
               (!empty && (__builtin_mul_overflow(size[k] - 1, stride[k], &reach) ||
                           __builtin_add_overflow(last, reach, &last)));
  }
  if (overflow)
    bad("a tensor of more than 2^63 elements, or reaching past element 2^63 of its storage");
  if (empty) return PyObj::object("tensor", torch::empty(size, flat.options()));
  if (last >= flat.numel())
    bad("a tensor reaching element " + std::to_string(last) + " of a storage of " +
        std::to_string(flat.numel()));
  // A view with more elements than its storage overlaps itself: expand()'s stride 0, or an
  // as_strided window. torch.save keeps such a view as it is, so one can be legitimate, but no
  // state dict needs a large one, and whatever copies it (.contiguous(), a dtype cast, a
  // statistic) pays for every element: 10^12 of them from a 100-byte file. Their excess over
  // their storages adds up to at most kMaxExpandedBytes per file.
  if (numel > flat.numel()) {
    const auto elem = static_cast<std::int64_t>(c10::elementSize(flat.scalar_type()));
    std::int64_t excess = 0;
    if (__builtin_mul_overflow(numel - flat.numel(), elem, &excess) ||
        __builtin_add_overflow(expandedBytes_, excess, &expandedBytes_) ||
        expandedBytes_ > kMaxExpandedBytes)
      bad("a tensor view of " + std::to_string(numel) + " elements over a storage of " +
          std::to_string(flat.numel()) +
          " (stride 0 or overlapping): views larger than their storage may add up to " +
          std::to_string(kMaxExpandedBytes >> 20) +
          " MiB per file; save such a tensor with .clone() instead");
  }
  return PyObj::object(
      "tensor",
      flat.as_strided(size, stride, flat.storage_offset() + offset));  // offsets are absolute
}

namespace {

// PyObj -> IValue, each object once (Python's unpickler shares what the memo shares; so does the
// result here): a pickle of L_k = [L_{k-1}, L_{k-1}], 7 bytes a level, is 60 conversions, not 2^60.
class Converter {
 public:
  explicit Converter(std::size_t inputBytes)
      : keyBudget_(64 * static_cast<std::uint64_t>(inputBytes) + (std::uint64_t{16} << 20)) {}

  // Where a value sits ("checkpoint[model_state][conv.weight]"), built only for an error message:
  // building it for every value cost (depth x key length) bytes each.
  struct Path {
    const Path* parent;
    const PyObj* key;  // a dict key, or null for an index
    std::size_t index;
  };

  c10::IValue convert(const PyRef& v, const Path* at, int depth) {
    if (depth > 200) fail(at, "nested more than 200 deep");
    switch (v->kind) {
      case Kind::None:
        return {};
      case Kind::Bool:
        return v->b;
      case Kind::Int:
        return v->i;
      case Kind::BigInt:
        fail(at, "an integer wider than 64 bits");
      case Kind::Float:
        return v->f;
      default:
        break;
    }
    // Only what has other owners can be met again (the pickle's memo is gone by now): the rest
    // need no entry, which keeps this map small for a file of a million distinct lists.
    if (v.use_count() == 1) return convertShared(v, at, depth);
    if (const auto it = memo_.find(v.get()); it != memo_.end()) return it->second;
    c10::IValue out = convertShared(v, at, depth);
    memo_.emplace(v.get(), out);
    return out;
  }

 private:
  c10::IValue convertShared(const PyRef& v, const Path* at, int depth) {
    switch (v->kind) {
      case Kind::Str:
      case Kind::Bytes:
        return v->s;
      case Kind::List: {
        c10::impl::GenericList l(c10::AnyType::get());
        l.reserve(v->items.size());
        for (std::size_t k = 0; k < v->items.size(); ++k) {
          const Path here{at, nullptr, k};
          l.push_back(convert(v->items[k], &here, depth + 1));
        }
        return l;
      }
      case Kind::Tuple: {
        std::vector<c10::IValue> items;
        items.reserve(v->items.size());
        for (std::size_t k = 0; k < v->items.size(); ++k) {
          const Path here{at, nullptr, k};
          items.push_back(convert(v->items[k], &here, depth + 1));
        }
        return c10::ivalue::Tuple::create(std::move(items));
      }
      case Kind::Dict:
        return dict(v, at, depth);
      case Kind::Global:
        return v->s + "." + v->name;
      case Kind::Object:
        if (const auto* t = std::any_cast<torch::Tensor>(&v->payload); t && t->defined()) return *t;
        fail(at, "a " + v->name + " object");
      default:
        break;
    }
    return {};
  }

  c10::IValue dict(const PyRef& v, const Path* at, int depth) {
    bool strKeys = true, intKeys = true;
    for (const auto& [k, x] : v->dict) {
      strKeys = strKeys && k->isStrLike();
      intKeys = intKeys && k->kind == Kind::Int;
    }
    if (!strKeys && !intKeys)
      fail(at, "a dict whose keys are neither all strings nor all integers");
    const c10::TypePtr keyType =
        strKeys ? c10::TypePtr(c10::StringType::get()) : c10::TypePtr(c10::IntType::get());
    c10::impl::GenericDict d(keyType, c10::AnyType::get());
    for (const auto& [k, x] : v->dict) {
      // Inserting hashes the key: one long memoized key in every dict of a file would be hashed
      // once per use. Real keys (weight names, config keys) stay far below this budget.
      const std::uint64_t cost = strKeys ? k->s.size() : 8;
      if (cost > keyBudget_)
        fail(at,
             "dict keys adding up to more than 64 bytes per byte of the file (one long key in many "
             "dicts); refused");
      keyBudget_ -= cost;
      const Path here{at, k.get(), 0};
      d.insert_or_assign(convert(k, &here, depth + 1), convert(x, &here, depth + 1));
    }
    return d;
  }

  [[noreturn]] static void fail(const Path* at, const std::string& why) {
    std::vector<const Path*> chain;
    for (const Path* p = at; p; p = p->parent) chain.push_back(p);
    std::string where = "checkpoint";
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const PyObj* key = (*it)->key;
      std::string part = !key               ? std::to_string((*it)->index)
                         : key->isStrLike() ? key->s
                                            : std::to_string(key->i);
      if (part.size() > 80) part = part.substr(0, 80) + "...";
      where += "[" + part + "]";
    }
    bad(where + ": " + why);
  }

  std::unordered_map<const PyObj*, c10::IValue> memo_;
  std::uint64_t keyBudget_;
};

}  // namespace

c10::IValue toIValue(const PyRef& v, std::size_t inputBytes) {
  return Converter(inputBytes).convert(v, nullptr, 0);
}

}  // namespace amp::checkpoint::detail
