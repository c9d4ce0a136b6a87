#pragma once
// Subcommands of ampstudio-cli. Each add* registers its subcommand; the callback stores the
// process exit code in `exitCode`.
#include <CLI/CLI.hpp>

namespace amp::cli {

void addConfigCommands(CLI::App& app, int& exitCode);
void addAuditCommand(CLI::App& app, int& exitCode);
void addDataCommands(CLI::App& app, int& exitCode);
void addDataCheckCommand(CLI::App& app, int& exitCode);
void addDataPreviewCommand(CLI::App& dataCmd, int& exitCode);
void addAnalyzeCommand(CLI::App& app, int& exitCode);
void addEvalCommand(CLI::App& app, int& exitCode);
void addBenchCommands(CLI::App& app, int& exitCode);
void addBenchDataCommand(CLI::App& bench, int& exitCode);
void addBenchStepCommand(CLI::App& bench, int& exitCode);
void addBenchDdpCommand(CLI::App& bench, int& exitCode);
void addBenchMultigridCommand(CLI::App& bench, int& exitCode);
void addBenchMultigridTimeCommand(CLI::App& bench, int& exitCode);
void addInfoCommand(CLI::App& app, int& exitCode);
void addModelCommand(CLI::App& app, int& exitCode);
void addMultigridCommand(CLI::App& app, int& exitCode);
void addTrainCommand(CLI::App& app, int& exitCode);
void addTestCommand(CLI::App& app, int& exitCode);
void addPredictCommand(CLI::App& app, int& exitCode);
void addDemoCommand(CLI::App& app, int& exitCode);
void addRunCommands(CLI::App& app, int& exitCode);
void addVisualizeCommand(CLI::App& app, int& exitCode);

}  // namespace amp::cli
