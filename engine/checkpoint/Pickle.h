#pragma once
// A safe reader of Python pickles (protocols 0-5), for checkpoint files only: it knows the opcodes
// that torch.save, Python's OrderedDict and NumPy arrays use, and it never imports or calls
// anything. Every GLOBAL is handed to a host that either maps it to something it understands or
// refuses it by name, so a pickle naming os.system or builtins.eval is an error, not a call.
// Torch-free (ampstudio_core); the LibTorch side is checkpoint/TorchFile.
#include <cstddef>
#include <stdexcept>
#include <string>

#include "checkpoint/PyObj.h"

namespace amp::checkpoint {

/// Thrown for a malformed or refused pickle; the message says what and where (byte offset).
class PickleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What a pickle may refer to beyond plain data. Each hook throws PickleError to refuse.
class PickleHost {
 public:
  virtual ~PickleHost() = default;
  /// GLOBAL / STACK_GLOBAL: return a Global the host will recognise later, or refuse.
  virtual PyRef global(const std::string& module, const std::string& name);
  /// REDUCE and NEWOBJ: callable(*args).
  virtual PyRef call(const PyRef& callable, const PyRef& args);
  /// BUILD: obj.__setstate__(state).
  virtual void build(const PyRef& obj, const PyRef& state);
  /// BINPERSID / PERSID.
  virtual PyRef persistentLoad(const PyRef& pid);
};

/// Runs one pickle from data[pos] to its STOP; advances pos past it. Throws PickleError.
///
/// Hostile input is bounded by what it has spent: with n the bytes of pickle read so far, a pickle
/// may make at most n/2 + 65536 new objects, fill at most 2n + 65536 container slots, hold at most
/// n/2 + 65536 memo entries and make at most 8n + 1 MiB of text and array data (hosts included,
/// through chargeUnpickle); past any of these it is refused by name. A pickle that Python or
/// LibTorch wrote stays far below: None, booleans, ints 0-255 and () are shared, not new objects;
/// every other object costs at least one opcode byte and a memo store (PUT, MEMOIZE) or an
/// argument byte; every slot takes an item pushed by at least one byte; text and arrays come
/// from the pickle's own bytes (a NumPy array's bytes are made at most 3 times: the text read,
/// its latin-1 bytes, the tensor). So 1 MB of pickle costs at most ~160 MB, never gigabytes.
PyRef unpickle(const std::string& data, std::size_t& pos, PickleHost& host);

/// For hosts: counts `cells` container slots filled and `bytes` of data made (decoded text, array
/// data) against the budget of the unpickle() running on this thread; throws PickleError past it.
/// Does nothing outside unpickle(). Objects made through PyObj's factories count by themselves.
void chargeUnpickle(std::size_t cells, std::size_t bytes = 0);

}  // namespace amp::checkpoint
