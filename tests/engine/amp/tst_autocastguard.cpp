#include <torch/torch.h>
#include <ATen/autocast_mode.h>

#include <QtTest>

#include "amp/AutocastGuard.h"

using namespace amp::precision;

class TestAutocastGuard : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void enablesAndRestores() {
    QVERIFY(!at::autocast::is_cpu_enabled());
    auto conv = torch::nn::Conv3d(torch::nn::Conv3dOptions(3, 4, 3));
    auto x = torch::randn({1, 3, 4, 8, 8});
    {
      AutocastGuard guard(true, AutocastDevice::CPU, AutocastType::BFloat16);
      QVERIFY(at::autocast::is_cpu_enabled());
      QCOMPARE(conv(x).scalar_type(), torch::kBFloat16);  // convolution runs in bfloat16
      {
        AutocastGuard inner(true, AutocastDevice::CPU, AutocastType::BFloat16);
        QVERIFY(at::autocast::is_cpu_enabled());
      }
      QVERIFY(at::autocast::is_cpu_enabled());  // the outer guard still holds
    }
    QVERIFY(!at::autocast::is_cpu_enabled());
    QCOMPARE(conv(x).scalar_type(), torch::kFloat);
  }

  void disabledGuardDoesNothing() {
    AutocastGuard guard(false, AutocastDevice::CPU, AutocastType::BFloat16);
    QVERIFY(!at::autocast::is_cpu_enabled());
  }

  void threadLocal() {
    AutocastGuard guard(true, AutocastDevice::CPU, AutocastType::BFloat16);
    bool otherThread = true;
    std::thread([&] { otherThread = at::autocast::is_cpu_enabled(); }).join();
    QVERIFY(!otherThread);  // autocast state belongs to the thread that runs forward
  }
};

QTEST_APPLESS_MAIN(TestAutocastGuard)
#include "tst_autocastguard.moc"
