#include <QtTest>

#include <QSignalSpy>
#include <QTreeWidget>

#include "SchemaBrowser.h"
#include "config/KeySchema.h"

using amp::widgets::SchemaBrowser;

class TestSchemaBrowser : public QObject {
  Q_OBJECT
 private slots:
  void listsEveryKey() {
    SchemaBrowser browser;
    QCOMPARE(browser.visibleKeyCount(),
             static_cast<int>(amp::config::KeySchema::builtin()->keys().size()));
  }

  void filterByNameAndDoc() {
    SchemaBrowser browser;
    browser.setFilter("AMP.");
    QCOMPARE(browser.visibleKeyCount(),
             10);                     // the nine AMP.* keys and TRAIN.MIXED_PRECISION ("see AMP.*")
    browser.setFilter("loss scale");  // matches documentation text
    QVERIFY(browser.visibleKeyCount() >= 3);
    browser.setFilter("no-such-key-anywhere");
    QCOMPARE(browser.visibleKeyCount(), 0);
    browser.setFilter("");
    QVERIFY(browser.visibleKeyCount() > 300);
  }

  void tooltipsCarryDocsAndActivationNamesTheKey() {
    SchemaBrowser browser;
    QSignalSpy activated(&browser, &SchemaBrowser::keyActivated);
    browser.setFilter("GROWTH_FACTOR");
    QTreeWidgetItem* item = nullptr;
    for (int g = 0; g < browser.tree()->topLevelItemCount() && !item; ++g)
      for (int i = 0; i < browser.tree()->topLevelItem(g)->childCount(); ++i)
        if (!browser.tree()->topLevelItem(g)->child(i)->isHidden())
          item = browser.tree()->topLevelItem(g)->child(i);
    QVERIFY(item);
    QVERIFY(item->toolTip(0).contains("Allowed: &gt; 1") ||
            item->toolTip(0).contains("Allowed: > 1"));
    emit browser.tree()->itemActivated(item, 0);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.at(0).at(0).toString(), QString("AMP.GROWTH_FACTOR"));
  }
};

QTEST_MAIN(TestSchemaBrowser)
#include "tst_schemabrowser.moc"
