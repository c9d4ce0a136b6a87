#include "data/GifPalette.h"

#include <algorithm>
#include <limits>

namespace amp::data {
namespace {

// A colour box of the median cut: the distinct colours it holds (15-bit keys) with their counts.
struct ColourBox {
  std::vector<std::pair<std::uint16_t, std::uint32_t>> colours;
  int widestChannel() const {
    int lo[3] = {31, 31, 31}, hi[3] = {0, 0, 0};
    for (const auto& [key, n] : colours)
      for (int c = 0; c < 3; ++c) {
        const int v = (key >> (10 - 5 * c)) & 31;
        lo[c] = std::min(lo[c], v);
        hi[c] = std::max(hi[c], v);
      }
    int best = 0;
    for (int c = 1; c < 3; ++c)
      if (hi[c] - lo[c] > hi[best] - lo[best]) best = c;
    return hi[best] > lo[best] ? best : -1;  // -1: one colour, nothing to split
  }
};

std::uint16_t key15(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(((p[0] >> 3) << 10) | ((p[1] >> 3) << 5) | (p[2] >> 3));
}

}  // namespace

GifPalette GifPalette::of(const std::uint8_t* rgb, std::size_t pixels) {
  // Count the colours at 5 bits a channel, keeping each key's mean full colour for its entry.
  std::vector<std::uint32_t> counts(1u << 15, 0);
  std::vector<std::array<std::uint64_t, 3>> sums(1u << 15, {0, 0, 0});
  for (std::size_t i = 0; i < pixels; ++i) {
    const std::uint8_t* p = rgb + 3 * i;
    const std::uint16_t k = key15(p);
    ++counts[k];
    for (int c = 0; c < 3; ++c) sums[k][static_cast<std::size_t>(c)] += p[c];
  }
  std::vector<ColourBox> boxes(1);
  for (std::uint32_t k = 0; k < counts.size(); ++k)
    if (counts[k]) boxes[0].colours.emplace_back(static_cast<std::uint16_t>(k), counts[k]);
  // Split the most populous splittable box at the median pixel of its widest channel.
  while (boxes.size() < static_cast<std::size_t>(kEntries)) {
    std::size_t pick = boxes.size();
    std::uint64_t most = 0;
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      if (boxes[b].colours.size() < 2 || boxes[b].widestChannel() < 0) continue;
      std::uint64_t n = 0;
      for (const auto& [key, c] : boxes[b].colours) n += c;
      if (n > most) {
        most = n;
        pick = b;
      }
    }
    if (pick == boxes.size()) break;
    auto& box = boxes[pick];
    const int shift = 10 - 5 * box.widestChannel();
    std::sort(box.colours.begin(), box.colours.end(), [shift](const auto& a, const auto& b) {
      return ((a.first >> shift) & 31) < ((b.first >> shift) & 31);
    });
    std::uint64_t half = most / 2, seen = 0;
    std::size_t cut = 1;
    for (; cut < box.colours.size(); ++cut) {
      seen += box.colours[cut - 1].second;
      if (seen >= half) break;
    }
    cut = std::clamp<std::size_t>(cut, 1, box.colours.size() - 1);
    ColourBox upper;
    upper.colours.assign(box.colours.begin() + static_cast<std::ptrdiff_t>(cut), box.colours.end());
    box.colours.resize(cut);
    boxes.push_back(std::move(upper));
  }
  GifPalette p;
  p.used_ = static_cast<int>(boxes.size());
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    std::uint64_t n = 0, s[3] = {0, 0, 0};
    for (const auto& [key, c] : boxes[b].colours) {
      n += c;
      for (int ch = 0; ch < 3; ++ch) s[ch] += sums[key][static_cast<std::size_t>(ch)];
    }
    for (int ch = 0; ch < 3; ++ch)
      p.entries_[b][static_cast<std::size_t>(ch)] =
          static_cast<std::uint8_t>(n ? (s[ch] + n / 2) / n : 0);
  }
  return p;
}

std::vector<std::uint8_t> GifPalette::map(const std::uint8_t* rgb, std::size_t pixels) const {
  std::vector<std::int16_t> nearest(1u << 15, -1);
  std::vector<std::uint8_t> out(pixels);
  const int used = std::max(used_, 1);
  for (std::size_t i = 0; i < pixels; ++i) {
    const std::uint8_t* p = rgb + 3 * i;
    const std::uint16_t k = key15(p);
    if (nearest[k] < 0) {
      // The nearest entry to the key's cell centre, searched once per distinct cell.
      const int r = ((k >> 10) & 31) * 8 + 4, g = ((k >> 5) & 31) * 8 + 4, b = (k & 31) * 8 + 4;
      int best = 0, bestD = std::numeric_limits<int>::max();
      for (int e = 0; e < used; ++e) {
        const auto& c = entries_[static_cast<std::size_t>(e)];
        const int d = (c[0] - r) * (c[0] - r) + (c[1] - g) * (c[1] - g) + (c[2] - b) * (c[2] - b);
        if (d < bestD) {
          bestD = d;
          best = e;
        }
      }
      nearest[k] = static_cast<std::int16_t>(best);
    }
    out[i] = static_cast<std::uint8_t>(nearest[k]);
  }
  return out;
}

std::array<std::uint32_t, GifPalette::kEntries> GifPalette::argb() const {
  std::array<std::uint32_t, kEntries> out{};
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = 0xFF000000u | (std::uint32_t{entries_[i][0]} << 16) |
             (std::uint32_t{entries_[i][1]} << 8) | entries_[i][2];
  return out;
}

}  // namespace amp::data
