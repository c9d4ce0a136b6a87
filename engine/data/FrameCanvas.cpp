#include "data/FrameCanvas.h"

#include <fontconfig/fontconfig.h>
#include <ft2build.h>
#include FT_FREETYPE_H

#include <algorithm>
#include <cmath>
#include <mutex>

namespace amp::data {

struct TextFont::Face {
  FT_Library library = nullptr;
  FT_Face face = nullptr;
  ~Face() {
    if (face) FT_Done_Face(face);
    if (library) FT_Done_FreeType(library);
  }
};

namespace {

// The file fontconfig picks for `pattern`; "" when it has none.
std::string matchFont(const char* pattern) {
  static std::mutex mutex;  // FcInit's configuration is process-wide
  std::lock_guard<std::mutex> lock(mutex);
  if (!FcInit()) return {};
  FcPattern* p = FcNameParse(reinterpret_cast<const FcChar8*>(pattern));
  if (!p) return {};
  FcConfigSubstitute(nullptr, p, FcMatchPattern);
  FcDefaultSubstitute(p);
  FcResult result = FcResultNoMatch;
  FcPattern* match = FcFontMatch(nullptr, p, &result);
  std::string file;
  FcChar8* path = nullptr;
  if (match && FcPatternGetString(match, FC_FILE, 0, &path) == FcResultMatch && path)
    file = reinterpret_cast<const char*>(path);
  if (match) FcPatternDestroy(match);
  FcPatternDestroy(p);
  return file;
}

int clampInt(int v, int lo, int hi) {
  return std::max(lo, std::min(v, hi));
}

}  // namespace

TextFont::~TextFont() = default;

std::unique_ptr<TextFont> TextFont::open(int pixels, std::string* error, const std::string& file) {
  auto fail = [&](const std::string& why) -> std::unique_ptr<TextFont> {
    if (error) *error = why;
    return nullptr;
  };
  if (pixels < 4 || pixels > 512) return fail("font size " + std::to_string(pixels) + " px");
  std::string path = file;
  if (path.empty()) path = matchFont("DejaVu Sans");
  if (path.empty()) path = matchFont("sans-serif");
  if (path.empty())
    return fail("no font to draw labels with: fontconfig finds none (install fonts-dejavu-core)");
  std::unique_ptr<TextFont> font(new TextFont);
  font->face_ = std::make_unique<Face>();
  if (FT_Init_FreeType(&font->face_->library)) return fail("FreeType does not start");
  if (FT_New_Face(font->face_->library, path.c_str(), 0, &font->face_->face))
    return fail(path + ": FreeType cannot read this font");
  if (FT_Set_Pixel_Sizes(font->face_->face, 0, static_cast<FT_UInt>(pixels)))
    return fail(path + ": no glyphs " + std::to_string(pixels) + " pixels high");
  const FT_Size_Metrics& m = font->face_->face->size->metrics;
  font->file_ = path;
  font->ascent_ = static_cast<int>(m.ascender >> 6);
  font->line_height_ = std::max(pixels, static_cast<int>((m.ascender - m.descender) >> 6));
  return font;
}

int TextFont::width(const std::string& utf8) const {
  int x = 0;
  for (const char32_t c : decodeUtf8(utf8))
    if (!FT_Load_Char(face_->face, c, FT_LOAD_DEFAULT))
      x += static_cast<int>(face_->face->glyph->advance.x >> 6);
  return x;
}

std::u32string decodeUtf8(const std::string& s) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int extra = b < 0x80         ? 0
                      : (b >> 5) == 6  ? 1
                      : (b >> 4) == 14 ? 2
                      : (b >> 3) == 30 ? 3
                                       : -1;
    char32_t c = extra == 0 ? b : extra == 1 ? (b & 0x1F) : extra == 2 ? (b & 0x0F) : (b & 0x07);
    bool ok = extra >= 0 && i + static_cast<std::size_t>(extra) < s.size();
    for (int k = 1; ok && k <= extra; ++k) {
      const auto n = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      ok = (n >> 6) == 2;
      c = (c << 6) | (n & 0x3F);
    }
    // Overlong forms, surrogates and values past Unicode's range are not characters either.
    static const char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (ok && (c < kMin[extra] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))) ok = false;
    if (!ok) {
      out.push_back(U'\uFFFD');
      ++i;
      continue;
    }
    out.push_back(c);
    i += static_cast<std::size_t>(extra) + 1;
  }
  return out;
}

