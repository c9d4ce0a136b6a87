#include <QtTest>

#include "train/LossExplosion.h"

using amp::train::LossExplosionGuard;

// PySlowFast's TrainMeter: a LOG_PERIOD-long window of the epoch's losses; past 6 of them, a loss
// above FACTOR x the mean of the 5 before it stops training.
class TestLossExplosion : public QObject {
  Q_OBJECT
 private slots:
  void firesFromTheSeventhLoss() {
    LossExplosionGuard g(2.0, 20);
    for (int i = 0; i < 5; ++i) QVERIFY(!g.add(1.0));
    QVERIFY(!g.add(100.0));  // 6th value: the window holds only 6, no check yet
    LossExplosionGuard h(2.0, 20);
    for (int i = 0; i < 6; ++i) QVERIFY(!h.add(1.0));
    QVERIFY(!h.add(2.0));         // not above 2 x 1
    const auto why = h.add(2.5);  // previous five: 1 1 1 1 2 -> mean 1.2, 2.5 > 2.4
    QVERIFY(why);
    QVERIFY(why->find("TRAIN.KILL_LOSS_EXPLOSION_FACTOR") != std::string::npos);
  }
  void uses5ValuesBeforeTheCurrentNotTheOldest() {
    LossExplosionGuard g(2.0, 20);
    g.add(100.0);  // the oldest of 7 is not among the five compared
    for (int i = 0; i < 5; ++i) QVERIFY(!g.add(1.0));
    QVERIFY(g.add(2.1));
  }
  void shortLogPeriodNeverFires() {
    LossExplosionGuard g(2.0, 6);
    for (int i = 0; i < 10; ++i) QVERIFY(!g.add(1.0));
    QVERIFY(!g.add(1000.0));
  }
  void resetsEveryEpochAndOffWhenZero() {
    LossExplosionGuard g(2.0, 20);
    for (int i = 0; i < 6; ++i) g.add(1.0);
    g.startEpoch();
    QVERIFY(!g.add(50.0));  // a new epoch starts an empty window
    LossExplosionGuard off(0.0, 20);
    for (int i = 0; i < 6; ++i) off.add(1.0);
    QVERIFY(!off.add(1e9));
  }
};

QTEST_APPLESS_MAIN(TestLossExplosion)
#include "tst_lossexplosion.moc"
