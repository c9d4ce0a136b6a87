#include "train/PrecisionPolicy.h"

#include <stdexcept>

#include "config/Config.h"

namespace amp::train {

PrecisionPolicy PrecisionPolicy::fromConfig(const config::Config& c) {
  if (!c.getBool("TRAIN.MIXED_PRECISION")) {
    PrecisionPolicy p;
    p.cuda = c.getInt("NUM_GPUS") > 0;
    return p;
  }
  return forced(c, "amp");
}

PrecisionPolicy PrecisionPolicy::forced(const config::Config& c, const std::string& precision) {
  PrecisionPolicy p;
  p.cuda = c.getInt("NUM_GPUS") > 0;
  std::string name = precision;
  if (name == "amp") {
    const std::string dtype = c.getString("AMP.DTYPE");
    name = dtype == "float16" ? "fp16" : dtype == "bfloat16" ? "bf16" : (p.cuda ? "fp16" : "bf16");
  }
  if (name != "fp32" && name != "bf16" && name != "fp16")
    throw std::invalid_argument("precision: '" + precision +
                                "' is not one of fp32, amp, bf16, fp16");
  if (name == "fp16" && !p.cuda)
    throw std::invalid_argument(
        "AMP.DTYPE: float16 mixed precision needs CUDA (NUM_GPUS > 0); LibTorch's CPU autocast "
        "takes bfloat16 only, so use AMP.DTYPE bfloat16 or auto");
  p.name = name;
  p.mixed = name != "fp32";
  p.fp16 = name == "fp16";
  const std::string scaler = c.getString("AMP.SCALER");
  p.scaler = p.mixed && (scaler == "on" || (scaler == "auto" && p.fp16));
  return p;
}

}  // namespace amp::train