void FrameCanvas::blend(int x, int y, Rgb colour, double alpha) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_ || alpha <= 0) return;
  std::uint8_t* p = rgb_ + (static_cast<std::size_t>(y) * width_ + x) * 3;
  for (int c = 0; c < 3; ++c)
    p[c] = static_cast<std::uint8_t>(std::lround(p[c] + (colour[c] - p[c]) * std::min(alpha, 1.0)));
}

void FrameCanvas::fill(const PixelRect& r, Rgb colour, double alpha) {
  const int x1 = clampInt(std::min(r[0], r[2]), 0, width_),
            x2 = clampInt(std::max(r[0], r[2]), -1, width_ - 1);
  const int y1 = clampInt(std::min(r[1], r[3]), 0, height_),
            y2 = clampInt(std::max(r[1], r[3]), -1, height_ - 1);
  for (int y = y1; y <= y2; ++y)
    for (int x = x1; x <= x2; ++x) blend(x, y, colour, alpha);
}

void FrameCanvas::rectangle(const PixelRect& r, Rgb colour, int thickness) {
  const int x1 = std::min(r[0], r[2]), x2 = std::max(r[0], r[2]);
  const int y1 = std::min(r[1], r[3]), y2 = std::max(r[1], r[3]);
  const int t = std::max(1, thickness);
  fill({x1, y1, x2, std::min(y2, y1 + t - 1)}, colour);
  fill({x1, std::max(y1, y2 - t + 1), x2, y2}, colour);
  fill({x1, y1, std::min(x2, x1 + t - 1), y2}, colour);
  fill({std::max(x1, x2 - t + 1), y1, x2, y2}, colour);
}

int FrameCanvas::text(const TextFont& font, int x, int y, const std::string& utf8, Rgb colour) {
  FT_Face face = font.face_->face;
  const int baseline = y + font.ascent();
  for (const char32_t c : decodeUtf8(utf8)) {
    if (FT_Load_Char(face, c, FT_LOAD_RENDER)) continue;  // a glyph the font lacks: skipped
    const FT_GlyphSlot g = face->glyph;
    const FT_Bitmap& bm = g->bitmap;
    if (bm.pixel_mode == FT_PIXEL_MODE_GRAY && bm.num_grays > 1)
      for (unsigned row = 0; row < bm.rows; ++row)
        for (unsigned col = 0; col < bm.width; ++col) {
          const unsigned char cover = bm.buffer[static_cast<std::ptrdiff_t>(row) * bm.pitch + col];
          blend(x + g->bitmap_left + static_cast<int>(col),
                baseline - g->bitmap_top + static_cast<int>(row), colour,
                cover / static_cast<double>(bm.num_grays - 1));
        }
    x += static_cast<int>(g->advance.x >> 6);
  }
  return x;
}

PixelRect FrameCanvas::label(const TextFont& font, int x, int y, const std::string& utf8,
                             Rgb colour, Rgb background, double alpha) {
  constexpr int kPad = 3;
  const int w = font.width(utf8) + 2 * kPad, h = font.lineHeight() + 2 * kPad;
  x = std::max(0, std::min(x, width_ - w));
  y = std::max(0, std::min(y, height_ - h));
  const PixelRect panel{x, y, x + w - 1, y + h - 1};
  fill(panel, background, alpha);
  text(font, x + kPad, y + kPad, utf8, colour);
  return panel;
}

}  // namespace amp::data
