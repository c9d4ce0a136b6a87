// The pickle reader behind every checkpoint we load (ours, PySlowFast's .pyth, Caffe2 .pkl), with
// a host that accepts every reference, so the opcode machine itself is what is fuzzed (the real
// hosts refuse far more).
#include "FuzzTarget.h"
#include "checkpoint/Pickle.h"

namespace {

using namespace amp::checkpoint;

class AcceptingHost : public PickleHost {
 public:
  PyRef global(const std::string& module, const std::string& name) override {
    return PyObj::global(module, name);
  }
  PyRef call(const PyRef& callable, const PyRef& args) override {
    return PyObj::tuple({callable, args});
  }
  void build(const PyRef&, const PyRef&) override {}
  PyRef persistentLoad(const PyRef& pid) override { return pid; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes = amp::fuzz::bytes(data, size);
  AcceptingHost accepting;
  PickleHost refusing;  // the default: plain data only
  for (PickleHost* host : {static_cast<PickleHost*>(&accepting), &refusing}) {
    std::size_t pos = 0;
    try {
      PyRef v = unpickle(bytes, pos, *host);
      (void)v->describe();
    } catch (const PickleError&) {
    }
  }
  return 0;
}
