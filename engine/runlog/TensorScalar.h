#pragma once
// The value of a scalar `tensor` summary (TensorFlow 2's tf.summary.scalar, newer SummaryWriters):
// one number of any numeric dtype, in the typed list or as little-endian bytes. Used by
// TensorBoardReader only; exists only in builds with TensorBoard support (protobuf).
//
//   if (auto v = runlog::tensorScalarValue(value.tensor())) scalars.push_back({tag, *v});
#include <optional>

#include "runlog/tensorboard_event.pb.h"

namespace amp::runlog {

/// The one number a tensor holds; nullopt for a tensor of more than one element (a histogram, an
/// image), of unknown rank, or of a dtype that is not a number (strings).
std::optional<double> tensorScalarValue(const tb::TensorProto& t);

}  // namespace amp::runlog
