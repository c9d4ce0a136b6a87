// ampstudio: the desktop studio.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QScreen>
#include <QTimer>

#include "MainWindow.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("AMP Studio");
  QApplication::setApplicationName("AMP Studio");
  QApplication::setApplicationVersion(AMPSTUDIO_VERSION);
  QApplication::setWindowIcon(QIcon(":/ampstudio/ampstudio.svg"));
  QApplication::setDesktopFileName("ampstudio");

  QCommandLineParser parser;
  parser.setApplicationDescription("Desktop studio for mixed-precision training of video models");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("config", "PySlowFast YAML config to open");
  QCommandLineOption demo("demo", "Open the built-in demo config.", "config");
  QCommandLineOption runs("runs", "Folder whose runs are listed (default: ./runs).", "folder", "runs");
  QCommandLineOption screenshot("screenshot", "Save a PNG of the window after it is shown, then quit.", "png");
  parser.addOptions({demo, runs, screenshot});
  parser.process(app);

  amp::gui::MainWindow window;
  window.setRunsFolder(QDir(parser.value(runs)).absolutePath());
  const QString config = parser.isSet(demo) ? parser.value(demo) : parser.positionalArguments().value(0);
  if (!config.isEmpty() && !window.openConfig(config)) return 1;
  window.show();

  if (parser.isSet(screenshot)) {
    const QString png = parser.value(screenshot);
    QTimer::singleShot(1500, &window, [&window, png] {
      const bool ok = window.grab().save(png);
      QApplication::exit(ok ? 0 : 1);
    });
  }
  return app.exec();
}
