#include "data/VideoCheck.h"

namespace amp::data {

VideoCheck checkVideo(const std::string& path, bool wholeStream) {
  VideoCheck r;
  VideoDecoder d;
  std::string why;
  if (!d.open(path, &why)) {
    r.message = why;
    return r;
  }
  r.info = d.info();
  if (!wholeStream) {
    DecodedClip clip;
    if (!d.decode({0}, 0, 0, clip, &why)) {
      r.message = why.empty() ? path + ": no frame decodes" : why;
      return r;
    }
    r.ok = true;
    r.frames = 1;
    return r;
  }
  int corrupt = 0;
  r.frames = d.countFrames(&corrupt, &why);
  if (r.frames <= 0) {
    r.message = why;
    return r;
  }
  r.ok = true;
  if (corrupt > 0)
    r.message =
        path + ": warning: " + std::to_string(corrupt) + " damaged packet(s) skipped; decoded " +
        std::to_string(r.frames) + " frames" +
        (r.info.header_frames ? " of " + std::to_string(r.info.header_frames) + " claimed" : "");
  else if (r.info.header_frames && r.info.header_frames != r.frames)
    r.message = path + ": warning: the header claims " + std::to_string(r.info.header_frames) +
                " frames, " + std::to_string(r.frames) + " decode";
  return r;
}

}  // namespace amp::data
