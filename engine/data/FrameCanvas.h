#pragma once
// Drawing on packed RGB24 frames for the videos and stills the tools write (the AVA demo's boxes
// and their actions): rectangles, translucent panels and text. Text is rendered by FreeType from
// a font fontconfig finds (DejaVu Sans, Debian's fonts-dejavu-core), so the engine draws labels
// without Qt on a GPU server where the GUI is off.
//
//   std::string error;
//   auto font = data::TextFont::open(18, &error);   // 18-pixel glyphs
//   if (!font) return fail(error);
//   data::FrameCanvas canvas(rgb.data(), width, height);
//   canvas.rectangle({10, 10, 120, 200}, {255, 64, 64}, 2);
//   canvas.label(*font, 10, 10, "walk 0.93", {255, 255, 255}, {255, 64, 64});
#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace amp::data {

using Rgb = std::array<std::uint8_t, 3>;

/// A font at one pixel size. Not thread-safe (FreeType's face holds the last glyph).
class TextFont {
 public:
  ~TextFont();
  TextFont(const TextFont&) = delete;
  TextFont& operator=(const TextFont&) = delete;

  /// Sans-serif glyphs `pixels` high, from the file fontconfig matches for "DejaVu Sans" (any
  /// sans-serif font when it is missing), or from `file` when given. nullptr with `error` saying
  /// what to install.
  static std::unique_ptr<TextFont> open(int pixels, std::string* error,
                                        const std::string& file = "");
  /// The file the glyphs come from.
  const std::string& file() const { return file_; }
  /// Distance between baselines, and how far the tallest glyph rises above the baseline.
  int lineHeight() const { return line_height_; }
  int ascent() const { return ascent_; }
  /// The advance of `utf8` in pixels (invalid UTF-8 bytes count as U+FFFD).
  int width(const std::string& utf8) const;

 private:
  friend class FrameCanvas;
  struct Face;
  TextFont() = default;
  std::unique_ptr<Face> face_;
  std::string file_;
  int line_height_ = 0, ascent_ = 0;
};

/// A rectangle in pixels, corners included: x1, y1, x2, y2.
using PixelRect = std::array<int, 4>;

/// Draws into a frame it does not own; everything is clipped to the frame.
class FrameCanvas {
 public:
  FrameCanvas(std::uint8_t* rgb, int width, int height)
      : rgb_(rgb), width_(width), height_(height) {}

  /// The outline of `r`, `thickness` pixels wide, inside it.
  void rectangle(const PixelRect& r, Rgb colour, int thickness);
  /// `r` filled with `colour` at `alpha` (1: opaque).
  void fill(const PixelRect& r, Rgb colour, double alpha = 1.0);
  /// `utf8` with the top of its line box at (x, y); returns the x after it.
  int text(const TextFont& font, int x, int y, const std::string& utf8, Rgb colour);
  /// `utf8` on a panel of `background` (padded by 3 pixels) with its top-left corner at (x, y),
  /// moved inside the frame when it would leave it; returns the panel drawn.
  PixelRect label(const TextFont& font, int x, int y, const std::string& utf8, Rgb colour,
                  Rgb background, double alpha = 0.85);

 private:
  void blend(int x, int y, Rgb colour, double alpha);
  std::uint8_t* rgb_;
  int width_, height_;
};

/// Decodes UTF-8 into code points; invalid sequences become U+FFFD (one per bad byte).
std::u32string decodeUtf8(const std::string& utf8);

}  // namespace amp::data
