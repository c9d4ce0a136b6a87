#pragma once
// One Python value as the safe unpickler (checkpoint/Pickle.h) builds it: plain data, containers
// and what a PickleHost made of a global it knows. Torch-free (ampstudio_core).
#include <any>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace amp::checkpoint {

struct PyObj;
using PyRef = std::shared_ptr<PyObj>;

/// One Python value. Lists, dicts and host objects have reference semantics (the memo shares them).
struct PyObj {
  enum class Kind { None, Bool, Int, BigInt, Float, Str, Bytes, List, Tuple, Dict, Global, Object };
  Kind kind = Kind::None;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::string s;  ///< Str (UTF-8), Bytes, BigInt (little-endian two's complement), Global (module)
  std::string name;          ///< Global: the name inside the module; Object: its type, for messages
  std::vector<PyRef> items;  ///< List, Tuple
  std::vector<std::pair<PyRef, PyRef>> dict;  ///< Dict, in insertion order
  PyRef state;       ///< what BUILD set on a dict (e.g. an OrderedDict's _metadata); kept, unused
  std::any payload;  ///< Object: whatever the host made of it

  PyObj() = default;
  PyObj(const PyObj&) = delete;
  PyObj& operator=(const PyObj&) = delete;
  /// Releases nested containers iteratively: a hostile pickle nested a million deep cannot
  /// overflow the stack on the way out.
  ~PyObj();

  static PyRef none();
  static PyRef boolean(bool v);
  static PyRef integer(std::int64_t v);
  static PyRef real(double v);
  static PyRef str(std::string v);
  static PyRef bytes(std::string v);
  static PyRef list();
  static PyRef tuple(std::vector<PyRef> v);
  static PyRef dictionary();
  static PyRef global(std::string module, std::string name);
  static PyRef object(std::string type, std::any payload);

  bool isStrLike() const { return kind == Kind::Str || kind == Kind::Bytes; }
  /// The value of a dict entry whose key is the string k, or null.
  PyRef get(const std::string& k) const;
  /// "module.name" of a Global; the kind's name otherwise (for messages).
  std::string describe() const;
};

}  // namespace amp::checkpoint
