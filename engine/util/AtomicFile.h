#pragma once
// Whole-file writes that never leave a half-written file: write a temporary file beside the
// target, flush it to disk, then rename it over the target.
#include <cstddef>
#include <limits>
#include <string>

namespace amp::util {

/// False with `error` naming the path and the reason. `faultSite`: the fault-drill site of this
/// write (util/FaultInjection.h), which strikes half-way through the temporary file.
[[nodiscard]] bool writeFileAtomically(const std::string& path, const std::string& contents,
                                       std::string* error, const char* faultSite = nullptr);

/// What readFile takes unless its caller says otherwise: 16 MiB. The files read whole (run.json,
/// a run's config.yaml, lock files, label files) are kilobytes; a file copied from a stranger must
/// not make a reader hold gigabytes.
inline constexpr std::size_t kReadFileCap = std::size_t(16) << 20;
/// For files that are legitimately big (checkpoints): the whole regular file, whatever its size.
inline constexpr std::size_t kNoReadCap = std::numeric_limits<std::size_t>::max();

/// Reads a whole regular file of at most `maxBytes`; returns false and sets `error` (naming the
/// path) when it cannot, when the file is larger, or when it is not a regular file (a FIFO, a
/// device such as /dev/zero, a directory: reading one may never end).
[[nodiscard]] bool readFile(const std::string& path, std::string& contents,
                            std::string* error = nullptr, std::size_t maxBytes = kReadFileCap);

}  // namespace amp::util
