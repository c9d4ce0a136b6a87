#include <QtTest>

#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>

#include "ConfigEditorPanel.h"
#include "ConfigTextEdit.h"
#include "DiagnosticsView.h"

using amp::widgets::ConfigEditorPanel;

namespace {
QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.path() + "/" + name;
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(text);
  return path;
}
}  // namespace

class TestConfigEditorPanel : public QObject {
  Q_OBJECT
 private slots:
  void openValidFile() {
    ConfigEditorPanel panel;
    QString error;
    QVERIFY(
        panel.openFile(QString(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml", &error));
    QCOMPARE(panel.errorCount(), 0);
    QVERIFY(panel.config());
    QCOMPARE(panel.config()->getString("MODEL.ARCH"), std::string("x3d"));
    QVERIFY(!panel.isDirty());
    QVERIFY(panel.textEdit()->markers().empty());
  }

  // In the studio's default window (1440 wide, runs dock 380) the form shows whole: no
  // horizontal scrolling, nothing cut off on the right.
  void theFormFitsWithoutScrolling() {
    ConfigEditorPanel panel;
    QString error;
    QVERIFY(
        panel.openFile(QString(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml", &error));
    panel.resize(1440 - 380, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto* scroll = panel.findChild<QScrollArea*>();
    QVERIFY(scroll);
    QVERIFY2(!scroll->horizontalScrollBar()->isVisible(),
             qPrintable(QString("form %1 px wide in %2 px")
                            .arg(scroll->widget()->minimumSizeHint().width())
                            .arg(scroll->viewport()->width())));
  }

  void typingAnErrorUnderlinesItsLine() {
    ConfigEditorPanel panel;
    QSignalSpy validated(&panel, &ConfigEditorPanel::validated);
    panel.setText("TRAIN:\n  BATCH_SIZE: 8\nSOLVER:\n  BASE_LR: 0.1\n");
    QCOMPARE(panel.errorCount(), 0);
    // Type into the real widget: change 0.1 to -0.1 on line 4.
    auto* edit = panel.textEdit();
    edit->goTo(4, 12);
    QTest::keyClicks(edit, "-");
    QVERIFY(validated.wait(2000));  // validation runs after the typing pause
    QCOMPARE(panel.errorCount(), 1);
    QVERIFY(!panel.config());
    QCOMPARE(edit->markers().size(), size_t(1));
    QCOMPARE(edit->markers()[0].line, 4);
    QVERIFY(edit->messagesAt(4).contains("SOLVER.BASE_LR"));
    QVERIFY(edit->messagesAt(4).contains(">= 0"));
    QCOMPARE(panel.diagnosticsView()->topLevelItemCount(), 1);
    QVERIFY(panel.diagnosticsView()->topLevelItem(0)->text(0).contains("line 4"));
    // Fix it again.
    edit->goTo(4, 12);
    QTest::keyClick(edit, Qt::Key_Delete);
    panel.validateNow();
    QCOMPARE(panel.errorCount(), 0);
    QVERIFY(edit->markers().empty());
  }

  void diagnosticActivationMovesTheCursor() {
    ConfigEditorPanel panel;
    panel.setText("TRAIN:\n  BATCH_SIZE: 8\n\n\nDATA:\n  NUM_FRAME: 8\n");
    QCOMPARE(panel.errorCount(), 1);
    auto* item = panel.diagnosticsView()->topLevelItem(0);
    emit panel.diagnosticsView()->itemActivated(item, 0);
    QCOMPARE(panel.textEdit()->textCursor().blockNumber(), 5);
    QVERIFY(item->text(2).contains("did you mean DATA.NUM_FRAMES"));
  }

  void dirtySaveAndRevert() {
    QTemporaryDir dir;
    const QString path = writeFile(dir, "cfg.yaml", "SOLVER:\n  BASE_LR: 0.1\n");
    ConfigEditorPanel panel;
    QSignalSpy dirty(&panel, &ConfigEditorPanel::dirtyChanged);
    QVERIFY(panel.openFile(path, nullptr));
    panel.textEdit()->moveCursor(QTextCursor::End);
    QTest::keyClicks(panel.textEdit(), "  MAX_EPOCH: 5");
    QTest::keyClick(panel.textEdit(), Qt::Key_Return);
    QVERIFY(panel.isDirty());
    QVERIFY(dirty.count() >= 1);
    QString error;
    QVERIFY2(panel.save(&error), qPrintable(error));
    QVERIFY(!panel.isDirty());
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    QVERIFY(f.readAll().contains("MAX_EPOCH: 5"));
    QTest::keyClicks(panel.textEdit(), "# scratch");
    QVERIFY(panel.isDirty());
    panel.revert();
    QVERIFY(!panel.isDirty());
    QVERIFY(!panel.text().contains("scratch"));
  }

  void baseResolvesNextToTheFile() {
    QTemporaryDir dir;
    writeFile(dir, "base.yaml", "TRAIN:\n  BATCH_SIZE: 4\n");
    const QString path =
        writeFile(dir, "child.yaml", "_BASE_: base.yaml\nSOLVER:\n  MAX_EPOCH: 3\n");
    ConfigEditorPanel panel;
    QVERIFY(panel.openFile(path, nullptr));
    QCOMPARE(panel.errorCount(), 0);
    QCOMPARE(panel.config()->getInt("TRAIN.BATCH_SIZE"), std::int64_t(4));
  }

  void unreadableFile() {
    ConfigEditorPanel panel;
    QString error;
    QVERIFY(!panel.openFile("/no/such/config.yaml", &error));
    QVERIFY(error.contains("/no/such/config.yaml"));
    QVERIFY(!panel.save(&error));  // no file yet
    QVERIFY(error.contains("Save As"));
  }
};

QTEST_MAIN(TestConfigEditorPanel)
#include "tst_configeditorpanel.moc"
