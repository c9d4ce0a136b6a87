// ampstudio-cli: the AMP Studio engine from a terminal or a GPU server.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "Commands.h"
#include "system/DeviceInfo.h"
#include "util/FatalSignal.h"
#include "util/FaultInjection.h"

namespace {
std::string commandLine(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) out += (i ? " " : "") + std::string(argv[i]);
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  amp::util::installFatalSignalReport("ampstudio-cli");
  CLI::App app{"AMP Studio command line: PySlowFast-style mixed-precision video training",
               "ampstudio-cli"};
  app.set_version_flag("--version", std::string("ampstudio-cli ") + AMPSTUDIO_VERSION);
  app.require_subcommand(1);
  int exitCode = 0;
  amp::cli::addConfigCommands(app, exitCode);
  amp::cli::addDataCommands(app, exitCode);
  amp::cli::addDataCheckCommand(app, exitCode);
  amp::cli::addBenchCommands(app, exitCode);
  amp::cli::addAuditCommand(app, exitCode);
  amp::cli::addAnalyzeCommand(app, exitCode);
  amp::cli::addEvalCommand(app, exitCode);
  amp::cli::addInfoCommand(app, exitCode);
  amp::cli::addModelCommand(app, exitCode);
  amp::cli::addMultigridCommand(app, exitCode);
  amp::cli::addTrainCommand(app, exitCode);
  amp::cli::addTestCommand(app, exitCode);
  amp::cli::addPredictCommand(app, exitCode);
  amp::cli::addDemoCommand(app, exitCode);
  amp::cli::addRunCommands(app, exitCode);
  amp::cli::addVisualizeCommand(app, exitCode);
  try {
    app.parse(argc, argv);
    amp::util::throwIfArmed("command");  // drill: what a command let escape
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::bad_alloc&) {
    // Whatever a command did not refuse by name: a message and exit 1, never std::terminate's
    // SIGABRT (which a launcher, torchrun or Slurm reads as a crash, with no word of the input).
    std::cout.flush();
    std::cerr << "ampstudio-cli: error: out of memory (std::bad_alloc) in '"
              << commandLine(argc, argv)
              << "'; an input may declare far more data than it holds: check the files it names\n";
    exitCode = 1;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "ampstudio-cli: error: " << e.what() << " (in '" << commandLine(argc, argv)
              << "')\n";
    exitCode = 1;
  }
  // What the command printed is out before static destructors and library teardown run: a crash
  // there (seen on a CUDA machine) must not swallow the results.
  std::cout.flush();
  std::fflush(nullptr);
  amp::util::markExiting();
  amp::util::crashIfArmed("exit");
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // CUDA builds skip static destructors and the libraries' teardown: on an H200 (LibTorch 2.11,
  // CUDA 13) bench overhead and bench ddp died there of SIGSEGV after their work was done, which
  // turns a finished run into a failed one for a launcher (torchrun, Slurm, ours). Every file the
  // command wrote is closed by now and its output flushed above. AMPSTUDIO_NORMAL_EXIT=1 keeps the
  // normal exit (to look into that crash; the sanitizers need it and keep it anyway).
  if (amp::system::builtWithCuda() && !std::getenv("AMPSTUDIO_NORMAL_EXIT")) std::_Exit(exitCode);
#endif
  return exitCode;
}
