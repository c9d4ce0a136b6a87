#pragma once
// What the studio's ampstudio-cli panels (Precision, Predict) must show the user around their
// call, checked the same way for each: beside a training run the call yields the cores and Cancel
// ends it; a failing call and a missing CLI are said in the status line. Each panel's own suite
// starts its call and checks what only it shows (a report, a table) after these.
//
//   QSignalSpy done(&panel, &widgets::PredictPanel::finished);
//   panel.predict();
//   amp::testing::checkYieldsAndCancels(panel, done);
//   if (QTest::currentTestFailed()) return;
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

#include <functional>

#include "NiceOf.h"

namespace amp::testing {

/// `panel` has just started its call with the training run active; `done` spies its finished().
template <class Panel>
void checkYieldsAndCancels(Panel& panel, QSignalSpy& done) {
  QVERIFY(panel.lastArguments().join(' ').contains("--threads 1"));
  QTRY_VERIFY(panel.processId() > 0);
  QCOMPARE(niceOf(panel.processId()), nicerThanThisTest(10));
  panel.cancel();
  QVERIFY(done.wait(20000));
  QCOMPARE(done.front().front().toBool(), false);
  QVERIFY2(panel.status()->text().contains("cancelled"), qPrintable(panel.status()->text()));
  QVERIFY(!panel.busy());
}

/// `start` starts `panel`'s call on a config that loads; a missing checkpoint fails the call, a
/// missing CLI fails before it. Both say why. `dir`: a folder with neither in it.
template <class Panel>
void checkCliErrorsAreSaid(Panel& panel, const std::function<void()>& start, const QString& dir) {
  panel.checkpointEdit()->setText(dir + "/missing.pyth");
  QSignalSpy done(&panel, &Panel::finished);
  start();
  QVERIFY(done.wait(60000));
  QCOMPARE(done.front().front().toBool(), false);
  QVERIFY2(panel.status()->text().contains("missing.pyth"), qPrintable(panel.status()->text()));

  panel.setCliPath(dir + "/no-cli");
  start();
  QVERIFY2(panel.status()->text().contains("ampstudio-cli, which was not found"),
           qPrintable(panel.status()->text()));
}

}  // namespace amp::testing
