// ampstudio-cli: the AMP Studio engine from a terminal or a GPU server.
#include <iostream>

#include "Commands.h"

int main(int argc, char** argv) {
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
  return exitCode;
}
