// TensorBoard histogram summaries: the buckets of torch.utils.tensorboard's add_histogram (its
// default "tensorflow" edges, cut to the non-empty span with one empty bucket before it),
// checked against buckets worked out by hand; the bytes on disk are TensorFlow's HistogramProto
// (Summary.Value field 5), and the reader gives back what the writer wrote.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "runlog/TensorBoardHistogram.h"
#include "runlog/TensorBoardReader.h"
#include "runlog/TensorBoardWriter.h"

using namespace amp::runlog;

namespace {
std::string doubleBytes(double v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);  // protobuf's fixed64: little-endian, as this machine
  return s;
}
}  // namespace

class TestTensorBoardHistogram : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  // 1e-12 x 1.1^j < 1e20 for j = 0 .. 773 (1.1^773 = 9.92e31): 774 edges a side, and 0.
  void edgesAreTorchsDefaultBins() {
    const auto& e = defaultHistogramEdges();
    QCOMPARE(e.size(), std::size_t{1549});
    QCOMPARE(e[774], 0.0);
    QCOMPARE(e[775], 1e-12);
    QCOMPARE(e[776], 1e-12 * 1.1);
    QCOMPARE(e[773], -1e-12);
    QVERIFY(std::abs(e.back() / 9.92e19 - 1) < 1e-3);
    QCOMPARE(e.front(), -e.back());
  }

  // {0, 0, 2e-12}: 0 is in [0, 1e-12) (bucket 774), 2e-12 in [1e-12 x 1.1^7, 1e-12 x 1.1^8) =
  // [1.9487e-12, 2.1436e-12) (bucket 782). Kept: buckets 773 (empty, before the first) .. 782,
  // limits edges 774 .. 783.
  void bucketsOfAFewValuesByHand() {
    const std::vector<float> v = {0.0f, 0.0f, 2e-12f};
    std::string error;
    const auto h = makeHistogram("t", v.data(), v.size(), &error);
    QVERIFY2(h, error.c_str());
    QCOMPARE(h->bucket, (std::vector<double>{0, 2, 0, 0, 0, 0, 0, 0, 0, 1}));
    QCOMPARE(h->bucket_limit.size(), std::size_t{10});
    QCOMPARE(h->bucket_limit.front(), 0.0);
    double edge = 1e-12;
    for (std::size_t i = 1; i < 10; ++i, edge *= 1.1) QCOMPARE(h->bucket_limit[i], edge);
    QCOMPARE(h->num, 3.0);
    QCOMPARE(h->min, 0.0);
    QCOMPARE(h->max, double(2e-12f));
    QCOMPARE(h->sum, double(2e-12f));
    QCOMPARE(h->sum_squares, double(2e-12f) * double(2e-12f));
  }

  // -1 and 1 fall in mirrored buckets: 1 in [1e-12 x 1.1^289, 1e-12 x 1.1^290) (1.1^289 =
  // 9.1e11, 1.1^290 = 1.0e12), bucket 775 + 289 = 1064; -1 in bucket 1548 - 1 - 1064 = 483, the
  // one whose right edge is -1e-12 x 1.1^289. Between them every bucket is kept, empty.
  void mirroredValuesSpanTheMiddle() {
    const std::vector<float> v = {-1.0f, 1.0f, 1.0f};
    std::string error;
    const auto h = makeHistogram("t", v.data(), v.size(), &error);
    QVERIFY2(h, error.c_str());
    const auto& e = defaultHistogramEdges();
    QCOMPARE(h->bucket.size(), std::size_t{1064 - 483 + 2});
    QCOMPARE(h->bucket[0], 0.0);
    QCOMPARE(h->bucket[1], 1.0);
    QCOMPARE(h->bucket.back(), 2.0);
    QCOMPARE(h->bucket_limit.front(), e[483]);
    QCOMPARE(h->bucket_limit[1], e[484]);
    QVERIFY(e[484] > -1.0 && e[483] <= -1.0);
    QCOMPARE(h->bucket_limit.back(), e[1065]);
    QVERIFY(e[1064] <= 1.0 && e[1065] > 1.0);
    double inside = 0;
    for (std::size_t i = 2; i + 1 < h->bucket.size(); ++i) inside += h->bucket[i];
    QCOMPARE(inside, 0.0);
    QCOMPARE(h->sum, 1.0);
    QCOMPARE(h->sum_squares, 3.0);
  }

  // A value in the very first bucket: make_histogram adds a new empty bucket before it.
  void firstBucketGetsAnEmptyOneBefore() {
    const std::vector<float> v = {-9.9e19f};
    std::string error;
    const auto h = makeHistogram("t", v.data(), v.size(), &error);
    QVERIFY2(h, error.c_str());
    const auto& e = defaultHistogramEdges();
    QCOMPARE(h->bucket, (std::vector<double>{0, 1}));
    QCOMPARE(h->bucket_limit, (std::vector<double>{e[0], e[1]}));
  }

  void nothingToCountIsSaid() {
    std::string error;
    QVERIFY(!makeHistogram("w", nullptr, 0, &error));
    QVERIFY2(error.find("w: no values") == 0, error.c_str());
    const std::vector<float> v = {std::nanf(""), 3e20f};
    QVERIFY(!makeHistogram("w", v.data(), v.size(), &error));
    QVERIFY2(error.find("none of the 2 values") != std::string::npos, error.c_str());
  }

  // {0}: min, max, sum and sum_squares are 0 (proto3 leaves zeros out); num 1; limits {0, 1e-12},
  // buckets {0, 1}. HistogramProto: num = field 3 (0x19), bucket_limit field 6 and bucket field 7
  // packed (0x32, 0x3A); the whole as Summary.Value's histo, field 5 (0x2A), 45 bytes.
  void writesTensorFlowsHistogramProtoAndReadsItBack() {
    TensorBoardWriter w;
    std::string error;
    QVERIFY2(w.open(dir_.path().toStdString(), 1000.0, &error), error.c_str());
    const std::vector<float> zero = {0.0f};
    const auto h = makeHistogram("Layer Weights/head", zero.data(), 1, &error);
    QVERIFY2(h, error.c_str());
    QVERIFY2(w.addHistograms({*h}, 7, 1001.0, &error), error.c_str());
    const std::string path = w.path();
    w.close();
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string proto = std::string("\x2a\x2d\x19", 3) + doubleBytes(1.0) +
                              std::string("\x32\x10", 2) + doubleBytes(0.0) + doubleBytes(1e-12) +
                              std::string("\x3a\x10", 2) + doubleBytes(0.0) + doubleBytes(1.0);
    QVERIFY(bytes.find(proto) != std::string::npos);

    const auto f = readTensorBoardFile(path);
    QVERIFY2(f.error.empty(), f.error.c_str());
    QCOMPARE(f.events.size(), std::size_t{2});
    const auto& e = f.events[1];
    QCOMPARE(e.step, std::int64_t{7});
    QCOMPARE(e.histograms.size(), std::size_t{1});
    const auto& r = e.histograms[0];
    QCOMPARE(r.tag, std::string("Layer Weights/head"));
    QCOMPARE(r.num, 1.0);
    QCOMPARE(r.bucket_limit, (std::vector<double>{0.0, 1e-12}));
    QCOMPARE(r.bucket, (std::vector<double>{0.0, 1.0}));
    QVERIFY(e.images.empty() && e.scalars.empty());
  }
};

QTEST_GUILESS_MAIN(TestTensorBoardHistogram)
#include "tst_tensorboardhistogram.moc"
