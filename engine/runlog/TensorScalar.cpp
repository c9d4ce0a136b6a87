#include "runlog/TensorScalar.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace amp::runlog {
namespace {

// types.proto's DataType numbers of the dtypes read here.
enum : int {
  kDtFloat = 1,
  kDtDouble = 2,
  kDtInt32 = 3,
  kDtInt64 = 9,
  kDtBool = 10,
  kDtBfloat16 = 14,
  kDtHalf = 19
};

std::uint64_t tensorBytesLE(const std::string& s, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(s[i]);
  return v;
}

double fromHalfBits(std::uint32_t h) {
  const int sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f;
  const double mantissa = h & 0x3ff;
  double v;
  if (exponent == 0)
    v = std::ldexp(mantissa, -24);  // subnormal
  else if (exponent == 31)
    v = mantissa == 0 ? INFINITY : NAN;
  else
    v = std::ldexp(1024 + mantissa, exponent - 25);
  return sign ? -v : v;
}

double fromBfloat16Bits(std::uint32_t b) {
  const std::uint32_t bits = (b & 0xffff) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

std::optional<double> tensorScalarValue(const tb::TensorProto& t) {
  if (t.tensor_shape().unknown_rank()) return std::nullopt;
  for (const auto& d : t.tensor_shape().dim())
    if (d.size() != 1) return std::nullopt;  // a scalar, or a [1] or [1, 1] tensor
  const std::string& c = t.tensor_content();
  switch (t.dtype()) {
    case kDtFloat:
      if (t.float_val_size() == 1) return t.float_val(0);
      if (c.size() == 4) {
        const auto bits = static_cast<std::uint32_t>(tensorBytesLE(c, 4));
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
      }
      break;
    case kDtDouble:
      if (t.double_val_size() == 1) return t.double_val(0);
      if (c.size() == 8) {
        const std::uint64_t bits = tensorBytesLE(c, 8);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
      }
      break;
    case kDtInt32:
      if (t.int_val_size() == 1) return t.int_val(0);
      if (c.size() == 4) return static_cast<std::int32_t>(tensorBytesLE(c, 4));
      break;
    case kDtInt64:
      if (t.int64_val_size() == 1) return static_cast<double>(t.int64_val(0));
      if (c.size() == 8) return static_cast<double>(static_cast<std::int64_t>(tensorBytesLE(c, 8)));
      break;
    case kDtBool:
      if (t.bool_val_size() == 1) return t.bool_val(0) ? 1.0 : 0.0;
      if (c.size() == 1) return c[0] ? 1.0 : 0.0;
      break;
    case kDtHalf:
    case kDtBfloat16: {
      std::uint32_t bits = 0;
      if (t.half_val_size() == 1)
        bits = static_cast<std::uint32_t>(t.half_val(0));
      else if (c.size() == 2)
        bits = static_cast<std::uint32_t>(tensorBytesLE(c, 2));
      else
        break;
      return t.dtype() == kDtHalf ? fromHalfBits(bits) : fromBfloat16Bits(bits);
    }
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace amp::runlog
