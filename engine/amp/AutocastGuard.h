#pragma once
// RAII autocast for the current thread, on LibTorch 1.13 and 2.x alike. Torch-free header:
// the LibTorch calls live in AutocastGuard.cpp only (ATen/autocast_mode.h changed in 2.4).
namespace amp::precision {

enum class AutocastDevice { CPU, CUDA };
enum class AutocastType { Float16, BFloat16 };

/// This thread's autocast setting for one device (what a recomputation in backward repeats).
struct AutocastState {
  bool enabled = false;
  AutocastType type = AutocastType::BFloat16;
};
AutocastState currentAutocast(AutocastDevice device);

/// Enables autocast on this thread for its lifetime (forward + loss), restores the previous
/// state afterwards and clears the autocast weight cache when the outermost guard ends, as
/// torch.autocast does. A disabled guard does nothing.
class AutocastGuard {
 public:
  AutocastGuard(bool enabled, AutocastDevice device, AutocastType type);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool enabled_;
  AutocastDevice device_;
  bool previousEnabled_ = false;
  int previousType_ = 0;
};

}  // namespace amp::precision
