#pragma once
// Fault drills (docs/reliability.md): AMPSTUDIO_FAULT="<action>@<site>[#<n>]" makes this process
// fail the n-th time (default the first) it passes <site>, as a crash or a full disk would:
//   kill    SIGKILL itself there (a power cut, the OOM killer, scancel)
//   enospc  the write at that site fails with "No space left on device" after writing part of
//           its bytes (what a filling disk does)
//   stop    the trainer of this process is asked to stop there, as a Ctrl-C that reached this
//           rank alone (the ranks of a run see a stop at different moments)
//   segv    a call through a null function pointer there (a crash in a library; util/FatalSignal)
//   oom     std::bad_alloc thrown there (what a hostile input's declared size does to an
//   allocation)
// Sites: "step" (after an optimizer step is logged), "validation" (after a validation batch),
// "checkpoint" (half-way through writing a checkpoint's temporary file), "metrics" (half-way
// through appending a metrics line), "epoch_end" (after an epoch's last step), "test_batch"
// (before a batch of the multi-view test; stop only), "exit" (ampstudio-cli, after the command
// has ended and its output is flushed; segv only), "decode" (the loader, before a clip is
// decoded; oom only), "command" (ampstudio-cli, after the command ran, inside its guard; oom
// only). Nothing happens when the variable is unset
// (the check is one relaxed atomic load); a malformed value is reported once on stderr and ignored.
#include <string>

namespace amp::util {

enum class FaultAction { None, Kill, NoSpace, Stop, Segv, Oom };

/// What to do at `site` now: the armed action on its n-th pass, else None (counts the passes of
/// the armed site only).
FaultAction injectedFault(const char* site);

/// SIGKILLs the process when a kill is armed at `site` and due now.
void killIfArmed(const char* site);

/// Throws std::bad_alloc when an oom is armed at `site` and due now.
void throwIfArmed(const char* site);

}  // namespace amp::util
