#include <QtTest>

#include <QTableWidget>
#include <QTemporaryDir>

#include "RunListPanel.h"
#include "runlog/RunDirectory.h"

using namespace amp;

namespace {
void makeRun(const QString& dir, const std::string& name, runlog::RunStatus status, const std::string& precision) {
  runlog::RunDirectory run(dir.toStdString());
  run.ensureExists();
  runlog::RunMetadata m;
  m.name = name;
  m.status = status;
  m.precision = precision;
  m.model = "X3D";
  m.startedAt = 1.79e9;
  m.endedAt = 1.79e9 + 125;
  run.writeMetadata(m);
}
}  // namespace

class TestRunListPanel : public QObject {
  Q_OBJECT
 private slots:
  void listsRunsAndPicksUpNewOnes() {
    QTemporaryDir dir;
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    QCOMPARE(panel.table()->rowCount(), 0);
    makeRun(dir.path() + "/a", "demo-fp32", runlog::RunStatus::Finished, "fp32");
    makeRun(dir.path() + "/b", "demo-amp", runlog::RunStatus::Failed, "bf16");
    panel.refresh();
    QCOMPARE(panel.table()->rowCount(), 2);
    QCOMPARE(panel.table()->item(0, 0)->text(), QString("demo-fp32"));
    QCOMPARE(panel.table()->item(1, 1)->text(), QString("failed"));
    QCOMPARE(panel.table()->item(1, 3)->text(), QString("bf16"));
    QCOMPARE(panel.table()->item(0, widgets::RunListPanel::Time)->text(), QString("0:02:05"));
  }

  void damagedMetadataIsShownNotHidden() {
    QTemporaryDir dir;
    QDir().mkpath(dir.path() + "/broken");
    QFile f(dir.path() + "/broken/run.json");
    f.open(QIODevice::WriteOnly);
    f.write("{ not json");
    f.close();
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    QCOMPARE(panel.table()->rowCount(), 1);
    QCOMPARE(panel.table()->item(0, 1)->text(), QString("unreadable"));
    QVERIFY(panel.table()->item(0, 0)->toolTip().contains("run.json"));
  }
};

QTEST_MAIN(TestRunListPanel)
#include "tst_runlistpanel.moc"
