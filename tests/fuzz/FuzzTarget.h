#pragma once
// One fuzz target per fuzz_<name>.cpp: LLVMFuzzerTestOneInput runs one input through code that
// reads what users and other programs hand us. The same file builds two ways (tests/fuzz/
// CMakeLists.txt): with clang's libFuzzer (scripts/fuzz.sh, coverage-guided, with ASan and UBSan)
// and, in every normal build, into the Qt Test suite tst_fuzzcorpus, which runs each target over
// its seed corpus and every input a fuzzer once crashed on (tests/fuzz/<name>/), so each crash
// found stays a regression test. A target must never crash, hang or leak on any input; errors
// are fine.
#include <cstddef>
#include <cstdint>
#include <string>

// In the normal build all targets link into one suite, each under its own name.
#ifdef AMPSTUDIO_FUZZ_ENTRY
#define LLVMFuzzerTestOneInput AMPSTUDIO_FUZZ_ENTRY
#endif
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace amp::fuzz {
inline std::string bytes(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}
/// A private scratch folder for targets that must read a file (created once per process).
std::string scratchDir();
}  // namespace amp::fuzz
