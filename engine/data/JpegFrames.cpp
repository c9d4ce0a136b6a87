#include "data/JpegFrames.h"

// jpeglib.h uses FILE and size_t without including their headers.
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include <jpeglib.h>

#include <chrono>
#include <csetjmp>
#include <cstring>
#include <memory>
#include <new>

#include "data/ExifOrientation.h"
#include "util/AtomicFile.h"

namespace amp::data {
namespace {

// libjpeg's default error_exit calls exit(): this one formats the message and jumps back to the
// setjmp of the phase that was running. Each phase (header, pixels, compression) is a function
// of its own that owns no C++ object with a destructor, so the jump skips nothing.
struct JpegError {
  jpeg_error_mgr pub;  // first: libjpeg hands back &pub as cinfo->err
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  char firstWarning[JMSG_LENGTH_MAX];
};

JpegError* errorOf(j_common_ptr c) {
  return reinterpret_cast<JpegError*>(c->err);
}

[[noreturn]] void onError(j_common_ptr c) {
  (*c->err->format_message)(c, errorOf(c)->message);
  std::longjmp(errorOf(c)->jump, 1);
}

// Level -1 is a warning about damaged data ("Corrupt JPEG data", "Premature end of JPEG file"):
// libjpeg goes on and returns pixels, as OpenCV then does, so it is counted and kept for a
// message, never printed. Levels >= 0 are trace messages.
void onMessage(j_common_ptr c, int level) {
  if (level >= 0) return;
  if (c->err->num_warnings++ == 0) (*c->err->format_message)(c, errorOf(c)->firstWarning);
}

// Called while a multi-scan (progressive) file is read in: refuses one with too many scans.
void onProgress(j_common_ptr c) {
  if (!c->is_decompressor) return;
  if (reinterpret_cast<j_decompress_ptr>(c)->input_scan_number <= kMaxJpegScans) return;
  std::snprintf(errorOf(c)->message, JMSG_LENGTH_MAX,
                "more than %d progressive scans (each one a pass over the whole image)",
                kMaxJpegScans);
  std::longjmp(errorOf(c)->jump, 1);
}

void installErrorManager(JpegError& err) {
  jpeg_std_error(&err.pub);
  err.pub.error_exit = onError;
  err.pub.emit_message = onMessage;
  err.message[0] = err.firstWarning[0] = '\0';
}

// Plain data: lives in decodeJpegFrames, which destroys it; the phases only point at it.
struct Decoder {
  jpeg_decompress_struct cinfo;
  JpegError err;
  jpeg_progress_mgr progress;
};

bool createDecoder(Decoder* d) {
  if (setjmp(d->err.jump)) return false;
  jpeg_create_decompress(&d->cinfo);
  d->progress.progress_monitor = onProgress;
  d->cinfo.progress = &d->progress;
  return true;
}

// Reads the header and chooses the output as OpenCV's JpegDecoder does: BGR from gray and color
// files (libjpeg-turbo converts gray to BGR itself), CMYK from 4-channel files (converted below).
bool readHeader(Decoder* d, const unsigned char* data, unsigned long size) {
  if (setjmp(d->err.jump)) return false;
  d->cinfo.err->num_warnings = 0;
  d->err.firstWarning[0] = '\0';
  jpeg_mem_src(&d->cinfo, data, size);
  jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);  // EXIF
  jpeg_read_header(&d->cinfo, TRUE);
  d->cinfo.out_color_space = d->cinfo.num_components == 4 ? JCS_CMYK : JCS_EXT_BGR;
  jpeg_calc_output_dimensions(&d->cinfo);
  return true;
}

// Adobe CMYK (255 = no ink) to BGR, OpenCV's formula (icvCvt_CMYK2BGR_8u_C4C3R).
void cmykToBgr(const JSAMPLE* cmyk, std::uint8_t* bgr, JDIMENSION width) {
  for (JDIMENSION i = 0; i < width; ++i, cmyk += 4, bgr += 3) {
    const int k = cmyk[3];
    bgr[0] = static_cast<std::uint8_t>(k - (((255 - cmyk[2]) * k) >> 8));
    bgr[1] = static_cast<std::uint8_t>(k - (((255 - cmyk[1]) * k) >> 8));
    bgr[2] = static_cast<std::uint8_t>(k - (((255 - cmyk[0]) * k) >> 8));
  }
}

// Decodes the pixels into `dst` (output_height x output_width x 3).
bool readPixels(Decoder* d, std::uint8_t* dst) {
  if (setjmp(d->err.jump)) return false;
  j_decompress_ptr c = &d->cinfo;
  jpeg_start_decompress(c);
  const std::size_t rowBytes = static_cast<std::size_t>(c->output_width) * 3;
  JSAMPARRAY cmykRow = nullptr;
  if (c->out_color_space == JCS_CMYK)
    cmykRow = (*c->mem->alloc_sarray)(reinterpret_cast<j_common_ptr>(c), JPOOL_IMAGE,
                                      c->output_width * 4, 1);
  while (c->output_scanline < c->output_height) {
    std::uint8_t* line = dst + c->output_scanline * rowBytes;
    JSAMPROW row = cmykRow ? cmykRow[0] : line;
    if (jpeg_read_scanlines(c, &row, 1) != 1) {  // only a suspending source returns none
      std::snprintf(d->err.message, JMSG_LENGTH_MAX, "libjpeg returned no rows");
      return false;
    }
    if (cmykRow) cmykToBgr(cmykRow[0], line, c->output_width);
  }
  jpeg_finish_decompress(c);
  return true;
}

struct DestroyDecoder {
  Decoder* d;
  ~DestroyDecoder() { jpeg_destroy_decompress(&d->cinfo); }
};

std::string describe(const Decoder& d) {
  std::string why = d.err.message;
  if (d.err.firstWarning[0] != '\0')
    why += std::string(" (after \"") + d.err.firstWarning + "\": is the file truncated?)";
  return why;
}

}  // namespace

