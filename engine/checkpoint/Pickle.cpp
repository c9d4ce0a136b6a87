#include "checkpoint/Pickle.h"

#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace amp::checkpoint {

namespace {
// The containers unpickle() made, so that it can break the reference cycles a pickle may build
// (a list appended to itself through the memo): shared_ptr alone would leak them.
thread_local std::vector<std::weak_ptr<PyObj>>* tlsMade = nullptr;

// What the unpickle() running on this thread has spent, against budgets in proportion to the
// bytes it has read (see unpickle in Pickle.h for the numbers and why real pickles stay below).
struct Budget {
  static constexpr std::size_t kAllowance = 65536;  // small pickles: never refused for their shape
  static constexpr std::size_t kByteAllowance = std::size_t{1} << 20;

  const std::size_t* pos;
  std::size_t start;
  std::size_t objects = 0, cells = 0, bytes = 0;

  std::size_t read() const { return *pos - start; }
  static std::string tooMuch(std::size_t count, const char* what, std::size_t read) {
    return "makes more than " + std::to_string(count) + " " + what + " from its first " +
           std::to_string(read) +
           " bytes, far more than any checkpoint; refused (a pickle built to exhaust memory)";
  }
  void object() {
    if (++objects > read() / 2 + kAllowance)
      throw PickleError(tooMuch(objects - 1, "objects", read()));
  }
  void charge(std::size_t c, std::size_t b) {
    cells += c;
    bytes += b;
    if (cells > 2 * read() + kAllowance)
      throw PickleError(tooMuch(cells - c, "container slots", read()));
    if (bytes > 8 * read() + kByteAllowance)
      throw PickleError(tooMuch(bytes - b, "bytes of data", read()));
  }
};
thread_local Budget* tlsBudget = nullptr;

// A new object: counted against the budget; containers are also remembered for breaking cycles.
PyRef fresh(PyObj::Kind kind, std::size_t bytes = 0) {
  if (tlsBudget) {
    tlsBudget->object();
    if (bytes) tlsBudget->charge(0, bytes);
  }
  auto o = std::make_shared<PyObj>();
  o->kind = kind;
  return o;
}

PyRef made(PyRef o) {
  if (tlsMade) tlsMade->push_back(o);
  return o;
}

// Immutable values every pickle repeats (None, booleans, small ints, the empty tuple) are shared,
// as CPython shares them: a list of a million Nones costs a million pointers, not objects. No
// code mutates an object of these kinds (APPEND, SETITEM and the hosts' BUILD check the kind).
PyRef shared(PyObj::Kind kind, bool b = false, std::int64_t i = 0) {
  auto o = std::make_shared<PyObj>();
  o->kind = kind;
  o->b = b;
  o->i = i;
  return o;
}
}  // namespace

void chargeUnpickle(std::size_t cells, std::size_t bytes) {
  if (tlsBudget) tlsBudget->charge(cells, bytes);
}

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

PyRef PickleHost::global(const std::string& module, const std::string& name) {
  throw PickleError(
      "refers to " + module + "." + name +
      ", which a checkpoint has no reason to name; refused (a pickle "
      "can run code through such references, so nothing outside a known list is ever imported)");
}
PyRef PickleHost::call(const PyRef& callable, const PyRef&) {
  throw PickleError("calls " + callable->describe() + ", which is not allowed here");
}
void PickleHost::build(const PyRef& obj, const PyRef&) {
  throw PickleError("sets the state of a " + obj->describe() + ", which is not allowed here");
}
PyRef PickleHost::persistentLoad(const PyRef&) {
  throw PickleError("holds a persistent reference, which is not allowed here");
}

namespace {

class Machine {
 public:
  Machine(const std::string& data, std::size_t& pos, PickleHost& host)
      : d_(data), pos_(pos), start_(pos), host_(host) {}

  PyRef run() {
    for (;;) {
      const std::size_t at = pos_;
      const auto op = static_cast<unsigned char>(byte());
      try {
        if (step(op)) break;
      } catch (const PickleError& e) {
        throw PickleError("byte " + std::to_string(at) + " (opcode 0x" + hex(op) +
                          "): " + e.what());
      }
    }
    if (stack_.size() != 1 || !marks_.empty())
      throw PickleError("malformed pickle: the stack does not end with one value");
    return stack_.back();
  }

