// ampstudio-cli: the AMP Studio engine from a terminal or a GPU server.
#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "util/FatalSignal.h"

int main(int argc, char** argv) {
  amp::util::installFatalSignalReport("ampstudio-cli");
  CLI::App app{"AMP Studio command line: PySlowFast-style mixed-precision video training", "ampstudio-cli"};
  app.set_version_flag("--version", std::string("ampstudio-cli ") + AMPSTUDIO_VERSION);
  app.require_subcommand(1);
  int exitCode = 0;
  amp::cli::addConfigCommands(app, exitCode);
  amp::cli::addDataCommands(app, exitCode);
  amp::cli::addDataCheckCommand(app, exitCode);
  amp::cli::addBenchCommands(app, exitCode);
  amp::cli::addAuditCommand(app, exitCode);
  amp::cli::addInfoCommand(app, exitCode);
  amp::cli::addModelCommand(app, exitCode);
  amp::cli::addMultigridCommand(app, exitCode);
  amp::cli::addTrainCommand(app, exitCode);
  amp::cli::addTestCommand(app, exitCode);
  amp::cli::addPredictCommand(app, exitCode);
  amp::cli::addRunCommands(app, exitCode);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  // What the command printed is out before static destructors and library teardown run: a crash
  // there (seen on a CUDA machine) must not swallow the results.
  std::cout.flush();
  std::fflush(nullptr);
  amp::util::markExiting();
  amp::util::crashIfArmed("exit");
  return exitCode;
}
