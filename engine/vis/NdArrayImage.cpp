#include "vis/NdArrayImage.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "vis/ColourMap.h"

namespace amp::vis {
namespace {

// A float as SummaryWriter.add_image stores it: x 255, clipped, truncated to a byte.
std::uint8_t imageByte(float v) {
  if (!(v > 0.0f)) return 0;  // NaN too
  return static_cast<std::uint8_t>(std::min(v * 255.0f, 255.0f));
}

// One H x W slice into `out` (a width-wide RGB canvas) at (x0, y0): viridis or grey.
void paintSlice(const float* v, std::int64_t h, std::int64_t w, bool heatMap,
                const ColourMap& viridis, std::vector<std::uint8_t>& out, int width, int x0,
                int y0) {
  for (std::int64_t y = 0; y < h; ++y)
    for (std::int64_t x = 0; x < w; ++x) {
      const float value = v[y * w + x];
      std::uint8_t* p =
          out.data() + (static_cast<std::size_t>(y0 + y) * static_cast<std::size_t>(width) +
                        static_cast<std::size_t>(x0 + x)) *
                           3;
      if (!heatMap) {
        p[0] = p[1] = p[2] = imageByte(value);
      } else if (std::isnan(value)) {  // matplotlib's "bad" colour: transparent black
        p[0] = p[1] = p[2] = 0;
      } else {
        const auto c = viridis.at(value);
        for (int k = 0; k < 3; ++k) p[k] = imageByte(c[static_cast<std::size_t>(k)]);
      }
    }
}

}  // namespace

torch::Tensor selectForClip(const torch::Tensor& array, std::optional<std::int64_t> clip,
                            const std::vector<std::vector<std::int64_t>>& indexing) {
  using torch::indexing::TensorIndex;
  const std::size_t dims = (clip ? 1 : 0) + indexing.size();
  if (static_cast<std::int64_t>(dims) > array.dim())
    throw std::invalid_argument("the indexing names " + std::to_string(dims) +
                                " dimensions of an array of " + std::to_string(array.dim()) + " (" +
                                std::to_string(array.dim() - (clip ? 1 : 0)) +
                                " after the clip's)");
  std::vector<TensorIndex> index;
  if (clip) index.emplace_back(*clip);
  for (const auto& dim : indexing)
    index.emplace_back(torch::tensor(dim, torch::kLong).to(array.device()));
  try {
    return index.empty() ? array : array.index(index);
  } catch (const c10::Error& e) {
    throw std::invalid_argument(std::string("the indexing does not fit the array of shape ") +
                                c10::str(array.sizes()) + ": " + e.what_without_backtrace());
  }
}

NdImage ndArrayImage(const torch::Tensor& input, bool heatMap) {
  NdImage img;
  const auto array = input.detach().to(torch::kCPU, torch::kFloat).contiguous();
  std::string why;
  const ColourMap* viridis = findColourMap("viridis", &why);
  if (array.dim() == 0 || array.numel() == 0) {
    img.error = "an array of shape " + c10::str(array.sizes()) + " has nothing to draw";
    return img;
  }
  torch::Tensor slices;  // S x H x W
  if (array.dim() == 1) {
    const std::int64_t n = array.numel();
    const auto row = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
    if (n % row != 0) {
      img.error = "a 1-D array of " + std::to_string(n) + " values does not fill rows of " +
                  std::to_string(row) + " (PySlowFast's view(-1, floor(sqrt(n))) fails there too)";
      return img;
    }
    slices = array.view({1, n / row, row});
  } else {
    slices = array.reshape({-1, array.size(-2), array.size(-1)});
  }
  const std::int64_t count = slices.size(0), h = slices.size(1), w = slices.size(2);
  // make_grid: one slice alone is the image; more sit in cells of (h + 1) x (w + 1) behind a
  // 1-pixel border, floor(sqrt(count)) to a row (a 2-D array is one slice).
  const std::int64_t across =
      count == 1
          ? 1
          : std::min<std::int64_t>(
                count, std::max<std::int64_t>(
                           1, static_cast<std::int64_t>(std::sqrt(static_cast<double>(count)))));
  const std::int64_t down = (count + across - 1) / across;
  const std::int64_t pad = count == 1 ? 0 : 1;
  const std::int64_t width = across * (w + pad) + pad, height = down * (h + pad) + pad;
  constexpr std::int64_t kMaxSide = 16384;
  if (width > kMaxSide || height > kMaxSide) {
    img.error = "its picture would be " + std::to_string(width) + "x" + std::to_string(height) +
                " pixels; index fewer values (" + std::string("TENSORBOARD.MODEL_VIS.LAYER_LIST") +
                "'s \"layer 0,1;0\" form)";
    return img;
  }
  img.width = static_cast<int>(width);
  img.height = static_cast<int>(height);
  img.rgb.assign(static_cast<std::size_t>(width * height * 3), 0);
  const float* data = slices.data_ptr<float>();
  for (std::int64_t s = 0; s < count; ++s)
    paintSlice(data + s * h * w, h, w, heatMap, *viridis, img.rgb, img.width,
               static_cast<int>((s % across) * (w + pad) + pad),
               static_cast<int>((s / across) * (h + pad) + pad));
  return img;
}

}  // namespace amp::vis
