#pragma once
// How every front end writes a length of time (a run's duration, the time left to train): the
// studio's run list, its comparison table and status bar, and the command line's `train` and
// `runs list` read the same, so a run looks the same wherever it is listed.
//
//   amp::util::formatDuration(125.4);    // "0:02:05"
//   amp::util::formatDuration(90061.0);  // "25:01:01": hours do not roll over into days
#include <string>

namespace amp::util {

/// Seconds as H:MM:SS, rounded to the nearest second. Negative, NaN and infinite inputs (a
/// clock that stepped back, an ETA before the first step) read "0:00:00" rather than garbage.
std::string formatDuration(double seconds);

}  // namespace amp::util
