#include "data/VideoWriter.h"

#include "data/FfmpegLog.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

namespace amp::data {
namespace {
std::string avError(int code) {
  return ffmpegErrorText(code);
}
}  // namespace

struct VideoWriter::State {
  AVFormatContext* fmt = nullptr;
  AVCodecContext* codec = nullptr;
  AVStream* stream = nullptr;
  SwsContext* sws = nullptr;
  AVFrame* frame = av_frame_alloc();
  AVPacket* packet = av_packet_alloc();
  std::int64_t nextPts = 0;
  bool headerWritten = false;
  ~State() {
    sws_freeContext(sws);
    av_packet_free(&packet);
    av_frame_free(&frame);
    avcodec_free_context(&codec);
    if (fmt) {
      if (fmt->pb) avio_closep(&fmt->pb);
      avformat_free_context(fmt);
    }
  }
};

VideoWriter::VideoWriter() {
  installFfmpegLogHook();
}
VideoWriter::~VideoWriter() {
  (void)close(nullptr);  // a writer abandoned on an error path: nobody is left to tell
}

std::string VideoWriter::codecName() const {
  return s_ && s_->codec ? s_->codec->codec->name : "";
}

bool VideoWriter::open(const std::string& path, const VideoWriterOptions& o, std::string* error) {
  path_ = path;
  s_ = std::make_unique<State>();
  auto fail = [&](const std::string& why) {
    if (error) *error = path + ": " + why;
    s_.reset();
    return false;
  };
  if (o.width <= 0 || o.height <= 0 || o.width % 2 || o.height % 2)
    return fail("frame size must be even and positive");
  int r = avformat_alloc_output_context2(&s_->fmt, nullptr, nullptr, path.c_str());
  if (r < 0 || !s_->fmt) return fail("no container for this file name: " + avError(r));
  const AVCodec* enc = nullptr;
  if (o.codec == "auto") {
    enc = avcodec_find_encoder_by_name("libx264");
    if (!enc) enc = avcodec_find_encoder(AV_CODEC_ID_MPEG4);
  } else {
    enc = avcodec_find_encoder_by_name(o.codec.c_str());
  }
  if (!enc) return fail("this FFmpeg has no '" + o.codec + "' encoder");
  s_->stream = avformat_new_stream(s_->fmt, nullptr);
  s_->codec = avcodec_alloc_context3(enc);
  s_->codec->width = o.width;
  s_->codec->height = o.height;
  s_->codec->pix_fmt = AV_PIX_FMT_YUV420P;
  s_->codec->time_base = AVRational{1, o.fps};
  s_->codec->framerate = AVRational{o.fps, 1};
  s_->codec->gop_size = o.fps;  // a keyframe every second keeps seeking cheap
  s_->codec->max_b_frames = 2;
  s_->codec->thread_count = 1;  // callers run several writers in parallel
  if (s_->fmt->oformat->flags & AVFMT_GLOBALHEADER) s_->codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (std::string(enc->name) == "libx264") {
    av_opt_set(s_->codec->priv_data, "preset", "veryfast", 0);
    av_opt_set(s_->codec->priv_data, "crf", std::to_string(o.quality).c_str(), 0);
  } else {
    s_->codec->flags |= AV_CODEC_FLAG_QSCALE;
    s_->codec->global_quality = FF_QP2LAMBDA * std::max(2, o.quality / 4);
  }
  r = avcodec_open2(s_->codec, enc, nullptr);
  if (r < 0) return fail("cannot open the " + std::string(enc->name) + " encoder: " + avError(r));
  avcodec_parameters_from_context(s_->stream->codecpar, s_->codec);
  s_->stream->time_base = s_->codec->time_base;
  if (!(s_->fmt->oformat->flags & AVFMT_NOFILE)) {
    r = avio_open(&s_->fmt->pb, path.c_str(), AVIO_FLAG_WRITE);
    if (r < 0) return fail("cannot create the file: " + avError(r));
  }
  r = avformat_write_header(s_->fmt, nullptr);
  if (r < 0) return fail("cannot write the container header: " + avError(r));
  s_->headerWritten = true;
  s_->frame->format = AV_PIX_FMT_YUV420P;
  s_->frame->width = o.width;
  s_->frame->height = o.height;
  if (av_frame_get_buffer(s_->frame, 0) < 0) return fail("out of memory");
  s_->sws = sws_getContext(o.width, o.height, AV_PIX_FMT_RGB24, o.width, o.height,
                           AV_PIX_FMT_YUV420P, SWS_BILINEAR, nullptr, nullptr, nullptr);
  return true;
}

bool VideoWriter::encode(bool flush, std::string* error) {
  int r = avcodec_send_frame(s_->codec, flush ? nullptr : s_->frame);
  if (r < 0) {
    if (error) *error = path_ + ": encoding failed: " + avError(r);
    return false;
  }
  while ((r = avcodec_receive_packet(s_->codec, s_->packet)) >= 0) {
    if (s_->packet->duration == 0)
      s_->packet->duration = 1;  // one frame: so the file's duration counts the last one
    av_packet_rescale_ts(s_->packet, s_->codec->time_base, s_->stream->time_base);
    s_->packet->stream_index = s_->stream->index;
    r = av_interleaved_write_frame(s_->fmt, s_->packet);
    if (r < 0) {
      if (error) *error = path_ + ": cannot write: " + avError(r);
      return false;
    }
  }
  return true;
}

bool VideoWriter::write(const std::uint8_t* rgb, std::string* error) {
  if (!s_) {
    if (error) *error = path_ + ": not open";
    return false;
  }
  av_frame_make_writable(s_->frame);
  const uint8_t* src[1] = {rgb};
  const int stride[1] = {s_->codec->width * 3};
  sws_scale(s_->sws, src, stride, 0, s_->codec->height, s_->frame->data, s_->frame->linesize);
  s_->frame->pts = s_->nextPts++;
  return encode(false, error);
}

bool VideoWriter::close(std::string* error) {
  if (!s_) return true;
  bool ok = true;
  if (s_->headerWritten) {
    ok = encode(true, error);
    const int r = av_write_trailer(s_->fmt);
    if (r < 0 && ok) {
      if (error) *error = path_ + ": cannot finish the file: " + avError(r);
      ok = false;
    }
  }
  s_.reset();
  return ok;
}

}  // namespace amp::data
