#include "util/FaultInjection.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>

namespace amp::util {
namespace {

struct Armed {
  FaultAction action = FaultAction::None;
  std::string site;
  long at = 1;  ///< fires on this pass
  std::atomic<long> passes{0};
};

Armed& armed() {
  static Armed a;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("AMPSTUDIO_FAULT");
    if (!env || !*env) return;
    const std::string v(env);
    const auto atSign = v.find('@');
    const auto hash = v.find('#');
    const std::string action = v.substr(0, atSign);
    const std::string site =
        atSign == std::string::npos
            ? ""
            : v.substr(atSign + 1,
                       hash == std::string::npos ? std::string::npos : hash - atSign - 1);
    long n = 1;
    bool ok = atSign != std::string::npos && !site.empty() &&
              (action == "kill" || action == "enospc" || action == "stop" || action == "segv" ||
               action == "oom");
    if (ok && hash != std::string::npos) {
      char* end = nullptr;
      n = std::strtol(v.c_str() + hash + 1, &end, 10);
      ok = end && *end == '\0' && n >= 1;
    }
    if (!ok) {
      std::fprintf(stderr,
                   "AMPSTUDIO_FAULT=%s ignored: expected kill@SITE[#N], enospc@SITE[#N], "
                   "stop@SITE[#N], segv@SITE[#N] or oom@SITE[#N]\n",
                   env);
      return;
    }
    a.action = action == "kill"   ? FaultAction::Kill
               : action == "stop" ? FaultAction::Stop
               : action == "segv" ? FaultAction::Segv
               : action == "oom"  ? FaultAction::Oom
                                  : FaultAction::NoSpace;
    a.site = site;
    a.at = n;
  });
  return a;
}

}  // namespace

FaultAction injectedFault(const char* site) {
  Armed& a = armed();
  if (a.action == FaultAction::None || a.site != site) return FaultAction::None;
  const long pass = a.passes.fetch_add(1) + 1;
  return pass == a.at ? a.action : FaultAction::None;
}

void killIfArmed(const char* site) {
  if (injectedFault(site) == FaultAction::Kill) ::kill(::getpid(), SIGKILL);
}

void throwIfArmed(const char* site) {
  if (injectedFault(site) == FaultAction::Oom) throw std::bad_alloc();
}

}  // namespace amp::util
