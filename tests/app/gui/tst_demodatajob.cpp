// The demo dataset written on the thread pool: progress and the outcome arrive as signals, a
// second start waits its turn, a failure says why, and deleting the job mid-write (its window
// closed) neither crashes nor leaves half a dataset.
#include <QtTest>

#include <QTemporaryDir>
#include <QThreadPool>

#include "DemoDataJob.h"

using amp::gui::DemoDataJob;

class TestDemoDataJob : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

 private slots:
  void writesTheDatasetWithProgress() {
    const QString data = dir_.filePath("data");
    QVERIFY(!DemoDataJob::isCurrent(data));
    DemoDataJob job;
    QSignalSpy progressed(&job, &DemoDataJob::progressed);
    QSignalSpy finished(&job, &DemoDataJob::finished);
    QVERIFY(job.start(data, 2));
    QVERIFY(job.isRunning());
    QVERIFY(!job.start(data, 2));  // one write at a time
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.count(), 1);
    QVERIFY2(finished.front().front().toBool(), qPrintable(job.error()));
    QVERIFY(!job.isRunning());
    QCOMPARE(job.dir(), data);
    QCOMPARE(job.summary().train, 2 * 8);  // 2 clips of each of the 8 classes
    QVERIFY(job.summary().val > 0 && job.summary().test > 0);
    QVERIFY(DemoDataJob::isCurrent(data));
    QVERIFY(!progressed.isEmpty());
    for (const auto& args : progressed) {
      const int percent = args.front().toInt();
      QVERIFY2(percent >= 0 && percent <= 100, qPrintable(QString::number(percent)));
    }
  }

  // A frame-format demo (the SSv2 and Charades templates) is current for its format only.
  void framesFormatsAreTheirOwn() {
    const QString data = dir_.filePath("charades");
    DemoDataJob job;
    QSignalSpy finished(&job, &DemoDataJob::finished);
    QVERIFY(job.start(data, 1, amp::data::DemoFormat::Charades));
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.front().front().toBool(), qPrintable(job.error()));
    QCOMPARE(job.summary().train, 6);  // 3/4 of a video per class of 8
    QVERIFY(DemoDataJob::isCurrent(data, amp::data::DemoFormat::Charades));
    QVERIFY(!DemoDataJob::isCurrent(data, amp::data::DemoFormat::Ssv2));
    QVERIFY(!DemoDataJob::isCurrent(data));  // not the Kinetics layout the demo reads
    QVERIFY(QFile::exists(data + "/frames/C00000/C00000_000001.jpg"));
  }

  // An older generator's dataset is not current (the studio writes it again).
  void anOlderVersionIsNotCurrent() {
    const QString data = dir_.filePath("old");
    QVERIFY(QDir().mkpath(data));
    QFile csv(data + "/train.csv"), meta(data + "/demo-data.json");
    QVERIFY(csv.open(QIODevice::WriteOnly) && meta.open(QIODevice::WriteOnly));
    meta.write(QByteArray("{\"version\": ") + QByteArray::number(amp::data::kDemoDataVersion - 1) +
               "}");
    meta.close();
    QVERIFY(!DemoDataJob::isCurrent(data));
  }

  void aFailureSaysWhy() {
    QFile blocker(dir_.filePath("blocker"));  // a file where a folder must go
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    DemoDataJob job;
    QSignalSpy finished(&job, &DemoDataJob::finished);
    QVERIFY(job.start(dir_.filePath("blocker/data"), 2));
    QVERIFY(finished.wait(60000));
    QVERIFY(!finished.front().front().toBool());
    QVERIFY2(job.error().contains("blocker/data"), qPrintable(job.error()));
    QVERIFY(job.start(dir_.filePath("blocker/data"), 2));  // free again for another try
    QVERIFY(finished.wait(60000));
  }

  // The window (and with it the job) goes while the pool thread writes: the write completes on
  // its own copies and nothing is delivered to the deleted job.
  void deletingTheJobMidWriteIsSafe() {
    const QString data = dir_.filePath("orphan");
    auto* job = new DemoDataJob;
    QVERIFY(job->start(data, 2));
    delete job;
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    QVERIFY(DemoDataJob::isCurrent(data));
  }
};

QTEST_GUILESS_MAIN(TestDemoDataJob)
#include "tst_demodatajob.moc"
