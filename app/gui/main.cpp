// ampstudio: the desktop studio.
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QLineEdit>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStatusBar>
#include <QTimer>
#include <cstdio>
#include <functional>

#include "AnalysisPanel.h"
#include "ClipPreviewPanel.h"
#include "ComparisonPanel.h"
#include "GradCamControls.h"
#include "MainWindow.h"
#include "PrecisionAuditPanel.h"
#include "PredictPanel.h"
#include "StudioApplication.h"
#include "TrainingController.h"

int main(int argc, char** argv) {
  amp::gui::StudioApplication app(argc, argv);
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
  QCommandLineOption demo(
      "demo", "Train the built-in demo config (writing the demo dataset first if needed).",
      "config");
  QCommandLineOption runs("runs", "Folder whose runs are listed (default: ./runs).", "folder",
                          "runs");
  QCommandLineOption follow(
      "follow", "Show this run folder in the dashboard (followed live while it is written).",
      "run-dir");
  QCommandLineOption compare("compare", "Compare these run folders (comma-separated).", "dirs");
  QCommandLineOption groupBy(
      "group-by",
      "With --compare: group the runs by these run fields or config keys (comma-separated, e.g. "
      "SOLVER.BASE_LR,precision); each group is drawn as its mean with a band.",
      "keys");
  QCommandLineOption comparePane(
      "compare-pane",
      "With --compare: the pane below the charts: summary, diff, per-class or hyperparameters.",
      "name");
  QCommandLineOption tab(
      "tab",
      "Start on this tab: config, dashboard, compare, analysis, clips, precision or predict.",
      "name");
  QCommandLineOption analyze(
      "analyze", "Show this run's confusion matrix and mistakes (Analysis tab).", "run-dir");
  QCommandLineOption audit("audit", "Audit the precision of the opened config (Precision tab).");
  QCommandLineOption auditRun(
      "audit-run", "Audit the precision of this run's newest checkpoint (Precision tab).",
      "run-dir");
  QCommandLineOption predictRun("predict-run",
                                "Predict the videos given with --predict-video with this run's "
                                "newest checkpoint (Predict tab).",
                                "run-dir");
  QCommandLineOption predictVideo("predict-video",
                                  "A video for --predict-run (repeat it for several).", "video");
  QCommandLineOption predictOutput(
      "predict-output",
      "With --predict-run and one --predict-video: run the demo, write this video with the "
      "predictions drawn, and play it.",
      "video");
  QCommandLineOption predictBoxes(
      "predict-boxes", "With --predict-run on a detection run: the person boxes (AVA CSV).", "csv");
  QCommandLineOption gradCam("grad-cam",
                             "Clips tab: show the clip under Grad-CAM's heat map, with the "
                             "config's checkpoint (TEST.CHECKPOINT_FILE_PATH, else OUTPUT_DIR's "
                             "newest).");
  QCommandLineOption clip(
      "clip", "Clips tab: show this clip, SPLIT:POSITION (e.g. val:2; epoch 0).", "split:position");
  QCommandLineOption screenshot(
      "screenshot", "Save a PNG of the window after --screenshot-delay seconds, then quit.", "png");
  QCommandLineOption delay("screenshot-delay", "Seconds before the screenshot (default 2).",
                           "seconds", "2");
  QCommandLineOption size("size", "Window size WIDTHxHEIGHT.", "size");
  parser.addOptions({demo, runs, follow, compare, groupBy, comparePane, tab, analyze, audit,
                     auditRun, predictRun, predictVideo, predictOutput, predictBoxes, gradCam, clip,
                     screenshot, delay, size});
  parser.process(app);

  amp::gui::MainWindow window;
  // What no panel caught: said in a window that does not block the others (the runs and unsaved
  // edits stay as they were).
  QObject::connect(
      &app, &amp::gui::StudioApplication::uncaughtError, &window,
      [&window](const QString& what, const QString& where) {
        window.statusBar()->showMessage(QObject::tr("Error: %1").arg(what), 15000);
        auto* box = new QMessageBox(
            QMessageBox::Warning, QObject::tr("Something went wrong"),
            QObject::tr(
                "%1\n\nIn %2. The studio goes on: your runs and unsaved edits are as they were; "
                "the file or run being read when this happened was not loaded.")
                .arg(what, where),
            QMessageBox::Ok, &window);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
      });
  window.setRunsFolder(QDir(parser.value(runs)).absolutePath());
  if (parser.isSet(size)) {
    const QStringList wh = parser.value(size).split('x');
    if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
  }
  const QString config = parser.positionalArguments().value(0);
  // What the command line and the last session open runs before the event loop, outside
  // StudioApplication::notify: an exception there is reported and the studio starts anyway.
  const auto guarded = [&window](const char* what, const std::function<void()>& f) {
    try {
      f();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ampstudio: error: %s: %s; the studio starts without it\n", what,
                   e.what());
      window.statusBar()->showMessage(
          QObject::tr("Could not %1: %2").arg(what, QString::fromLocal8Bit(e.what())));
    }
  };
  bool opened = true;
  if (!config.isEmpty()) guarded("open the config", [&] { opened = window.openConfig(config); });
  if (!opened) return 1;
  // Where the last session left off: its config and selected run (unless told what to open).
  if (config.isEmpty() && !parser.isSet(demo) && !parser.isSet(follow) && !parser.isSet(compare) &&
      !parser.isSet(analyze) && !parser.isSet(screenshot))
    guarded("restore the last session", [&window] { window.restoreSession(); });
  window.show();
  if (parser.isSet(demo)) {
    const QString demoConfig = parser.value(demo);
    QTimer::singleShot(0, &window, [&window, demoConfig] { window.startDemo(demoConfig); });
  }
  if (parser.isSet(follow))
    guarded("follow the run", [&] { window.followRun(parser.value(follow)); });
  if (parser.isSet(compare))
    guarded("compare the runs",
            [&] { window.compareRuns(parser.value(compare).split(',', Qt::SkipEmptyParts)); });
  if (parser.isSet(groupBy)) {
    QString error;
    if (!window.comparison()->setGroupBy(parser.value(groupBy).split(',', Qt::SkipEmptyParts),
                                         &error)) {
      std::fprintf(stderr, "ampstudio: --group-by: %s\n", qPrintable(error));
      window.statusBar()->showMessage(error);
    }
  }
  if (parser.isSet(comparePane) && !window.comparison()->showPane(parser.value(comparePane)))
    std::fprintf(stderr,
                 "ampstudio: --compare-pane: no pane '%s' (summary, diff, per-class, "
                 "hyperparameters)\n",
                 qPrintable(parser.value(comparePane)));
  if (parser.isSet(analyze)) {
    window.analysisPanel()->showRun(parser.value(analyze));
    window.showTab("analysis");
  }
  if (parser.isSet(tab)) window.showTab(parser.value(tab));
  if (parser.isSet(clip)) {
    const QStringList at = parser.value(clip).split(':');
    auto* panel = window.clipPreview();
    const int split = panel->splitBox()->findText(at.value(0));
    if (at.size() != 2 || split < 0) {
      std::fprintf(stderr, "ampstudio: --clip takes SPLIT:POSITION, e.g. val:2\n");
      return 2;
    }
    window.showTab("clips");
    panel->splitBox()->setCurrentIndex(split);
    panel->clipBox()->setValue(at.value(1).toInt());
    if (!parser.isSet(gradCam)) panel->showClip();
  }
  if (parser.isSet(gradCam)) {
    window.showTab("clips");
    window.clipPreview()->gradCam()->setOn(true);  // shows the clip, under its map
  }
  if (parser.isSet(audit) || parser.isSet(auditRun)) {
    window.showTab("precision");
    guarded("audit the precision", [&] {
      if (parser.isSet(auditRun))
        window.precisionAudit()->auditRun(parser.value(auditRun));
      else
        window.precisionAudit()->auditConfig();
    });
  }
  if (parser.isSet(predictRun)) {
    window.showTab("predict");
    guarded("predict", [&] {
      if (window.predictPanel()->useRun(parser.value(predictRun))) {
        window.predictPanel()->addVideos(parser.values(predictVideo));
        if (parser.isSet(predictBoxes))
          window.predictPanel()->boxesEdit()->setText(parser.value(predictBoxes));
        if (parser.isSet(predictOutput)) {
          window.predictPanel()->outputEdit()->setText(parser.value(predictOutput));
          QObject::connect(window.predictPanel(), &amp::widgets::PredictPanel::finished,
                           window.predictPanel(), [&window](bool ok) {
                             if (ok) window.predictPanel()->playVideo();
                           });
        }
        if (!parser.values(predictVideo).isEmpty()) window.predictPanel()->predict();
      }
    });
  }

  if (parser.isSet(screenshot)) {
    const QString png = parser.value(screenshot);
    QTimer::singleShot(
        static_cast<int>(parser.value(delay).toDouble() * 1000), &window, [&window, png] {
          bool ok = window.grab().save(png);
          // Dialogs the window opened (the demo's player) beside it: png-2.png ...
          int n = 1;
          for (QWidget* w : QApplication::topLevelWidgets())
            if (w != &window && w->isVisible() && w->isWindow())
              ok = w->grab().save(QString(png).replace(QRegularExpression("\\.png$"),
                                                       QStringLiteral("-%1.png").arg(++n))) &&
                   ok;
          window.controller()->stop();
          window.controller()->waitForEnd();
          QApplication::exit(ok ? 0 : 1);
        });
  }
  return app.exec();
}
