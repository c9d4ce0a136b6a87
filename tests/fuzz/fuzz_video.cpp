// A video file through the FFmpeg decoder as the loader uses it: open, then frames scaled and
// converted, including indices past the end (a container that lies about its length).
#include <fstream>

#include "FuzzTarget.h"
#include "data/VideoDecoder.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = amp::fuzz::scratchDir() + "/clip.bin";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  amp::data::DecoderOptions o;
  o.timeout_s = 5;
  amp::data::VideoDecoder d(o);
  std::string error;
  if (!d.open(path, &error)) return 0;
  amp::data::DecodedClip clip;
  (void)d.decode({0, 3, 1, 7, 1000}, 32, 32, clip, &error);  // refusing is a fine answer
  return 0;
}
