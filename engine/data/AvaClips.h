#pragma once
// AVA keyframes as the loader's batch items: Ava.__getitem__ (the frames around the keyframe's
// centre, decoded as OpenCV does, through the box-aware transform, pack_pathway_output's channel
// reversal) and PySlowFast's detection_collate (the clips stacked, every clip's boxes, targets
// and metadata concatenated with the clip's index in the batch). VideoLoader calls these; its
// seeding, rank split and decode-failure policy are the same as for the other datasets.
//
//   AvaClip clip;
//   std::vector<std::int64_t> frames;
//   if (!makeAvaClip(params, *list.ava, sample.keyframe, split, draws, clip, frames, &error))
//     return fail(error);
//   if (!addAvaClip(params, list, sampleIndex, clip, frames, numClasses, i, count, batch, &error))
//     return fail(error);
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/AvaDataset.h"
#include "data/AvaTransform.h"
#include "data/ClipSampler.h"
#include "data/VideoLoader.h"

namespace amp::data {

/// The frames one keyframe's clip takes: get_sequence(centre, NUM_FRAMES x SAMPLING_RATE // 2,
/// SAMPLING_RATE, the video's frame count), as Ava.__getitem__ passes its _seq_len // 2.
std::vector<std::int64_t> avaClipFrames(const ClipParams& p, const AvaDataset& ava,
                                        const AvaKeyframe& keyframe);

/// Keyframe `keyframe` of `ava` as a transformed clip: its frames (`frames` gets their indices)
/// decoded as BGR JPEGs, transformAvaClip(p.ava, split, ..., draws), then the channels reversed
/// when DATA.REVERSE_INPUT_CHANNEL (pack_pathway_output). False with `error` naming the frame
/// (decodeJpegFrames) or the video and second (the transform).
[[nodiscard]] bool makeAvaClip(const ClipParams& p, const AvaDataset& ava, int keyframe,
                               Split split, DrawSource& draws, AvaClip& out,
                               std::vector<std::int64_t>& frames, std::string* error);

/// pack_pathway_output's channel reversal (DATA.REVERSE_INPUT_CHANNEL) on a transformed clip.
void reverseChannels(AvaClip& clip);

/// The slow pathway of `clip` (its frames at `slowIdx`, channel by channel) into `out`
/// (3 x slowIdx.size() x height x width floats).
void copySlowPathway(const AvaClip& clip, const std::vector<std::int64_t>& slowIdx, float* out);

/// detection_collate for clip number `index` of a batch of `count` clips, made from sample
/// `sample` of `list`: the first clip sets the batch's frames, height and width and sizes `fast`
/// (and `slow` for SlowFast: linspace(0, T - 1, T // alpha) of the clip's T frames) for `count`
/// clips; the clip's pixels go to its place; its boxes (with `index` in front), multi-hot
/// targets (`numClasses` wide), normalised boxes and (video, second) rows are appended, and its
/// labels, videos, views and info entries. False with `error` when its size differs from the
/// batch's (test clips keep their frames' aspect ratio): PySlowFast cannot stack them either.
[[nodiscard]] bool addAvaClip(const ClipParams& p, const SampleList& list, int sample,
                              const AvaClip& clip, const std::vector<std::int64_t>& frames,
                              int numClasses, std::size_t index, std::size_t count, Batch& out,
                              std::string* error);

}  // namespace amp::data
