#include "checkpoint/Pickle.h"

#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "checkpoint/PickleBudget.h"

namespace amp::checkpoint {

using detail::breakCycles;
using detail::fresh;
using detail::MadeScope;
using detail::reachesACycle;

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