 private:
  static std::string hex(unsigned char c) {
    static const char* digits = "0123456789abcdef";
    return std::string{digits[c >> 4], digits[c & 15]};
  }
  char byte() {
    if (pos_ >= d_.size())
      throw PickleError("truncated pickle (no STOP before the end of the data)");
    return d_[pos_++];
  }
  std::string take(std::uint64_t n) {
    if (n > d_.size() - pos_)
      throw PickleError("truncated pickle (a length of " + std::to_string(n) +
                        " runs past the end)");
    std::string out = d_.substr(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return out;
  }
  std::uint64_t le(int n) {
    const std::string b = take(static_cast<std::uint64_t>(n));
    std::uint64_t v = 0;
    for (int k = n - 1; k >= 0; --k)
      v = (v << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(k)]);
    return v;
  }
  std::string line() {
    const auto end = d_.find('\n', pos_);
    if (end == std::string::npos)
      throw PickleError("truncated pickle (a text argument has no end of line)");
    std::string out = d_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return out;
  }

  PyRef pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
      throw PickleError("malformed pickle: pops an empty stack");
    PyRef v = stack_.back();
    stack_.pop_back();
    return v;
  }
  PyRef& top() {
    if (stack_.empty()) throw PickleError("malformed pickle: empty stack");
    return stack_.back();
  }
  std::vector<PyRef> popMark() {
    if (marks_.empty()) throw PickleError("malformed pickle: no MARK");
    const std::size_t m = marks_.back();
    marks_.pop_back();
    std::vector<PyRef> out(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return out;
  }
  void push(PyRef v) { stack_.push_back(std::move(v)); }
  void memoPut(std::uint64_t k) {
    // Python memoizes each object once, after at least one byte that made it: a memo larger
    // than half the bytes read is a pickle storing the same thing over and over.
    if (memo_.size() > (pos_ - start_) / 2 + kMemoAllowance && !memo_.count(k))
      throw PickleError("stores more than " + std::to_string(memo_.size()) + " memo entries in " +
                        std::to_string(pos_ - start_) +
                        " bytes, far more than any checkpoint; refused");
    memo_[k] = top();
  }
  PyRef memoGet(std::uint64_t k) {
    const auto it = memo_.find(k);
    if (it == memo_.end())
      throw PickleError("malformed pickle: memo entry " + std::to_string(k) + " was never stored");
    return it->second;
  }
  static void setItems(const PyRef& dict, const std::vector<PyRef>& kv) {
    if (dict->kind != PyObj::Kind::Dict)
      throw PickleError("malformed pickle: SETITEM(S) on a " + dict->describe());
    if (kv.size() % 2) throw PickleError("malformed pickle: an odd number of dict items");
    chargeUnpickle(kv.size());  // a pair is two pointers
    for (std::size_t k = 0; k < kv.size(); k += 2) dict->dict.emplace_back(kv[k], kv[k + 1]);
  }
  static void append(const PyRef& list, const std::vector<PyRef>& v) {
    if (list->kind != PyObj::Kind::List)
      throw PickleError("malformed pickle: APPEND(S) on a " + list->describe());
    chargeUnpickle(v.size());
    list->items.insert(list->items.end(), v.begin(), v.end());
  }
  // Python's repr of a str or bytes literal, as protocol 0's STRING writes it: only what it emits.
  static std::string unquote(const std::string& s) {
    if (s.size() < 2 || (s.front() != '\'' && s.front() != '"') || s.back() != s.front())
      throw PickleError("malformed STRING argument");
    std::string out;
    for (std::size_t k = 1; k + 1 < s.size(); ++k) {
      if (s[k] != '\\') {
        out += s[k];
        continue;
      }
      if (++k + 1 > s.size() - 1) throw PickleError("malformed escape in a STRING argument");
      const char c = s[k];
      if (c == 'n')
        out += '\n';
      else if (c == 't')
        out += '\t';
      else if (c == 'r')
        out += '\r';
      else if (c == 'x' && k + 2 < s.size() - 1) {
        out += static_cast<char>(std::stoi(s.substr(k + 1, 2), nullptr, 16));
        k += 2;
      } else
        out += c;  // \\ \' \"
    }
    return out;
  }
  // The pickled text of an int: Python 2 longs end in L.
  static PyRef parseInt(std::string t) {
    if (!t.empty() && t.back() == 'L') t.pop_back();
    if (t == "00") return PyObj::boolean(false);
    if (t == "01") return PyObj::boolean(true);
    try {
      std::size_t used = 0;
      const long long v = std::stoll(t, &used);
      if (used != t.size()) throw PickleError("malformed integer '" + t + "'");
      return PyObj::integer(v);
    } catch (const std::out_of_range&) {
      throw PickleError("integer " + t + " does not fit 64 bits");
    } catch (const std::invalid_argument&) {
      throw PickleError("malformed integer '" + t + "'");
    }
  }
  PyRef longBytes(std::uint64_t n) {
    std::string b = take(n);
    if (b.empty()) return PyObj::integer(0);
    if (b.size() <= 8) {
      std::uint64_t v = 0;
      for (std::size_t k = b.size(); k-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[k]);
      if (b.size() < 8 && (static_cast<unsigned char>(b.back()) & 0x80))
        v |= ~std::uint64_t{0} << (8 * b.size());
      return PyObj::integer(static_cast<std::int64_t>(v));
    }
    auto o = fresh(PyObj::Kind::BigInt, b.size());
    o->s = std::move(b);
    return o;
  }

  // Returns true at STOP.
  bool step(unsigned char op) {
    switch (op) {
      case 0x80:  // PROTO
        if (static_cast<unsigned char>(byte()) > 5)
          throw PickleError("pickle protocol newer than 5");
        return false;
      case 0x95:
        le(8);
        return false;  // FRAME: the data follows inline
      case '.':
        return true;  // STOP
      case '(':
        marks_.push_back(stack_.size());
        return false;
      case '0':
        pop();
        return false;
      case '1':
        popMark();
        return false;
      case '2':
        push(top());
        return false;
      case 'N':
        push(PyObj::none());
        return false;
      case 0x88:
        push(PyObj::boolean(true));
        return false;
      case 0x89:
        push(PyObj::boolean(false));
        return false;
      case 'J':
        push(PyObj::integer(static_cast<std::int32_t>(le(4))));
        return false;
      case 'K':
        push(PyObj::integer(static_cast<std::int64_t>(le(1))));
        return false;
      case 'M':
        push(PyObj::integer(static_cast<std::int64_t>(le(2))));
        return false;
      case 0x8a:
        push(longBytes(le(1)));
        return false;
      case 0x8b:
        push(longBytes(le(4)));
        return false;
      case 'I':
      case 'L':
        push(parseInt(line()));
        return false;
      case 'G': {
        const std::uint64_t bits = le(8);  // big-endian on the wire
        std::uint64_t v = 0;
        for (int k = 0; k < 8; ++k) v = (v << 8) | ((bits >> (8 * k)) & 0xff);
        double x;
        std::memcpy(&x, &v, sizeof x);
        push(PyObj::real(x));
        return false;
      }
      case 'F':
        push(PyObj::real(std::stod(line())));
        return false;
      case 0x8c:
        push(PyObj::str(take(le(1))));
        return false;
      case 'X':
        push(PyObj::str(take(le(4))));
        return false;
      case 0x8d:
        push(PyObj::str(take(le(8))));
        return false;
      case 'V':
        push(PyObj::str(line()));
        return false;  // raw-unicode-escape; checkpoints hold ASCII here
      case 'U':
        push(PyObj::bytes(take(le(1))));
        return false;  // Python 2 str: bytes (latin-1 text)
      case 'T':
        push(PyObj::bytes(take(le(4))));
        return false;
      case 'S':
        push(PyObj::bytes(unquote(line())));
        return false;
      case 'C':
        push(PyObj::bytes(take(le(1))));
        return false;
      case 'B':
        push(PyObj::bytes(take(le(4))));
        return false;
      case 0x8e:
      case 0x96:
        push(PyObj::bytes(take(le(8))));
        return false;
      case ']':
        push(PyObj::list());
        return false;
      case '}':
        push(PyObj::dictionary());
        return false;
      case ')':
        push(PyObj::tuple({}));
        return false;
      case 'l': {
        auto l = PyObj::list();
        append(l, popMark());
        push(l);
        return false;
      }
      case 'd': {
        auto dct = PyObj::dictionary();
        setItems(dct, popMark());
        push(dct);
        return false;
      }
      case 't':
        push(PyObj::tuple(popMark()));
        return false;
      case 0x85: {
        auto a = pop();
        push(PyObj::tuple({a}));
        return false;
      }
      case 0x86: {
        auto b = pop(), a = pop();
        push(PyObj::tuple({a, b}));
        return false;
      }
      case 0x87: {
        auto c = pop(), b = pop(), a = pop();
        push(PyObj::tuple({a, b, c}));
        return false;
      }
      case 'a': {
        auto v = pop();
        append(top(), {v});
        return false;
      }
      case 'e': {
        auto v = popMark();
        append(top(), v);
        return false;
      }
      case 's': {
        auto v = pop(), k = pop();
        setItems(top(), {k, v});
        return false;
      }
      case 'u': {
        auto kv = popMark();
        setItems(top(), kv);
        return false;
      }
      case 'p':
        memoPut(std::stoull(line()));
        return false;
      case 'q':
        memoPut(le(1));
        return false;
      case 'r':
        memoPut(le(4));
        return false;
      case 0x94:
        memoPut(memo_.size());
        return false;
      case 'g':
        push(memoGet(std::stoull(line())));
        return false;
      case 'h':
        push(memoGet(le(1)));
        return false;
      case 'j':
        push(memoGet(le(4)));
        return false;
      case 'c': {
        const std::string module = line();
        const std::string name = line();
        push(host_.global(module, name));
        return false;
      }
      case 0x93: {
        auto name = pop(), module = pop();
        if (!module->isStrLike() || !name->isStrLike()) throw PickleError("malformed STACK_GLOBAL");
        push(host_.global(module->s, name->s));
        return false;
      }
      case 'R':
      case 0x81: {
        auto args = pop(), callable = pop();
        if (args->kind != PyObj::Kind::Tuple)
          throw PickleError("malformed pickle: call arguments are not a tuple");
        push(host_.call(callable, args));
        return false;
      }
      case 'b': {
        auto state = pop();
        host_.build(top(), state);
        return false;
      }
      case 'Q': {
        auto pid = pop();
        push(host_.persistentLoad(pid));
        return false;
      }
      case 'P':
        push(host_.persistentLoad(PyObj::str(line())));
        return false;
      default:
        throw PickleError(
            "opcode not used by checkpoints (sets, extension registry, out-of-band buffers and "
            "object "
            "construction are refused)");
    }
  }

  const std::string& d_;
  std::size_t& pos_;
  const std::size_t start_;
  PickleHost& host_;
  static constexpr std::size_t kMemoAllowance = 65536;
  std::vector<PyRef> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, PyRef> memo_;
};

}  // namespace

