// The start page: each choice says what was chosen, templates are named from their folder (the
// demo marked), recent configs gone from the disk are shown but cannot be opened.
#include <QtTest>

#include <QCommandLinkButton>
#include <QListWidget>
#include <QSignalSpy>
#include <QTemporaryDir>

#include "StartPage.h"

using amp::widgets::StartPage;

class TestStartPage : public QObject {
  Q_OBJECT
 private slots:
  void buttonsSayWhatWasChosen() {
    StartPage page;
    QSignalSpy demo(&page, &StartPage::demoRequested), open(&page, &StartPage::openRequested),
        blank(&page, &StartPage::blankRequested), runs(&page, &StartPage::runFolderRequested);
    page.demoButton()->click();
    page.blankButton()->click();
    page.blankButton()->click();
    page.runFolderButton()->click();
    QCOMPARE(demo.count(), 1);
    QCOMPARE(open.count(), 0);
    QCOMPARE(blank.count(), 2);
    QCOMPARE(runs.count(), 1);
    page.openButton()->click();
    QCOMPARE(open.count(), 1);
  }

  void templatesAreNamedFromTheirFolder() {
    StartPage page;
    QSignalSpy chosen(&page, &StartPage::templateChosen);
    page.setTemplates({"/x/configs/demo/DEMO.yaml", "/x/configs/Kinetics/X3D_M.yaml"},
                      "/x/configs");
    QCOMPARE(page.templateList()->count(), 2);
    QCOMPARE(page.templateList()->item(0)->text(), QString("demo/DEMO.yaml (the demo)"));
    QCOMPARE(page.templateList()->item(1)->text(), QString("Kinetics/X3D_M.yaml"));
    emit page.templateList()->itemActivated(page.templateList()->item(1));
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.at(0).at(0).toString(), QString("/x/configs/Kinetics/X3D_M.yaml"));
    // Only a first entry under demo/ is the demo, the others say they are demos (they write
    // their data and train); the list is replaced, not appended to.
    page.setTemplates({"/x/configs/Kinetics/X3D_M.yaml", "/x/configs/demo/DEMO.yaml"},
                      "/x/configs");
    QCOMPARE(page.templateList()->count(), 2);
    QCOMPARE(page.templateList()->item(1)->text(),
             QString("demo/DEMO.yaml (a demo: writes its data, then trains)"));
  }

  // A template says what it is under its name: the first sentence of its leading comment.
  void templatesSayWhatTheyAre() {
    QTemporaryDir dir;
    auto write = [&dir](const QString& name, const QByteArray& text) {
      QFile f(dir.filePath(name));
      if (f.open(QIODevice::WriteOnly)) f.write(text);
      return dir.filePath(name);
    };
    const QString m = write("X3D_M.yaml",
                            "# X3D-M: 16 frames at stride 5, 224 px crops. 3.8M parameters,\n#   "
                            "4.7 GFLOPs a view.\nTRAIN:\n  ENABLE: True\n");
    const QString bare =
        write("BARE.yaml",
              "TRAIN:\n  ENABLE: True\n# a comment later on is not the file's description\n");
    const QString longer =
        write("LONG.yaml", "# " + QByteArray("word ").repeated(60) + "end.\nTRAIN: {}\n");
    QString whole;
    QCOMPARE(StartPage::configSummary(m, 150, &whole),
             QString("X3D-M: 16 frames at stride 5, 224 px crops."));
    QCOMPARE(
        whole,
        QString("X3D-M: 16 frames at stride 5, 224 px crops. 3.8M parameters, 4.7 GFLOPs a view."));
    QCOMPARE(StartPage::configSummary(bare), QString());
    QCOMPARE(StartPage::configSummary(dir.filePath("missing.yaml")), QString());
    const QString cut = StartPage::configSummary(longer, 40);
    QCOMPARE(cut, QString("word word word word word word word word") +
                      QChar(0x2026));  // at a word, under 40
    StartPage page;
    page.setTemplates({m, bare}, dir.path());
    QCOMPARE(page.templateList()->item(0)->text(),
             QString("X3D_M.yaml\nX3D-M: 16 frames at stride 5, 224 px crops."));
    QVERIFY(page.templateList()->item(0)->toolTip().contains("4.7 GFLOPs a view."));
    QCOMPARE(page.templateList()->item(1)->text(), QString("BARE.yaml"));
  }

  void recentConfigsGoneFromTheDiskCannotBeOpened() {
    QTemporaryDir dir;
    const QString there = dir.filePath("a.yaml"), gone = dir.filePath("gone.yaml");
    QFile f(there);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    StartPage page;
    page.show();
    QVERIFY(page.recentList()->isHidden());  // an empty list says so in words instead
    QSignalSpy chosen(&page, &StartPage::recentChosen);
    page.setRecent({there, gone});
    QVERIFY(!page.recentList()->isHidden());
    QCOMPARE(page.recentList()->count(), 2);
    QVERIFY(page.recentList()->item(0)->text().startsWith("a.yaml"));
    QVERIFY(page.recentList()->item(0)->flags() & Qt::ItemIsEnabled);
    QVERIFY(!(page.recentList()->item(1)->flags() & Qt::ItemIsEnabled));
    QVERIFY(page.recentList()->item(1)->toolTip().contains("no longer there"));
    emit page.recentList()->itemActivated(page.recentList()->item(1));
    QCOMPARE(chosen.count(), 0);
    emit page.recentList()->itemActivated(page.recentList()->item(0));
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.at(0).at(0).toString(), there);
    page.setRecent({});
    QVERIFY(page.recentList()->isHidden());
  }
};

QTEST_MAIN(TestStartPage)
#include "tst_startpage.moc"
