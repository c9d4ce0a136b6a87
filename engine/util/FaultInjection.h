#pragma once
// Fault drills (docs/reliability.md): AMPSTUDIO_FAULT="<action>@<site>[#<n>]" makes this process
// fail the n-th time (default the first) it passes <site>, as a crash or a full disk would:
//   kill    SIGKILL itself there (a power cut, the OOM killer, scancel)
//   enospc  the write at that site fails with "No space left on device" after writing part of
//           its bytes (what a filling disk does)
// Sites: "step" (after an optimizer step is logged), "validation" (after a validation batch),
// "checkpoint" (half-way through writing a checkpoint's temporary file), "metrics" (half-way
// through appending a metrics line). Nothing happens when the variable is unset (the check is
// one relaxed atomic load); a malformed value is reported once on stderr and ignored.
#include <string>

namespace amp::util {

enum class FaultAction { None, Kill, NoSpace };

/// What to do at `site` now: the armed action on its n-th pass, else None (counts the passes of
/// the armed site only).
FaultAction injectedFault(const char* site);

/// SIGKILLs the process when a kill is armed at `site` and due now.
void killIfArmed(const char* site);

}  // namespace amp::util
