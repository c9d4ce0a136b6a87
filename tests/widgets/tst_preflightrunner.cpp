// The studio's pre-flight: problems of the machine, the data and the files appear in the editor's
// problem list with their keys, computed on a worker thread (the editor keeps taking edits while
// a slow check runs), and the last result is reused while the config stays the same.
#include <QtTest>

#include <QLabel>

#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QThread>
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "ConfigEditorPanel.h"
#include "ConfigTextEdit.h"
#include "DiagnosticsView.h"
#include "PreflightRunner.h"
#include "support/DemoFixture.h"

using namespace amp;

namespace {

// A check that blocks until released, recording the thread it ran on (no timing involved).
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> calls{0};
  std::atomic<QThread*> thread{nullptr};
  config::Diagnostics result;
  widgets::PreflightRunner::CheckFn check() {
    return [this](const config::Config&, const std::string& file) {
      thread = QThread::currentThread();
      ++calls;
      std::unique_lock<std::mutex> lock(mutex);
      cv.wait(lock, [this] { return open; });
      config::Diagnostics d = result;
      for (auto& x : d) x.where.file = file;
      return d;
    };
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      open = true;
    }
    cv.notify_all();
  }
};

QStringList column(const widgets::DiagnosticsView* view, int c) {
  QStringList out;
  for (int i = 0; i < view->topLevelItemCount(); ++i) out << view->topLevelItem(i)->text(c);
  return out;
}

}  // namespace

