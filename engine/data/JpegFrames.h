#pragma once
// Videos stored as one JPEG per frame (Charades, SSv2 and AVA as PySlowFast reads them), decoded
// with libjpeg-turbo the way PySlowFast's retry_load_images decodes them: cv2.imdecode with
// IMREAD_COLOR, which gives 3 channels in **BGR** order (grayscale JPEGs too, their gray value
// repeated; CMYK ones converted as OpenCV does), turned upright by the EXIF orientation, with
// libjpeg's defaults (integer DCT, fancy upsampling). PySlowFast never converts these frames to
// RGB, so neither does this: a frame dataset's clip holds B, G, R per pixel.
//
//   DecodedClip clip;  // reuse it: its pixel buffer is kept from call to call
//   if (!decodeJpegFrames(video.frames, clip, &error)) return fail(error);
//   const std::uint8_t* bgr = clip.frame(0);  // clip.height x clip.width x 3
#include <cstdint>
#include <string>
#include <vector>

#include "data/VideoDecoder.h"

namespace amp::data {

/// The largest JPEG file read: a frame at kMaxFramePixels is at most tens of MB at quality 100.
inline constexpr std::size_t kMaxJpegBytes = std::size_t(64) << 20;
/// Progressive scans a JPEG may have before it is refused: a few KB can declare thousands, each
/// a pass over the whole image (libjpeg-turbo's own fuzzers stop at 500).
inline constexpr int kMaxJpegScans = 500;

/// Decodes `paths` in order into `out` (T x H x W x 3 in `out.rgb`, BGR as OpenCV's imdecode;
/// `indices` 0..T-1, `corrupt_packets` the frames libjpeg warned about, such as "Premature end of
/// JPEG file": their pixels are kept, as OpenCV keeps them). Every frame must have the first
/// one's size after its EXIF orientation (PySlowFast's np.stack fails otherwise). False with
/// `error` naming the file: unreadable, empty, not a JPEG, damaged before its pixels, larger than
/// kMaxFramePixels (refused before any pixel memory is taken), a color space with no BGR form.
[[nodiscard]] bool decodeJpegFrames(const std::vector<std::string>& paths, DecodedClip& out,
                                    std::string* error);

/// The pixels encodeJpeg takes: 3 bytes RGB or BGR, 1 byte gray, or 4 bytes Adobe CMYK (255 =
/// no ink, as Photoshop writes it and OpenCV reads it).
enum class JpegPixels { Rgb, Bgr, Gray, Cmyk };

/// `pixels` (height rows of width pixels, top to bottom) as a baseline JPEG of `quality` (1..100;
/// 4:2:0 chroma for color, as libjpeg's defaults). False with `error` saying why.
[[nodiscard]] bool encodeJpeg(const std::uint8_t* pixels, int width, int height, JpegPixels format,
                              int quality, std::string& jpeg, std::string* error);
/// encodeJpeg written to `path` atomically (for demo data and tests). False with `error` naming
/// the path.
[[nodiscard]] bool writeJpeg(const std::string& path, const std::uint8_t* pixels, int width,
                             int height, JpegPixels format, int quality, std::string* error);

}  // namespace amp::data
