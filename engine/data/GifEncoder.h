#pragma once
// Animated GIFs in memory, for TensorBoard's videos: torch's SummaryWriter.add_video stores a clip
// as an image summary whose encoded bytes are a GIF (moviepy writes it), and TensorBoard's Images
// tab plays it. Here FFmpeg's libavcodec gif encoder writes the frames, each mapped onto one
// median-cut palette of the whole clip (data/GifPalette.h), and libavformat's gif muxer (looping
// forever, as moviepy's) writes the file into memory through a custom AVIOContext, so nothing
// touches the disk. Builds without FFmpeg (AMPSTUDIO_WITH_FFMPEG OFF) refuse with a message.
// Torch-free.
//
//   std::string gif, error;
//   if (!data::encodeGif(rgb.data(), frames, width, height, 4, gif, &error)) return fail(error);
//   runlog::TensorBoardImage video{"Input 0/Pathway 1", width, height, gif};
#include <cstdint>
#include <string>

namespace amp::data {

/// `frames` frames of `width` x `height` RGB24 (T x H x W x 3 bytes, rows top to bottom) as an
/// animated GIF at `fps` frames per second (a frame shows 100 / fps hundredths of a second,
/// rounded, as GIF counts time). False with `error` for a size or rate out of range, or from
/// FFmpeg, or in a build without FFmpeg.
[[nodiscard]] bool encodeGif(const std::uint8_t* rgb, int frames, int width, int height, int fps,
                             std::string& gif, std::string* error);

}  // namespace amp::data
