#include "amp/AutocastGuard.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace amp::precision {
namespace {

at::ScalarType scalarType(AutocastType t) {
  return t == AutocastType::Float16 ? at::kHalf : at::kBFloat16;
}

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
at::DeviceType deviceType(AutocastDevice d) {
  return d == AutocastDevice::CUDA ? at::kCUDA : at::kCPU;
}
bool isEnabled(AutocastDevice d) {
  return at::autocast::is_autocast_enabled(deviceType(d));
}
void setEnabled(AutocastDevice d, bool on) {
  at::autocast::set_autocast_enabled(deviceType(d), on);
}
at::ScalarType getType(AutocastDevice d) {
  return at::autocast::get_autocast_dtype(deviceType(d));
}
void setType(AutocastDevice d, at::ScalarType t) {
  at::autocast::set_autocast_dtype(deviceType(d), t);
}
#else  // LibTorch 1.13 - 2.3: separate CPU and CUDA functions
bool isEnabled(AutocastDevice d) {
  return d == AutocastDevice::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
}
void setEnabled(AutocastDevice d, bool on) {
  if (d == AutocastDevice::CUDA)
    at::autocast::set_enabled(on);
  else
    at::autocast::set_cpu_enabled(on);
}
at::ScalarType getType(AutocastDevice d) {
  return d == AutocastDevice::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                   : at::autocast::get_autocast_cpu_dtype();
}
void setType(AutocastDevice d, at::ScalarType t) {
  if (d == AutocastDevice::CUDA)
    at::autocast::set_autocast_gpu_dtype(t);
  else
    at::autocast::set_autocast_cpu_dtype(t);
}
#endif

}  // namespace

AutocastState currentAutocast(AutocastDevice device) {
  return {isEnabled(device),
          getType(device) == at::kHalf ? AutocastType::Float16 : AutocastType::BFloat16};
}

AutocastGuard::AutocastGuard(bool enabled, AutocastDevice device, AutocastType type)
    : enabled_(enabled), device_(device) {
  if (!enabled_) return;
  previousEnabled_ = isEnabled(device_);
  previousType_ = static_cast<int>(getType(device_));
  setType(device_, scalarType(type));
  setEnabled(device_, true);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (!enabled_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  setEnabled(device_, previousEnabled_);
  setType(device_, static_cast<at::ScalarType>(previousType_));
}

}  // namespace amp::precision