namespace {

void forEachChild(const PyObj& o, const std::function<void(const PyRef&)>& f) {
  for (const auto& x : o.items) f(x);
  for (const auto& [k, v] : o.dict) {
    f(k);
    f(v);
  }
  if (o.state) f(o.state);
}

// Whether a container reachable from `root` holds itself (an iterative depth-first search: a
// pickle nested a million deep must not overflow the stack); `reached` gets every object seen.
bool reachesACycle(const PyRef& root, std::unordered_set<const PyObj*>& reached) {
  std::unordered_set<const PyObj*> onPath;
  struct Frame {
    const PyObj* obj;
    std::vector<const PyObj*> children;
    std::size_t next = 0;
  };
  std::vector<Frame> path;
  auto enter = [&](const PyObj* o) {
    reached.insert(o);
    onPath.insert(o);
    Frame f{o, {}, 0};
    forEachChild(*o, [&](const PyRef& c) {
      if (c) f.children.push_back(c.get());
    });
    path.push_back(std::move(f));
  };
  if (!root) return false;
  enter(root.get());
  while (!path.empty()) {
    Frame& top = path.back();
    if (top.next == top.children.size()) {
      onPath.erase(top.obj);
      path.pop_back();
      continue;
    }
    const PyObj* c = top.children[top.next++];
    if (onPath.count(c)) return true;
    if (!reached.count(c)) enter(c);
  }
  return false;
}

// Empties the containers of a failed or cyclic pickle that are still alive, except those in
// `keep`: that frees every cycle among them.
void breakCycles(std::vector<std::weak_ptr<PyObj>>& made,
                 const std::unordered_set<const PyObj*>& keep = {}) {
  for (auto& w : made)
    if (PyRef o = w.lock(); o && !keep.count(o.get())) {
      o->items.clear();
      o->dict.clear();
      o->state.reset();
    }
}

// Registers the containers made on this thread while it lives, and counts what they cost.
struct MadeScope {
  std::vector<std::weak_ptr<PyObj>> made;
  std::vector<std::weak_ptr<PyObj>>* outer = tlsMade;
  Budget budget;
  Budget* outerBudget = tlsBudget;
  explicit MadeScope(const std::size_t& pos) : budget{&pos, pos} {
    tlsMade = &made;
    tlsBudget = &budget;
  }
  ~MadeScope() {
    tlsMade = outer;
    tlsBudget = outerBudget;
  }
};

}  // namespace

PyRef unpickle(const std::string& data, std::size_t& pos, PickleHost& host) {
  MadeScope scope(pos);
  PyRef root;
  try {
    root = Machine(data, pos, host).run();
  } catch (const PickleError&) {
    breakCycles(scope.made);
    throw;
  } catch (const std::bad_alloc&) {  // a host's allocation the budget did not foresee
    breakCycles(scope.made);
    throw PickleError("needs more memory than this machine has (at byte " + std::to_string(pos) +
                      ")");
  } catch (const std::exception& e) {  // std::stoll and friends on a damaged text argument
    breakCycles(scope.made);
    throw PickleError(std::string("malformed pickle: ") + e.what());
  }
  // The machine (its memo and stack) is gone: what is alive now is the result, or a cycle.
  std::unordered_set<const PyObj*> reached;
  if (reachesACycle(root, reached)) {
    root.reset();
    breakCycles(scope.made);
    throw PickleError("holds a container that contains itself, which no checkpoint does; refused");
  }
  breakCycles(scope.made, reached);  // cycles the pickle built and dropped
  return root;
}

}  // namespace amp::checkpoint
