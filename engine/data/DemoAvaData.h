#pragma once
// The demo dataset in AVA's layout: short videos in which moving shapes are the "persons", each
// doing one of the demo's motions around a keyframe second, with their boxes at the keyframe.
// Written as PySlowFast's AVA code reads it (ava_helper.py): frames at 30 fps from second 900,
// keyframes at seconds 902-904 (AVA's valid seconds start at 902), and
//   frames/<video>/<video>_000001.jpg ...         every frame as a JPEG
//   frame_lists/train.csv, val.csv                 original_vido_id video_id frame_id path labels
//   annotations/ava_train_v2.2.csv, ava_val_v2.2.csv        ground truth:
//       video,second,x1,y1,x2,y2,action_id,person_id  (box corners in [0, 1], ids from 1)
//   annotations/ava_{train,val}_predicted_boxes.csv   "detected" persons: the true boxes a little
//       off, scored 0.93-1, and a false box a keyframe scored under AVA.DETECTION_SCORE_THRESH
//   annotations/ava_action_list_v2.2_for_activitynet_2019.pbtxt   the label map
//   annotations/ava_val_excluded_timestamps_v2.2.csv             one excluded keyframe
// so a config sets only AVA.FRAME_DIR, AVA.FRAME_LIST_DIR and AVA.ANNOTATION_DIR.
//
//   data::DemoDataOptions o;
//   o.out_dir = "demo-ava";
//   o.format = data::DemoFormat::Ava;
//   data::generateDemoData(o, summary, &error);  // dispatches here
#include <functional>
#include <string>

#include "data/DemoDataGenerator.h"

namespace amp::data {

/// AVA's frame rate and the demo's keyframe seconds.
constexpr int kDemoAvaFps = 30;
constexpr int kDemoAvaFirstKeySecond = 902, kDemoAvaKeySeconds = 3;

/// Writes the AVA-format demo dataset into o.out_dir (see the file comment): 2 x
/// clips_per_class training videos (about 1.5 persons at each of 3 keyframes, so about
/// clips_per_class boxes of a class over 8 classes) and a quarter as many validation videos.
[[nodiscard]] bool generateDemoAvaData(const DemoDataOptions& o, DemoDataSummary& summary,
                                       std::string* error,
                                       const std::function<void(int, int)>& progress);

}  // namespace amp::data
