#pragma once
// PySlowFast's temporal and spatial sampling (slowfast/datasets/decoder.py, transform.py) as
// pure functions. Random draws come in as numbers in [0, 1), so the same draws give the same
// frame indices and crop boxes as PySlowFast, and tests can feed hand-chosen draws.
#include <cstdint>
#include <functional>
#include <vector>

namespace amp::data {

/// torch.linspace(start, end, steps) in its default dtype, float32, computed as PyTorch does.
std::vector<float> torchLinspace(double start, double end, int steps);

/// Frames of the source video one clip spans: SAMPLING_RATE * NUM_FRAMES / TARGET_FPS * fps.
double clipSpanFrames(int samplingRate, int numFrames, double targetFps, double videoFps);

/// Start frame (a real number) of a clip, as PySlowFast's get_start_end_idx:
/// `clipIdx` -1 draws uniformly in [0, delta] from `u`; otherwise view clipIdx of numClips,
/// `delta * clipIdx / numClips`, or with useOffset spread from 0 to delta (centre for one view).
double clipStart(double videoFrames, double clipSize, int clipIdx, int numClips, bool useOffset, double u);

/// The starts of `windows` random clips of clipSize frames from one video (decoder.py's
/// get_multiple_start_end_idx with clip_idx -1, DATA.TRAIN_CROP_NUM_TEMPORAL): each start is
/// uniform in [0, videoFrames - clipSize] from draw(k), window k's next uniform number. The gaps
/// between the windows in time order (a start minus the previous window's last frame) must lie
/// in [deltaMin, deltaMax]: a window is drawn again up to 100 times until they do, the whole set
/// up to 100 times, else the set that misses least is kept. In draw order (PySlowFast returns
/// them sorted in a random order: the same distribution).
std::vector<double> randomWindowStarts(double videoFrames, double clipSize, int windows, double deltaMin, double deltaMax,
                                       const std::function<double(int window)>& draw);

/// linspace(start, start + clipSize - 1, numFrames), clamped to [0, videoFrames - 1], truncated.
std::vector<std::int64_t> clipFrameIndices(double start, double clipSize, int numFrames, std::int64_t videoFrames);

/// Indices of the slow pathway within a fast clip of `fastFrames`: linspace(0, T - 1, T / alpha).
std::vector<std::int64_t> slowPathwayIndices(int fastFrames, int alpha);

struct Size {
  int height = 0;
  int width = 0;
  bool operator==(const Size& o) const { return height == o.height && width == o.width; }
};

/// Short side drawn as int(round(uniform(min, max))) with Python's round half to even;
/// `inverseUniform` draws 1/size uniformly instead (DATA.INV_UNIFORM_SAMPLE).
int jitterShortSide(int minSize, int maxSize, double u, bool inverseUniform = false);

/// Frame size after scaling the short side to `shortSide` (long side floored), as PySlowFast.
Size scaleShortSide(Size in, int shortSide);

/// The size torchvision's video reader decodes to with video_min_dimension = `minDimension`
/// (PySlowFast's torchvision backend, max_spatial_scale): the short side `minDimension`, the long
/// side rounded half away from zero (a square frame counts as portrait).
Size decodeSizeAtMinDimension(Size in, int minDimension);

struct CropBox {
  int y = 0;
  int x = 0;
  int size = 0;
  bool operator==(const CropBox& o) const { return y == o.y && x == o.x && size == o.size; }
};

/// Random crop: offsets randint(0, extent - size) from draws uy, ux (0 when extent <= size).
CropBox randomCrop(Size in, int size, double uy, double ux);

/// Test crop: 0, 1, 2 = left, centre, right (top, centre, bottom for portrait frames).
CropBox uniformCrop(Size in, int size, int spatialIdx);

/// horizontal_flip: flips when the draw is below `prob`.
inline bool flipFromDraw(double prob, double u) { return u < prob; }

}  // namespace amp::data
