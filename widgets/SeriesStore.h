#pragma once
// The numbers behind one chart, without Qt: each series' points, running extents, the min/max
// pyramid that draws long series, nearest-point lookups and notes on points. It builds without
// Qt (its own library, no Qt include path) so the data logic is tested as plain arithmetic.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace amp::widgets {

/// Every series of one chart, points kept sorted by x. A series past the direct-point limit is
/// drawn from an envelope: the visible range as about two points per pixel (each block's
/// minimum and maximum, in x order) taken from a min/max pyramid, so a replot costs O(pixels)
/// however long the run, and a one-step spike still shows.
///
///   SeriesStore store;
///   const int loss = store.addSeries();
///   store.append(loss, steps.data(), values.data(), steps.size());
///   std::vector<SeriesStore::Point> drawn;
///   store.envelope(loss, 0, 1e6, 600, drawn);  // what a 600-pixel-wide plot needs
///   const std::size_t k = store.nearestIndex(loss, 1234.4);  // the tracker's point
class SeriesStore {
 public:
  struct Point {
    double x, y;
  };
  /// The finite points' bounds, kept up to date on every append (following a live run costs
  /// O(1) per update, not a scan).
  struct Extents {
    bool any = false;  ///< some point has a finite x and y
    double minX = 0, maxX = 0, minY = 0, maxY = 0;
    double minPositiveY = 0;  ///< smallest y > 0 (what a log axis can show); 0 when none
  };
  struct Appended {
    bool inOrder;          ///< no new x below the series' last one (a plot can append as is)
    bool envelopeStarted;  ///< this append took the series past the direct-point limit
  };
  /// Which of two points equally far from x a lookup returns.
  enum class Tie { Earlier, Later };
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  /// The pyramid: level 0 summarises kBlock points a block, level L kBlock * kFan^L.
  static constexpr std::size_t kBlock = 64;
  static constexpr std::size_t kFan = 8;

  /// Adds an empty series and returns its index.
  int addSeries();
  int seriesCount() const { return static_cast<int>(series_.size()); }
  void removeAll() { series_.clear(); }
  /// Every series' points and notes, keeping the series.
  void clearPoints();

  /// Series longer than this are drawn as envelopes (default 20,000 points). Set it before
  /// adding points: a series that went past it stays enveloped until cleared.
  void setDirectPointLimit(std::size_t n) { directPoints_ = n; }
  std::size_t directPointLimit() const { return directPoints_; }
  /// Appends n points. Usually x does not go back (the fast path); when it does, the series is
  /// sorted again (stable: equal x keep their order) and its pyramid rebuilt.
  Appended append(int series, const double* x, const double* y, std::size_t n);

  std::size_t pointCount(int series) const { return at(series).x.size(); }
  const std::vector<double>& xs(int series) const { return at(series).x; }
  const std::vector<double>& ys(int series) const { return at(series).y; }
  const Extents& extents(int series) const { return at(series).extents; }
  /// True once the series went past the direct-point limit: draw envelope() output, not xs/ys.
  bool enveloped(int series) const { return at(series).enveloped; }

  /// Replaces `out` with what to draw of x in [lower, upper] on `pixels` pixels, with one point
  /// beyond each side so lines run to the edges: the raw points when there are fewer than
  /// kBlock a pixel, else the minimum and maximum of each block of the coarsest level that still
  /// has a block a pixel (finer blocks and raw points at the ragged ends). Every point out is a
  /// data point, in x order.
  void envelope(int series, double lower, double upper, double pixels,
                std::vector<Point>& out) const;
  /// The smallest and largest finite y of the points with x in [lower, upper] (only y > 0 when
  /// `positiveOnly`, for log axes). False when there is none.
  bool valueRange(int series, double lower, double upper, bool positiveOnly, double* minY,
                  double* maxY) const;
  /// The index of the point nearest x; kNone for an empty series.
  std::size_t nearestIndex(int series, double x, Tie tie = Tie::Earlier) const;

  /// A note on the point of `series` at x (a tracker shows it after the value).
  void setNote(int series, double x, std::string note);
  /// The note on the point at exactly x; nullptr when none.
  const std::string* note(int series, double x) const;

 private:
  struct Block {
    double minX, minY, maxX, maxY;
    bool any;
  };
  struct Series {
    std::vector<double> x, y;
    Extents extents;
    std::map<double, std::string> notes;
    std::vector<std::vector<Block>> levels;  ///< level L: blocks of kBlock * kFan^L points
    bool enveloped = false;
  };
  const Series& at(int series) const { return series_[static_cast<std::size_t>(series)]; }
  Series& at(int series) { return series_[static_cast<std::size_t>(series)]; }
  static void extendPyramid(Series& s);
  static void appendEnvelope(const Series& s, int level, std::size_t i0, std::size_t i1,
                             std::vector<Point>& out);

  std::vector<Series> series_;
  std::size_t directPoints_ = 20000;
};

}  // namespace amp::widgets
