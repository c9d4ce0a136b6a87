#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <QtTest>

#include "amp/AutocastGuard.h"

using namespace amp::precision;

namespace {
// Whether CPU autocast is on, read from LibTorch itself (is_cpu_enabled() is deprecated from 2.4).
bool cpuAutocastOn() {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  return at::autocast::is_autocast_enabled(at::kCPU);
#else
  return at::autocast::is_cpu_enabled();
#endif
}
}  // namespace

class TestAutocastGuard : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void enablesAndRestores() {
    QVERIFY(!cpuAutocastOn());
    auto conv = torch::nn::Conv3d(torch::nn::Conv3dOptions(3, 4, 3));
    auto x = torch::randn({1, 3, 4, 8, 8});
    {
      AutocastGuard guard(true, AutocastDevice::CPU, AutocastType::BFloat16);
      QVERIFY(cpuAutocastOn());
      QCOMPARE(conv(x).scalar_type(), torch::kBFloat16);  // convolution runs in bfloat16
      {
        AutocastGuard inner(true, AutocastDevice::CPU, AutocastType::BFloat16);
        QVERIFY(cpuAutocastOn());
      }
      QVERIFY(cpuAutocastOn());  // the outer guard still holds
    }
    QVERIFY(!cpuAutocastOn());
    QCOMPARE(conv(x).scalar_type(), torch::kFloat);
  }

  void disabledGuardDoesNothing() {
    AutocastGuard guard(false, AutocastDevice::CPU, AutocastType::BFloat16);
    QVERIFY(!cpuAutocastOn());
  }

  void threadLocal() {
    AutocastGuard guard(true, AutocastDevice::CPU, AutocastType::BFloat16);
    bool otherThread = true;
    std::thread([&] { otherThread = cpuAutocastOn(); }).join();
    QVERIFY(!otherThread);  // autocast state belongs to the thread that runs forward
  }
};

QTEST_APPLESS_MAIN(TestAutocastGuard)
#include "tst_autocastguard.moc"
