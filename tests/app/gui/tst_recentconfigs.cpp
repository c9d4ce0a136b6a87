// File > Open Recent and the start page's list: newest first, each config once, at most eight,
// kept across sessions; the newest is what the next launch reopens.
#include <QtTest>

#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "RecentConfigs.h"

using amp::gui::RecentConfigs;

class TestRecentConfigs : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // QSettings of the test, not the user's
    QCoreApplication::setOrganizationName("AMP Studio Tests");
    QCoreApplication::setApplicationName("tst_recentconfigs");
  }
  void init() { QSettings().clear(); }

  void newestFirstEachOnce() {
    RecentConfigs recent;
    QSignalSpy changed(&recent, &RecentConfigs::changed);
    QVERIFY(recent.paths().isEmpty());
    recent.remember("/a.yaml");
    recent.remember("/b.yaml");
    recent.remember("/c.yaml");
    QCOMPARE(recent.paths(), QStringList({"/c.yaml", "/b.yaml", "/a.yaml"}));
    recent.remember("/a.yaml");  // opened again: to the front, not twice
    QCOMPARE(recent.paths(), QStringList({"/a.yaml", "/c.yaml", "/b.yaml"}));
    QCOMPARE(changed.count(), 4);
  }

  void theOldestBeyondTheCapIsDropped() {
    RecentConfigs recent;
    for (int i = 0; i < RecentConfigs::kMaxRecent + 3; ++i)
      recent.remember(QStringLiteral("/c%1.yaml").arg(i));
    const QStringList paths = recent.paths();
    QCOMPARE(paths.size(), RecentConfigs::kMaxRecent);
    QCOMPARE(paths.front(), QStringLiteral("/c%1.yaml").arg(RecentConfigs::kMaxRecent + 2));
    QCOMPARE(paths.back(), QString("/c3.yaml"));  // c0, c1, c2 gone
  }

  // Another instance (the next session) reads the same list; the last config only while its
  // file exists.
  void theListAndTheLastConfigOutliveTheSession() {
    QTemporaryDir dir;
    const QString kept = dir.filePath("kept.yaml");
    QFile f(kept);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    {
      RecentConfigs first;
      first.remember(kept);
    }
    RecentConfigs next;
    QCOMPARE(next.paths(), QStringList{kept});
    QCOMPARE(next.lastConfig(), kept);
    next.remember(dir.filePath("gone.yaml"));  // never written
    QVERIFY(next.lastConfig().isEmpty());
    QCOMPARE(next.paths(), QStringList({dir.filePath("gone.yaml"), kept}));  // still listed
  }
};

QTEST_GUILESS_MAIN(TestRecentConfigs)
#include "tst_recentconfigs.moc"
