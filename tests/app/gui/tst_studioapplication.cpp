// Hostile input and the studio: an exception no panel caught is reported and the studio goes on
// (its other views and unsaved edits as they were); a 1 KB YAML alias bomb opened as a config,
// hidden in a _BASE_ file, or as a compared run's config.yaml is refused by name, the other run
// of the comparison and the editor's unsaved text untouched.
#include <QtTest>

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <fstream>
#include <new>
#include <stdexcept>

#include "ComparisonPanel.h"
#include "ConfigEditorPanel.h"
#include "MainWindow.h"
#include "StudioApplication.h"
#include "support/HostileInput.h"
#include "support/RecordedRun.h"

using namespace amp;

class TestStudioApplication : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

  QString write(const QString& name, const std::string& text) {
    const QString path = dir_.filePath(name);
    QDir().mkpath(QFileInfo(path).absolutePath());
    std::ofstream(path.toStdString()) << text;
    return path;
  }
  static gui::StudioApplication* app() { return qobject_cast<gui::StudioApplication*>(qApp); }

 private slots:
  void initTestCase() {
    QVERIFY(app());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("AMP Studio Tests");
    QCoreApplication::setApplicationName("tst_studioapplication");
    QSettings().clear();
  }

  // Before StudioApplication, each of these ended the process in std::terminate.
  void anExceptionLeavingASlotIsReportedAndTheLoopGoesOn() {
    QSignalSpy spy(app(), &gui::StudioApplication::uncaughtError);
    QObject target;
    target.setObjectName("reader");
    QTimer::singleShot(0, &target, [] { throw std::runtime_error("metrics.jsonl:3: bad line"); });
    QTimer::singleShot(0, &target, [] { throw std::bad_alloc(); });
    bool later = false;
    QTimer::singleShot(20, &target, [&later] { later = true; });
    QTRY_COMPARE(spy.count(), 2);
    QTRY_VERIFY(later);  // events after the failed ones are delivered
    QCOMPARE(spy.at(0).at(0).toString(), QString("metrics.jsonl:3: bad line"));
    QVERIFY2(spy.at(0).at(1).toString().contains("'reader'"),
             qPrintable(spy.at(0).at(1).toString()));
    QVERIFY(spy.at(1).at(0).toString().contains("out of memory"));
    QCOMPARE(app()->uncaughtCount(), 2);
  }

  void theWindowSurvivesAThrowingHandlerWithItsEditsKept() {
    gui::MainWindow window;
    window.show();
    const QString good = write("good.yaml", "TRAIN:\n  BATCH_SIZE: 8\n");
    QVERIFY(window.openConfig(good));
    window.editor()->setText("TRAIN:\n  BATCH_SIZE: 16\n");  // unsaved
    QVERIFY(window.editor()->isDirty());
    QSignalSpy spy(app(), &gui::StudioApplication::uncaughtError);
    QTimer::singleShot(0, &window, [] { throw std::runtime_error("boom"); });
    QTRY_COMPARE(spy.count(), 1);
    QVERIFY(window.isVisible());
    QVERIFY(window.editor()->isDirty());
    QCOMPARE(window.editor()->text(), QString("TRAIN:\n  BATCH_SIZE: 16\n"));
  }

  void anAliasBombConfigOpensAsAnErrorAtItsKey() {
    gui::MainWindow window;
    const QString bomb = write("bomb.yaml", testsupport::yamlAliasBomb());
    QVERIFY(window.openConfig(bomb));  // the text is 1 KB: shown, and its problem underlined
    QCOMPARE(window.editor()->errorCount(), 1);
    QVERIFY(!window.editor()->config());
    const config::Diagnostics d = window.editor()->diagnostics();
    QVERIFY(!d.empty());
    QCOMPARE(d.front().key, std::string("TRAIN.BATCH_SIZE"));
    QVERIFY2(
        d.front().message.find("alias expands to more than 100000 values") != std::string::npos,
        d.front().message.c_str());
    // Hidden one file down: the same message, naming the _BASE_ file.
    write("base/bomb.yaml", testsupport::yamlAliasBomb());
    const QString top = write("top.yaml", "_BASE_: base/bomb.yaml\n");
    QVERIFY(window.openConfig(top));
    QCOMPARE(window.editor()->errorCount(), 1);
    QCOMPARE(window.editor()->diagnostics().front().where.file,
             dir_.filePath("base/bomb.yaml").toStdString());
  }

  void aDeviceOrHugeFileIsNotOpenedAsAConfig() {
    widgets::ConfigEditorPanel editor;
    QString error;
    QVERIFY(!editor.openFile("/dev/zero", &error));
    QVERIFY2(error.contains("is not a regular file"), qPrintable(error));
    const QString big = write("big.yaml", std::string(5u << 20, '#'));
    QVERIFY(!editor.openFile(big, &error));
    QVERIFY2(error.contains("is 5 MiB"), qPrintable(error));
    QVERIFY(!editor.newFromTemplate("/dev/zero", &error));  // File > New from Template too
    QVERIFY2(error.contains("is not a regular file"), qPrintable(error));
  }

  // A refused config.yaml and a metrics line of 2 MiB (a line may hold 1 MiB) each mark their own
  // run in the summary; the good run and the other lines are shown as ever.
  void comparingHostileRunsMarksThoseRunsOnly() {
    const QString good = dir_.filePath("runs/good"), bad = dir_.filePath("runs/bad");
    const QString longLine = dir_.filePath("runs/long");
    testsupport::recordRun(good, "good", "fp32", 2.0, 400, 20, "TRAIN:\n  BATCH_SIZE: 8\n");
    testsupport::recordRun(bad, "bad", "bf16", 3.0, 200, 25, testsupport::yamlAliasBomb());
    testsupport::recordRun(longLine, "long", "fp32", 2.0, 400, 20, "TRAIN:\n  BATCH_SIZE: 8\n");
    std::ofstream(runlog::RunDirectory(longLine.toStdString()).metricsPath(), std::ios::app)
        << std::string(2u << 20, '7') << "\n";
    gui::MainWindow window;
    window.compareRuns({good, bad, longLine});
    const QString md = window.comparison()->summaryMarkdown();
    QStringList rows = md.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 5);  // header, rule, three runs
    QVERIFY2(rows[2].startsWith("| good (baseline)") && !rows[2].contains("config not read"),
             qPrintable(rows[2]));
    QVERIFY2(
        rows[3].contains("config not read") && rows[3].contains("TRAIN.BATCH_SIZE: alias expands"),
        qPrintable(rows[3]));
    QVERIFY2(rows[4].contains("a line longer than 1048576 bytes"), qPrintable(rows[4]));
    const QTableWidget* table = window.comparison()->summaryTable();
    const QString tip = table->item(1, table->columnCount() - 1)->toolTip();  // elided in the cell
    QVERIFY2(tip.contains("alias expands to more than 100000 values (YAML anchors"),
             qPrintable(tip));
    QVERIFY2(rows[4].contains("| 1.0000 (1.00×) |"),
             qPrintable(rows[4]));  // its other lines still count
  }
};

int main(int argc, char** argv) {
  gui::StudioApplication app(argc, argv);
  TestStudioApplication t;
  return QTest::qExec(&t, argc, argv);
}
#include "tst_studioapplication.moc"
