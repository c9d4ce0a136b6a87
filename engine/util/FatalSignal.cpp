#include "util/FatalSignal.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "util/FaultInjection.h"

namespace amp::util {
namespace {

const char* gProgram = "ampstudio";
std::atomic<bool> gExiting{false};

// Async-signal-safe output: write(2) of literals and numbers formatted by hand.
void put(const char* s) {
  const size_t n = std::strlen(s);
  ssize_t done = 0;
  while (done < static_cast<ssize_t>(n)) {
    const ssize_t w = ::write(STDERR_FILENO, s + done, n - static_cast<size_t>(done));
    if (w <= 0) return;
    done += w;
  }
}

void putHex(std::uintptr_t v) {
  char buf[2 + 16 + 1];
  char* p = buf + sizeof buf - 1;
  *p = '\0';
  do {
    *--p = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v && p > buf + 2);
  *--p = 'x';
  *--p = '0';
  put(p);
}

void putDec(long v) {
  char buf[24];
  char* p = buf + sizeof buf - 1;
  *p = '\0';
  const bool neg = v < 0;
  unsigned long u = neg ? 0UL - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
  do {
    *--p = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u);
  if (neg) *--p = '-';
  put(p);
}

// "0x7f.. (libfoo.so+0x1234, symbol+0x56)"; dladdr is not async-signal-safe by the letter, but
// it only reads the loader's tables, and the process is dying anyway.
void putAddress(const void* a) {
  putHex(reinterpret_cast<std::uintptr_t>(a));
  Dl_info info{};
  if (!a || !::dladdr(a, &info) || !info.dli_fname) return;
  put(" (");
  const char* base = std::strrchr(info.dli_fname, '/');
  put(base ? base + 1 : info.dli_fname);
  put("+");
  putHex(reinterpret_cast<std::uintptr_t>(a) - reinterpret_cast<std::uintptr_t>(info.dli_fbase));
  if (info.dli_sname) {
    put(", ");
    put(info.dli_sname);
    put("+");
    putHex(reinterpret_cast<std::uintptr_t>(a) - reinterpret_cast<std::uintptr_t>(info.dli_saddr));
  }
  put(")");
}

const char* signalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGILL:
      return "SIGILL";
    case SIGFPE:
      return "SIGFPE";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "signal";
  }
}

void onFatalSignal(int sig, siginfo_t* info, void* context) {
  put("\n");
  put(gProgram);
  put(": fatal signal ");
  putDec(sig);
  put(" (");
  put(signalName(sig));
  put(")");
  if (gExiting.load())
    put(" during exit, after the command had ended (its output above is complete)");
  if (sig != SIGABRT && info) {
    put(", address ");
    putHex(reinterpret_cast<std::uintptr_t>(info->si_addr));
  }
  put("\n");
#if defined(__linux__) && defined(__x86_64__)
  if (context) {
    const auto* uc = static_cast<const ucontext_t*>(context);
    const auto pc = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
    put("  at ");
    putAddress(reinterpret_cast<const void*>(pc));
    put("\n");
    if (pc < 4096) {  // a call through a null pointer: the return address is on top of the stack
      const auto* sp = reinterpret_cast<void* const*>(uc->uc_mcontext.gregs[REG_RSP]);
      put("  called from ");
      putAddress(sp ? *sp : nullptr);
      put("\n");
    }
  }
#else
  (void)context;
#endif
  put("  stack:\n");
  void* frames[64];
  const int n = ::backtrace(frames, 64);
  ::backtrace_symbols_fd(frames, n, STDERR_FILENO);
  // SA_RESETHAND restored the default action: returning re-runs the faulting instruction, which
  // now kills the process with this signal (abort() raises it again itself).
}

}  // namespace

void installFatalSignalReport(const char* program) {
  gProgram = program;
  void* warm[1];
  ::backtrace(warm, 1);  // loads libgcc's unwinder now, not inside the handler
  static char altStack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = altStack;
  ss.ss_size = sizeof altStack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = onFatalSignal;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::sigaction(sig, &sa, nullptr);
}

void markExiting() {
  gExiting.store(true);
}

void crashIfArmed(const char* site) {
  if (injectedFault(site) != FaultAction::Segv) return;
  using Fn = void (*)();
  volatile Fn fn = nullptr;  // volatile: the compiler may not drop or fold the call
  fn();
}

}  // namespace amp::util
