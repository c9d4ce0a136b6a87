#include "checkpoint/PyObj.h"

#include "checkpoint/Pickle.h"
#include "checkpoint/PickleBudget.h"

namespace amp::checkpoint {

using detail::fresh;
using detail::made;
using detail::shared;

PyObj::~PyObj() {
  std::vector<PyRef> pending;
  auto adopt = [&pending](PyObj& o) {
    for (auto& x : o.items) pending.push_back(std::move(x));
    o.items.clear();
    for (auto& [k, v] : o.dict) {
      pending.push_back(std::move(k));
      pending.push_back(std::move(v));
    }
    o.dict.clear();
    if (o.state) pending.push_back(std::move(o.state));
  };
  adopt(*this);
  while (!pending.empty()) {
    PyRef p = std::move(pending.back());
    pending.pop_back();
    if (p && p.use_count() == 1)
      adopt(*p);  // p now has no children: its destructor does not recurse
  }
}

PyRef PyObj::none() {
  static const PyRef none = shared(Kind::None);
  return none;
}
PyRef PyObj::boolean(bool v) {
  static const PyRef t = shared(Kind::Bool, true), f = shared(Kind::Bool, false);
  return v ? t : f;
}
PyRef PyObj::integer(std::int64_t v) {
  static const std::vector<PyRef> small = [] {  // BININT1's range
    std::vector<PyRef> ints;
    for (std::int64_t k = 0; k < 256; ++k) ints.push_back(shared(Kind::Int, false, k));
    return ints;
  }();
  if (v >= 0 && v < 256) return small[static_cast<std::size_t>(v)];
  auto o = fresh(Kind::Int);
  o->i = v;
  return o;
}
PyRef PyObj::real(double v) {
  auto o = fresh(Kind::Float);
  o->f = v;
  return o;
}
PyRef PyObj::str(std::string v) {
  auto o = fresh(Kind::Str, v.size());
  o->s = std::move(v);
  return o;
}
PyRef PyObj::bytes(std::string v) {
  auto o = fresh(Kind::Bytes, v.size());
  o->s = std::move(v);
  return o;
}
PyRef PyObj::list() {
  return made(fresh(Kind::List));
}
PyRef PyObj::tuple(std::vector<PyRef> v) {
  if (v.empty()) {
    static const PyRef empty = shared(Kind::Tuple);
    return empty;
  }
  auto o = fresh(Kind::Tuple);
  chargeUnpickle(v.size());
  o->items = std::move(v);
  return made(std::move(o));
}
PyRef PyObj::dictionary() {
  return made(fresh(Kind::Dict));
}
PyRef PyObj::global(std::string module, std::string name) {
  auto o = fresh(Kind::Global, module.size() + name.size());
  o->s = std::move(module);
  o->name = std::move(name);
  return o;
}
PyRef PyObj::object(std::string type, std::any payload) {
  auto o = fresh(Kind::Object);
  o->name = std::move(type);
  o->payload = std::move(payload);
  return made(std::move(o));
}

PyRef PyObj::get(const std::string& k) const {
  for (const auto& [key, value] : dict)
    if (key->isStrLike() && key->s == k) return value;
  return nullptr;
}

std::string PyObj::describe() const {
  switch (kind) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
    case Kind::BigInt:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::Str:
      return "str";
    case Kind::Bytes:
      return "bytes";
    case Kind::List:
      return "list";
    case Kind::Tuple:
      return "tuple";
    case Kind::Dict:
      return "dict";
    case Kind::Global:
      return s + "." + name;
    case Kind::Object:
      return name;
  }
  return "?";
}

}  // namespace amp::checkpoint