bool decodeJpegFrames(const std::vector<std::string>& paths, DecodedClip& out, std::string* error) {
  const auto start = std::chrono::steady_clock::now();
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  out.height = out.width = 0;
  out.indices.clear();
  out.timestamps_s.clear();
  out.last_frame_seen = -1;
  out.corrupt_packets = 0;
  out.decode_s = out.convert_s = 0;
  if (paths.empty()) return fail("no frames to decode (the video lists no frame paths)");

  Decoder d{};
  installErrorManager(d.err);
  d.cinfo.err = &d.err.pub;
  DestroyDecoder destroy{&d};
  if (!createDecoder(&d)) return fail(std::string("cannot start libjpeg: ") + d.err.message);

  std::string bytes, why;
  std::vector<std::uint8_t> upright;  // a frame before its EXIF orientation is applied
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = paths[i];
    if (!util::readFile(path, bytes, &why, kMaxJpegBytes)) return fail(why);
    if (bytes.empty()) return fail(path + ": empty file (0 bytes), not a JPEG");
    if (!readHeader(&d, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size())) {
      return fail(path + ": not a readable JPEG: " + describe(d));
    }
    const int components = d.cinfo.num_components;
    if (components != 1 && components != 3 && components != 4) {
      return fail(path + ": a JPEG of " + std::to_string(components) +
                  " color channels; frames are gray (1), color (3) or CMYK (4)");
    }
    const int w = static_cast<int>(d.cinfo.output_width);
    const int h = static_cast<int>(d.cinfo.output_height);
    // Before any pixel memory: a 1 KB file can declare 65500 x 65500 pixels.
    if (static_cast<std::int64_t>(w) * h > kMaxFramePixels) {
      return fail(path + ": declares " + std::to_string(w) + "x" + std::to_string(h) +
                  " pixels, more than the " + kMaxFrameText + " a frame may have");
    }
    int orientation = 1;
    for (jpeg_saved_marker_ptr m = d.cinfo.marker_list; m; m = m->next) {
      if (m->marker != JPEG_APP0 + 1) continue;
      orientation = exifOrientation(m->data, m->data_length);  // the first APP1, as OpenCV
      break;
    }
    const bool swap = orientationTransposes(orientation);
    const int outW = swap ? h : w, outH = swap ? w : h;
    const std::size_t frameBytes = static_cast<std::size_t>(outW) * outH * 3;
    if (i == 0) {
      out.width = outW;
      out.height = outH;
      try {  // the buffer is the caller's from clip to clip: resize keeps its capacity
        out.rgb.resize(frameBytes * paths.size());
      } catch (const std::bad_alloc&) {
        return fail(path + ": not enough memory for " + std::to_string(paths.size()) +
                    " frames of " + std::to_string(outW) + "x" + std::to_string(outH));
      }
    } else if (outW != out.width || outH != out.height) {
      return fail(path + ": " + std::to_string(outW) + "x" + std::to_string(outH) +
                  " pixels, but the first frame (" + paths[0] + ") has " +
                  std::to_string(out.width) + "x" + std::to_string(out.height) +
                  ": every frame of a video must have one size");
    }
    std::uint8_t* dst = out.frame(i);
    if (orientation != 1) {
      upright.resize(frameBytes);
      dst = upright.data();
    }
    if (!readPixels(&d, dst)) {
      return fail(path + ": damaged JPEG: " + describe(d));
    }
    if (orientation != 1) orientPixels(upright.data(), w, h, orientation, out.frame(i));
    if (d.cinfo.err->num_warnings > 0) ++out.corrupt_packets;
    out.indices.push_back(static_cast<std::int64_t>(i));
  }
  out.last_frame_seen = static_cast<std::int64_t>(paths.size()) - 1;
  out.decode_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return true;
}

