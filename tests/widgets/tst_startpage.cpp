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
    page.setTemplates({"/x/configs/demo/DEMO.yaml", "/x/configs/Kinetics/X3D_M.yaml"}, "/x/configs");
    QCOMPARE(page.templateList()->count(), 2);
    QCOMPARE(page.templateList()->item(0)->text(), QString("demo/DEMO.yaml (the demo)"));
    QCOMPARE(page.templateList()->item(1)->text(), QString("Kinetics/X3D_M.yaml"));
    emit page.templateList()->itemActivated(page.templateList()->item(1));
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.at(0).at(0).toString(), QString("/x/configs/Kinetics/X3D_M.yaml"));
    // Only a first entry under demo/ is the demo; the list is replaced, not appended to.
    page.setTemplates({"/x/configs/Kinetics/X3D_M.yaml", "/x/configs/demo/DEMO.yaml"}, "/x/configs");
    QCOMPARE(page.templateList()->count(), 2);
    QCOMPARE(page.templateList()->item(1)->text(), QString("demo/DEMO.yaml"));
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