class TestPreflightRunner : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    testsupport::DemoFixture demo({}, /*clipsPerClass=*/2);  // the data set in dir_/data
    QVERIFY2(demo.generate(dir_.path()), demo.error().c_str());
  }

  void eachProblemAppearsWithItsKey() {
    QFile plain(dir_.filePath("plainfile"));
    QVERIFY(plain.open(QIODevice::WriteOnly));
    plain.close();
    widgets::ConfigEditorPanel panel;
    panel.preflight()->setDebounceInterval(0);
    panel.setPreflightEnabled(true);
    panel.setText(
        QStringLiteral(
            "NUM_GPUS: 64\nDATA:\n  PATH_TO_DATA_DIR: %1\nTRAIN:\n  CHECKPOINT_FILE_PATH: %2\n"
            "TEST:\n  CHECKPOINT_FILE_PATH: %3\nOUTPUT_DIR: %4\n")
            .arg(dir_.filePath("nowhere"), dir_.filePath("no.pyth"), dir_.filePath("none.pyth"),
                 dir_.filePath("plainfile/run")));
    QVERIFY(panel.config().has_value());
    QVERIFY(panel.preflightPending());
    QTRY_VERIFY_WITH_TIMEOUT(!panel.preflightPending(), 60000);
    const QStringList keys = column(panel.diagnosticsView(), 1);
    for (const char* key : {"NUM_GPUS", "DATA.PATH_TO_DATA_DIR", "TRAIN.CHECKPOINT_FILE_PATH",
                            "TEST.CHECKPOINT_FILE_PATH", "OUTPUT_DIR"})
      QVERIFY2(keys.contains(key),
               qPrintable(key + QStringLiteral(" missing from ") + keys.join(", ")));
    // Located at their lines, marked as pre-flight.
    QVERIFY2(column(panel.diagnosticsView(), 0).contains("pre-flight, line 1"),
             qPrintable(column(panel.diagnosticsView(), 0).join(", ")));
    QVERIFY(panel.preflightErrorCount() >= 5);
    QVERIFY(panel.startProblem().contains("pre-flight"));
    // Fixing the text: the problems go, Start may go.
    panel.setText(QStringLiteral("NUM_GPUS: 0\nDATA:\n  PATH_TO_DATA_DIR: %1\n  PATH_PREFIX: %1\n  "
                                 "INPUT_CHANNEL_NUM: [3]\nOUTPUT_DIR: %2\n"
                                 "MODEL:\n  ARCH: x3d\n  MODEL_NAME: X3D\n  NUM_CLASSES: "
                                 "8\nRESNET:\n  TRANS_FUNC: x3d_transform\n"
                                 "DATA_LOADER:\n  NUM_WORKERS: 1\n")
                      .arg(dir_.filePath("data"), dir_.filePath("runs/ok")));
    QTRY_VERIFY_WITH_TIMEOUT(!panel.preflightPending(), 60000);
    QVERIFY2(panel.config().has_value(), qPrintable(column(panel.diagnosticsView(), 2).join("\n")));
    QVERIFY2(panel.preflightErrorCount() == 0,
             qPrintable(column(panel.diagnosticsView(), 2).join("\n")));
    QVERIFY(panel.startProblem().isEmpty());
  }

  // What train refuses is a warning of the config check and an error before start: listed once,
  // as the error; the summary counts it once.
  void whatTrainRefusesIsListedOnceAsAnError() {
    widgets::ConfigEditorPanel panel;
    panel.preflight()->setDebounceInterval(0);
    panel.setPreflightEnabled(true);
    panel.setText(
        QStringLiteral("NUM_GPUS: 0\nDATA:\n  PATH_TO_DATA_DIR: %1\n  PATH_PREFIX: %1\n  "
                       "INPUT_CHANNEL_NUM: [3]\n"
                       "  MULTI_LABEL: True\nOUTPUT_DIR: %2\nMODEL:\n  ARCH: x3d\n  MODEL_NAME: "
                       "X3D\n  NUM_CLASSES: 8\n"
                       "RESNET:\n  TRANS_FUNC: x3d_transform\nDATA_LOADER:\n  NUM_WORKERS: 1\n")
            .arg(dir_.filePath("data"), dir_.filePath("runs/refused")));
    QVERIFY(panel.config().has_value());
    QVERIFY(panel.shownChecks().size() == 1 &&
            panel.shownChecks()[0].key == "DATA.MULTI_LABEL");  // the check's warning
    QTRY_VERIFY_WITH_TIMEOUT(!panel.preflightPending(), 60000);
    const QStringList keys = column(panel.diagnosticsView(), 1);
    QCOMPARE(keys.count("DATA.MULTI_LABEL"), 1);
    QVERIFY(panel.shownChecks().empty());
    QCOMPARE(panel.preflightErrorCount(), 1);
    const QString summary = panel.summaryLabel()->text();
    QCOMPARE(summary, QString("Valid PySlowFast config. Before start: 1 error (Start is off)."));
    QCOMPARE(panel.warningCount(), 1);       // the config check's own count
    QCOMPARE(panel.shownWarningCount(), 0);  // what the list shows and the status bar counts
  }

  void checksRunOffTheGuiThreadAndTheEditorStaysResponsive() {
    Gate gate;  // outlives the panel, whose preflight runner joins the worker that calls it
    widgets::ConfigEditorPanel panel;
    config::Diagnostic d;
    d.key = "DATA.PATH_TO_DATA_DIR";
    d.message = "slow folder checked";
    gate.result = {d};
    panel.preflight()->setChecks(gate.check(), nullptr);
    panel.preflight()->setDebounceInterval(0);
    panel.setPreflightEnabled(true);
    panel.setText("TRAIN:\n  BATCH_SIZE: 8\n");
    QTRY_VERIFY(gate.calls == 1);  // the check has started and is blocked
    QVERIFY(gate.thread.load() != QThread::currentThread());
    QVERIFY(panel.preflightPending());
    // While it is blocked, the editor takes typing and validates it: the GUI thread is free.
    QSignalSpy validated(&panel, &widgets::ConfigEditorPanel::validated);
    panel.textEdit()->moveCursor(QTextCursor::End);
    QTest::keyClicks(panel.textEdit(), "SOLVER:");
    QTest::keyClick(panel.textEdit(), Qt::Key_Return);
    QTest::keyClicks(panel.textEdit(), "  BASE_LR: -1");
    QVERIFY(panel.text().contains("BASE_LR: -1"));
    QTRY_VERIFY(validated.count() > 0);
    QCOMPARE(panel.errorCount(), 1);  // the validator's, at once
    // Back to a valid config; the check of it waits behind the blocked one.
    panel.setText("TRAIN:\n  BATCH_SIZE: 8\n");
    gate.release();
    QTRY_VERIFY(!panel.preflightPending());
    QVERIFY(column(panel.diagnosticsView(), 1).contains("DATA.PATH_TO_DATA_DIR"));
    QCOMPARE(panel.preflightErrorCount(), 1);
  }

  void theSameConfigIsNotCheckedTwice() {
    Gate gate;  // outlives the panel, whose preflight runner joins the worker that calls it
    widgets::ConfigEditorPanel panel;
    gate.release();
    panel.preflight()->setChecks(gate.check(), nullptr);
    panel.preflight()->setDebounceInterval(0);
    panel.setPreflightEnabled(true);
    panel.setText("TRAIN:\n  BATCH_SIZE: 8\n");
    QTRY_VERIFY(!panel.preflightPending() && !panel.preflight()->running());
    const int calls = gate.calls;
    panel.validateNow();  // same text: the cached result stands
    panel.setText("TRAIN:\n  BATCH_SIZE: 8  # a comment changes nothing\n");
    QVERIFY(!panel.preflightPending());
    QCOMPARE(gate.calls.load(), calls);
    panel.preflight()->recheck();  // the disk may have changed: checked again
    QTRY_VERIFY(!panel.preflightPending() && !panel.preflight()->running());
    QCOMPARE(gate.calls.load(), calls + 1);
  }

  // A check that throws (std::bad_alloc from a hostile dataset list) is the check's error: before,
  // the exception left the worker thread and ended the studio.
  void aCheckThatThrowsIsAnErrorNotACrash() {
    widgets::ConfigEditorPanel panel;
    panel.preflight()->setChecks(
        [](const config::Config&, const std::string&) -> config::Diagnostics {
          throw std::bad_alloc();
        },
        nullptr);
    panel.preflight()->setDebounceInterval(0);
    panel.setPreflightEnabled(true);
    panel.setText("TRAIN:\n  BATCH_SIZE: 8\n");
    QTRY_VERIFY(!panel.preflightPending() && !panel.preflight()->running());
    QCOMPARE(panel.preflightErrorCount(), 1);
    const auto& d = panel.preflight()->diagnostics();
    QVERIFY(!d.empty());
    QVERIFY2(
        d.front().message.find("the pre-flight check failed: std::bad_alloc") != std::string::npos,
        d.front().message.c_str());
  }

  void offByDefault() {
    widgets::ConfigEditorPanel panel;
    panel.setText("NUM_GPUS: 64\n");
    QVERIFY(!panel.preflightPending());
    QCOMPARE(panel.preflightErrorCount(), 0);
    QVERIFY(panel.startProblem().isEmpty());
  }
};

QTEST_MAIN(TestPreflightRunner)
#include "tst_preflightrunner.moc"
