#pragma once
// A process that dies of a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) says so on
// stderr first: the signal, whether it came while the process was exiting (static destructors,
// library teardown), the faulting instruction and, where that is address 0 (a call through a null
// function pointer), the caller's return address, each as module+offset and symbol where dladdr
// knows one; then the stack as glibc's backtrace() sees it. The process still dies of the signal
// (exit status 128 + N, a core where enabled), as without the report. The output can be read with
// addr2line -e MODULE OFFSET.
namespace amp::util {

/// Installs the report for this process (on an alternate stack, so a stack overflow is reported
/// too). `program` names the process in the report; it must outlive the process (a literal).
void installFatalSignalReport(const char* program);

/// From here on a fatal signal is reported as happening during exit.
void markExiting();

/// Calls through a null function pointer when `AMPSTUDIO_FAULT=segv@SITE` is armed for `site`
/// (the fault drills, docs/reliability.md).
void crashIfArmed(const char* site);

}  // namespace amp::util
