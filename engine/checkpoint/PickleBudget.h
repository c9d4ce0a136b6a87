#pragma once
// Internal to the unpickler (Pickle.cpp, PyObj.cpp): what the unpickle() running on this thread
// has made and spent. Its budget bounds a hostile pickle (see unpickle in Pickle.h for the numbers
// and why real pickles stay below), and the containers it made are remembered so that it can
// break the reference cycles a pickle may build (a list appended to itself through the memo):
// shared_ptr alone would leak them.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_set>
#include <vector>

#include "checkpoint/PyObj.h"

namespace amp::checkpoint::detail {

/// What one unpickle() has spent, against budgets in proportion to the bytes it has read.
struct Budget {
  static constexpr std::size_t kAllowance = 65536;  // small pickles: never refused for their shape
  static constexpr std::size_t kByteAllowance = std::size_t{1} << 20;

  const std::size_t* pos;
  std::size_t start;
  std::size_t objects = 0, cells = 0, bytes = 0;

  std::size_t read() const { return *pos - start; }
  /// One new object; throws PickleError past the budget.
  void object();
  /// `c` container slots filled and `b` bytes of data made; throws PickleError past the budget.
  void charge(std::size_t c, std::size_t b);
};

/// A new object: counted against the budget; containers are also remembered for breaking cycles.
PyRef fresh(PyObj::Kind kind, std::size_t bytes = 0);
/// Remembers the container `o` for breaking cycles; returns it.
PyRef made(PyRef o);
/// Immutable values every pickle repeats (None, booleans, small ints, the empty tuple) are shared,
/// as CPython shares them: a list of a million Nones costs a million pointers, not objects. No
/// code mutates an object of these kinds (APPEND, SETITEM and the hosts' BUILD check the kind).
PyRef shared(PyObj::Kind kind, bool b = false, std::int64_t i = 0);

/// Registers the containers made on this thread while it lives, and counts what they cost.
struct MadeScope {
  std::vector<std::weak_ptr<PyObj>> made;
  std::vector<std::weak_ptr<PyObj>>* outer;
  Budget budget;
  Budget* outerBudget;
  explicit MadeScope(const std::size_t& pos);
  ~MadeScope();
  MadeScope(const MadeScope&) = delete;
  MadeScope& operator=(const MadeScope&) = delete;
};

/// Whether a container reachable from `root` holds itself (an iterative depth-first search: a
/// pickle nested a million deep must not overflow the stack); `reached` gets every object seen.
bool reachesACycle(const PyRef& root, std::unordered_set<const PyObj*>& reached);

/// Empties the containers of a failed or cyclic pickle that are still alive, except those in
/// `keep`: that frees every cycle among them.
void breakCycles(std::vector<std::weak_ptr<PyObj>>& made,
                 const std::unordered_set<const PyObj*>& keep = {});

}  // namespace amp::checkpoint::detail