namespace {

struct Encoder {
  jpeg_compress_struct cinfo;
  JpegError err;
  unsigned char* buffer;  // malloc'ed by jpeg_mem_dest, freed by encodeJpeg
  unsigned long size;
};

bool compress(Encoder* e, const std::uint8_t* pixels, int width, int height, JpegPixels format,
              int quality) {
  if (setjmp(e->err.jump)) return false;
  jpeg_create_compress(&e->cinfo);
  jpeg_mem_dest(&e->cinfo, &e->buffer, &e->size);
  j_compress_ptr c = &e->cinfo;
  c->image_width = static_cast<JDIMENSION>(width);
  c->image_height = static_cast<JDIMENSION>(height);
  switch (format) {
    case JpegPixels::Rgb:
      c->input_components = 3;
      c->in_color_space = JCS_RGB;
      break;
    case JpegPixels::Bgr:
      c->input_components = 3;
      c->in_color_space = JCS_EXT_BGR;
      break;
    case JpegPixels::Gray:
      c->input_components = 1;
      c->in_color_space = JCS_GRAYSCALE;
      break;
    case JpegPixels::Cmyk:
      c->input_components = 4;
      c->in_color_space = JCS_CMYK;
      break;
  }
  jpeg_set_defaults(c);
  jpeg_set_quality(c, quality, TRUE);
  jpeg_start_compress(c, TRUE);
  const std::size_t rowBytes = static_cast<std::size_t>(width) * c->input_components;
  while (c->next_scanline < c->image_height) {
    // libjpeg's API takes non-const rows but only reads them when compressing.
    JSAMPROW row = const_cast<std::uint8_t*>(pixels) + c->next_scanline * rowBytes;
    jpeg_write_scanlines(c, &row, 1);
  }
  jpeg_finish_compress(c);
  return true;
}

}  // namespace

bool encodeJpeg(const std::uint8_t* pixels, int width, int height, JpegPixels format, int quality,
                std::string& jpeg, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  if (!pixels || width <= 0 || height <= 0 || width > JPEG_MAX_DIMENSION ||
      height > JPEG_MAX_DIMENSION)
    return fail("cannot encode a JPEG of " + std::to_string(width) + "x" + std::to_string(height) +
                " pixels (1 to " + std::to_string(JPEG_MAX_DIMENSION) + " each way)");
  if (quality < 1 || quality > 100)
    return fail("JPEG quality " + std::to_string(quality) + " is outside 1..100");
  Encoder e{};
  installErrorManager(e.err);
  e.cinfo.err = &e.err.pub;
  const bool ok = compress(&e, pixels, width, height, format, quality);
  jpeg_destroy_compress(&e.cinfo);
  const std::unique_ptr<unsigned char, void (*)(void*)> buffer(e.buffer, std::free);
  if (!ok) return fail(std::string("libjpeg cannot encode it: ") + e.err.message);
  jpeg.assign(reinterpret_cast<const char*>(buffer.get()), e.size);
  return true;
}

bool writeJpeg(const std::string& path, const std::uint8_t* pixels, int width, int height,
               JpegPixels format, int quality, std::string* error) {
  std::string jpeg, why;
  if (!encodeJpeg(pixels, width, height, format, quality, jpeg, &why)) {
    if (error) *error = path + ": " + why;
    return false;
  }
  return util::writeFileAtomically(path, jpeg, error);
}

}  // namespace amp::data
