#pragma once
// Whole-file writes that never leave a half-written file: write a temporary file beside the
// target, flush it to disk, then rename it over the target.
#include <string>

namespace amp::util {

/// Returns "" on success, else a message naming the path and the reason. `faultSite`: the
/// fault-drill site of this write (util/FaultInjection.h), which strikes half-way through the
/// temporary file.
std::string writeFileAtomically(const std::string& path, const std::string& contents, const char* faultSite = nullptr);

/// Reads a whole file; returns false and sets `error` (naming the path) when it cannot.
bool readFile(const std::string& path, std::string& contents, std::string* error = nullptr);

}  // namespace amp::util
