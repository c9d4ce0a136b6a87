// Pre-flight checks: each problem a training run would meet on this machine appears with its
// key before anything starts, and checking writes nothing.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <filesystem>
#include <fstream>

#include "configfile/ConfigLoader.h"
#include "preflight/Preflight.h"
#include "preflight/RunPreflight.h"
#include "runlog/RunLock.h"
#include "support/DemoFixture.h"

using namespace amp;

namespace {
const config::Diagnostic* find(const config::Diagnostics& d, const std::string& key) {
  for (const auto& x : d)
    if (x.key == key) return &x;
  return nullptr;
}
std::string all(const config::Diagnostics& d) {
  return config::formatDiagnostics(d);
}
}  // namespace

class TestPreflight : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  std::string data_;

  std::string path(const QString& name) const { return dir_.filePath(name).toStdString(); }

  // The demo config on the generated data, with `extra` overrides.
  config::Config demo(std::vector<std::string> extra = {}) const {
    std::vector<std::string> ov = {
        "DATA.PATH_TO_DATA_DIR", data_, "DATA.PATH_PREFIX", data_, "OUTPUT_DIR", path("runs/a")};
    ov.insert(ov.end(), extra.begin(), extra.end());
    auto r = config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml", ov);
    if (!r.ok()) qFatal("%s", all(r.diagnostics).c_str());
    return r.config;
  }

  config::Diagnostics data(const config::Config& cfg) const {
    config::Diagnostics out;
    preflight::checkData(cfg, "demo.yaml", {}, out);
    return out;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    testsupport::DemoFixture demo({}, /*clipsPerClass=*/2);
    QVERIFY2(demo.generate(dir_.path()), demo.error().c_str());
    data_ = demo.dataDir();
  }

  void deviceNumGpusWithoutCuda() {
    preflight::MachineFacts none;
    none.cpu_cores = 2;
    config::Diagnostics out;
    preflight::checkDevice(demo({"NUM_GPUS", "1", "AMP.DTYPE", "float16"}), "demo.yaml", none, out);
    const auto* gpus = find(out, "NUM_GPUS");
    QVERIFY2(gpus && gpus->isError(), all(out).c_str());
    QVERIFY(gpus->message.find("sees no CUDA device; set NUM_GPUS 0") != std::string::npos);
    const auto* dtype = find(out, "AMP.DTYPE");
    QVERIFY2(dtype && dtype->isError(), all(out).c_str());
    // NUM_GPUS 0 trains on the CPU: nothing to say about the device.
    out.clear();
    preflight::checkDevice(demo(), "demo.yaml", none, out);
    QVERIFY2(out.empty(), all(out).c_str());
  }

  void deviceMoreGpusThanTheMachineHas() {
    preflight::MachineFacts two;
    two.cuda_devices = 2;
    two.cpu_cores = 16;
    config::Diagnostics out;
    preflight::checkDevice(demo({"NUM_GPUS", "4"}), "demo.yaml", two, out);
    const auto* gpus = find(out, "NUM_GPUS");
    QVERIFY2(
        gpus && gpus->isError() && gpus->message.find("has 2 CUDA devices") != std::string::npos,
        all(out).c_str());
    out.clear();
    preflight::checkDevice(demo({"NUM_GPUS", "2"}), "demo.yaml", two, out);
    QVERIFY2(out.empty(), all(out).c_str());
  }

  void deviceMoreProcessesThanCores() {
    preflight::MachineFacts m;
    m.cpu_cores = 2;
    config::Diagnostics out;
    preflight::checkDevice(demo({"DIST.CPU_PROCESSES", "4"}), "demo.yaml", m, out);
    const auto* p = find(out, "DIST.CPU_PROCESSES");
    QVERIFY2(p && !p->isError() && p->message.find("on 2 cores") != std::string::npos,
             all(out).c_str());
  }

  // TENSORBOARD.ENABLE in a build without event files: a warning (the run still trains).
  void tensorBoardWithoutEventFileSupportIsWarned() {
    preflight::MachineFacts without;
    without.cpu_cores = 2;
    without.tensorboard_support = "this build has no TensorBoard event files";
    config::Diagnostics out;
    preflight::checkDevice(demo({"TRAIN.MIXED_PRECISION", "False", "TENSORBOARD.ENABLE", "True"}),
                           "demo.yaml", without, out);
    const auto* tb = find(out, "TENSORBOARD.ENABLE");
    QVERIFY2(tb && !tb->isError(), all(out).c_str());  // the run still trains
    QVERIFY2(tb->message.find("this build has no TensorBoard event files") != std::string::npos &&
                 tb->message.find("libisal-dev") != std::string::npos,
             tb->message.c_str());
    out.clear();  // off, or a build that writes them: nothing to say
    preflight::checkDevice(demo({"TRAIN.MIXED_PRECISION", "False"}), "demo.yaml", without, out);
    QVERIFY2(out.empty(), all(out).c_str());
    preflight::MachineFacts with = without;
    with.tensorboard_support.clear();
    preflight::checkDevice(demo({"TRAIN.MIXED_PRECISION", "False", "TENSORBOARD.ENABLE", "True"}),
                           "demo.yaml", with, out);
    QVERIFY2(out.empty(), all(out).c_str());
  }

  // bfloat16 autocast on a CPU without LibTorch's bfloat16 convolutions: a warning at the switch,
  // only where bfloat16 is what the CPU run would use.
  void bfloat16OnACpuWithoutItsKernelsIsWarned() {
    preflight::MachineFacts avx2;
    avx2.cpu_cores = 2;
    avx2.cpu_bf16_kernels = false;
    config::Diagnostics out;
    preflight::checkDevice(demo(), "demo.yaml", avx2,
                           out);  // the demo: mixed precision, AMP.DTYPE auto
    const auto* mp = find(out, "TRAIN.MIXED_PRECISION");
    QVERIFY2(mp && !mp->isError(), all(out).c_str());
    QVERIFY2(mp->message.find("no AVX-512") != std::string::npos &&
                 mp->message.find("TRAIN.MIXED_PRECISION False") != std::string::npos,
             mp->message.c_str());
    QVERIFY2(mp->where.line > 0, all(out).c_str());  // at the demo file's line
    out.clear();
    preflight::checkDevice(demo({"AMP.DTYPE", "bfloat16"}), "demo.yaml", avx2, out);
    QVERIFY2(find(out, "TRAIN.MIXED_PRECISION"), all(out).c_str());
    for (const auto& quiet :
         std::vector<std::vector<std::string>>{{"TRAIN.MIXED_PRECISION", "False"}}) {
      out.clear();
      preflight::checkDevice(demo(quiet), "demo.yaml", avx2, out);
      QVERIFY2(out.empty(), all(out).c_str());
    }
    preflight::MachineFacts avx512 = avx2;  // LibTorch's oneDNN has bfloat16 kernels there
    avx512.cpu_bf16_kernels = true;
    out.clear();
    preflight::checkDevice(demo(), "demo.yaml", avx512, out);
    QVERIFY2(out.empty(), all(out).c_str());
    preflight::MachineFacts gpu = avx2;  // on a GPU, AMP is float16 and the CPU does not matter
    gpu.cuda_devices = 1;
    out.clear();
    preflight::checkDevice(demo({"NUM_GPUS", "1"}), "demo.yaml", gpu, out);
    QVERIFY2(out.empty(), all(out).c_str());
  }

  // On a GPU, a ResNet-family model in NCDHW is told what channels-last measured; X3D, MViT, the
  // CPU and a config that already asks for channels-last hear nothing.
  void channelsLastIsSuggestedOnAGpuForResNets() {
    preflight::MachineFacts gpu;
    gpu.cpu_cores = 2;
    gpu.cuda_devices = 1;
    auto load = [](const char* file, std::vector<std::string> ov) {
      auto r = config::ConfigLoader().loadFile(
          std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/" + file, ov);
      if (!r.ok()) qFatal("%s", all(r.diagnostics).c_str());
      return r.config;
    };
    config::Diagnostics out;
    preflight::checkDevice(load("Kinetics/SLOWFAST_8x8_R50.yaml", {"NUM_GPUS", "1"}), "sf.yaml",
                           gpu, out);
    const auto* cl = find(out, "AMP.CHANNELS_LAST_3D");
    QVERIFY2(cl && !cl->isError(), all(out).c_str());
    QVERIFY2(cl->message.find("1.8x faster in FP32") != std::string::npos &&
                 cl->message.find("set AMP.CHANNELS_LAST_3D True") != std::string::npos,
             cl->message.c_str());
    const std::vector<std::pair<const char*, std::vector<std::string>>> quiet = {
        {"Kinetics/SLOWFAST_8x8_R50.yaml", {"NUM_GPUS", "1", "AMP.CHANNELS_LAST_3D", "True"}},
        {"Kinetics/X3D_M.yaml", {"NUM_GPUS", "1"}},
        {"Kinetics/MVITv2_S_16x4.yaml", {"NUM_GPUS", "1"}}};
    for (const auto& [file, ov] : quiet) {
      out.clear();
      preflight::checkDevice(load(file, ov), "q.yaml", gpu, out);
      QVERIFY2(!find(out, "AMP.CHANNELS_LAST_3D"), (std::string(file) + ": " + all(out)).c_str());
    }
    out.clear();
    gpu.cuda_devices = 0;  // NUM_GPUS 0 on a CPU machine
    preflight::checkDevice(load("Kinetics/SLOWFAST_8x8_R50.yaml", {"NUM_GPUS", "0"}), "sf.yaml",
                           gpu, out);
    QVERIFY2(!find(out, "AMP.CHANNELS_LAST_3D"), all(out).c_str());
  }

  void float16OnTheCpuIsTheValidatorsOnly() {
    // The validator already reports float16 with NUM_GPUS 0; pre-flight does not say it twice.
    auto r = config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml",
        {"AMP.DTYPE", "float16"});
    QVERIFY(find(r.diagnostics, "AMP.DTYPE"));
    preflight::MachineFacts none;
    config::Diagnostics out;
    preflight::checkDevice(r.config, "demo.yaml", none, out);
    QVERIFY2(!find(out, "AMP.DTYPE"), all(out).c_str());
  }

  void dataOnTheDemoSetIsFine() {
    const auto out = data(demo());
    QVERIFY2(out.empty(), all(out).c_str());
  }

  void dataFolderEmptyOrMissing() {
    auto out = data(demo({"DATA.PATH_TO_DATA_DIR", "''"}));
    QVERIFY2(find(out, "DATA.PATH_TO_DATA_DIR") && find(out, "DATA.PATH_TO_DATA_DIR")->isError(),
             all(out).c_str());
    out = data(demo({"DATA.PATH_TO_DATA_DIR", path("nowhere")}));
    QVERIFY2(
        find(out, "DATA.PATH_TO_DATA_DIR") &&
            find(out, "DATA.PATH_TO_DATA_DIR")->message.find("does not exist") != std::string::npos,
        all(out).c_str());
  }

  void dataListOfAnEnabledPhaseMissing() {
    const std::string partial = path("partial");
    std::filesystem::create_directories(partial);
    std::filesystem::copy_file(data_ + "/train.csv", partial + "/train.csv");
    auto out = data(demo({"DATA.PATH_TO_DATA_DIR", partial}));
    QVERIFY2(all(out).find("has no val.csv") != std::string::npos, all(out).c_str());
    QVERIFY2(all(out).find("has no test.csv") != std::string::npos, all(out).c_str());
    // Test off: test.csv is not needed.
    out = data(demo({"DATA.PATH_TO_DATA_DIR", partial, "TEST.ENABLE", "False"}));
    QVERIFY2(all(out).find("test.csv") == std::string::npos, all(out).c_str());
  }

  void dataVideosMissingOrUndecodable() {
    // A wrong prefix: every listed video is missing.
    auto out = data(demo({"DATA.PATH_PREFIX", path("elsewhere")}));
    const auto* p = find(out, "DATA.PATH_PREFIX");
    QVERIFY2(p && p->isError() && p->message.find("sampled videos") != std::string::npos,
             all(out).c_str());
    // Lists naming a file that is not a video: a warning (the loader skips bad files).
    const std::string bad = path("bad");
    std::filesystem::create_directories(bad);
    for (const char* split : {"train", "val", "test"}) {
      QFile csv(QString::fromStdString(bad + "/" + split + ".csv"));
      QVERIFY(csv.open(QIODevice::WriteOnly));
      csv.write("junk.mp4 0\n");
    }
    QFile junk(QString::fromStdString(bad + "/junk.mp4"));
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("this is not a video");
    junk.close();
    out = data(demo({"DATA.PATH_TO_DATA_DIR", bad, "DATA.PATH_PREFIX", bad}));
    p = find(out, "DATA.PATH_PREFIX");
    QVERIFY2(p && !p->isError() && p->message.find("does not decode") != std::string::npos,
             all(out).c_str());
  }

  void dataLabelsBeyondNumClasses() {
    const auto out = data(demo({"MODEL.NUM_CLASSES", "4"}));
    const auto* p = find(out, "MODEL.NUM_CLASSES");
    QVERIFY2(p && p->isError() && p->message.find("labels up to 7") != std::string::npos,
             all(out).c_str());
  }

  void filesOutputDirInUse() {
    const std::string run = path("runs/busy");
    std::filesystem::create_directories(run);
    config::Diagnostics out;
    preflight::checkFiles(demo({"OUTPUT_DIR", run}), "demo.yaml", out);
    QVERIFY2(out.empty(), all(out).c_str());
    runlog::RunLock lock;
    std::string error;
    QVERIFY2(lock.acquire(run, &error), error.c_str());
    preflight::checkFiles(demo({"OUTPUT_DIR", run}), "demo.yaml", out);
    const auto* p = find(out, "OUTPUT_DIR");
    QVERIFY2(p && p->isError() &&
                 p->message.find("being written by another trainer") != std::string::npos,
             all(out).c_str());
    QVERIFY(lock.held());
  }

  void filesOutputDirCannotBeMade() {
    QFile file(dir_.filePath("plainfile"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    config::Diagnostics out;
    preflight::checkFiles(demo({"OUTPUT_DIR", path("plainfile/run")}), "demo.yaml", out);
    QVERIFY2(find(out, "OUTPUT_DIR") && find(out, "OUTPUT_DIR")->isError(), all(out).c_str());
    out.clear();
    preflight::checkFiles(demo({"OUTPUT_DIR", path("plainfile")}), "demo.yaml", out);
    QVERIFY2(find(out, "OUTPUT_DIR") &&
                 find(out, "OUTPUT_DIR")->message.find("is a file") != std::string::npos,
             all(out).c_str());
  }

  void filesCheckpointsMissing() {
    config::Diagnostics out;
    preflight::checkFiles(demo({"TRAIN.CHECKPOINT_FILE_PATH", path("no.pyth"),
                                "TEST.CHECKPOINT_FILE_PATH", path("none.pyth")}),
                          "demo.yaml", out);
    QVERIFY2(find(out, "TRAIN.CHECKPOINT_FILE_PATH") && find(out, "TEST.CHECKPOINT_FILE_PATH"),
             all(out).c_str());
    // A phase that does not run does not load its checkpoint.
    out.clear();
    preflight::checkFiles(
        demo({"TRAIN.CHECKPOINT_FILE_PATH", path("no.pyth"), "TRAIN.ENABLE", "False"}), "demo.yaml",
        out);
    QVERIFY2(!find(out, "TRAIN.CHECKPOINT_FILE_PATH"), all(out).c_str());
  }

  void filesOfClassGroupsThatCannotBeUsedAreWarned() {
    config::Diagnostics out;
    std::ofstream(path("names.json")) << R"({"moving_left": 0})";
    std::ofstream(path("cats.json")) << R"({"moving": ["moving_left")";  // torn
    preflight::checkFiles(demo({"TENSORBOARD.CLASS_NAMES_PATH", path("names.json"),
                                "TENSORBOARD.CATEGORIES_PATH", path("cats.json")}),
                          "demo.yaml", out);
    const auto* w = find(out, "TENSORBOARD.CATEGORIES_PATH");
    QVERIFY2(w && !w->isError() && w->message.find(path("cats.json")) != std::string::npos,
             all(out).c_str());
    out.clear();
    preflight::checkFiles(demo({"TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH", path("none.txt"),
                                "TENSORBOARD.CLASS_NAMES_PATH", path("names.json")}),
                          "demo.yaml", out);
    QVERIFY2(find(out, "TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH"), all(out).c_str());
    out.clear();
    preflight::checkFiles(demo({"TENSORBOARD.CLASS_NAMES_PATH", path("names.json")}), "demo.yaml",
                          out);
    QVERIFY2(!find(out, "TENSORBOARD.CLASS_NAMES_PATH"), all(out).c_str());
  }

  void memoryWarningHasTheNumbers() {
    const std::int64_t gib = std::int64_t{1} << 30;
    preflight::MemoryEstimate e;
    e.measured = true;
    e.fixed_bytes = gib;
    e.per_clip_bytes = 5 * gib;  // the demo's batch of 8 clips: 41 GiB
    preflight::MachineFacts m;
    m.free_ram_bytes = 23 * gib;
    config::Diagnostics out;
    preflight::checkMemory(demo(), "demo.yaml", m, e, out);
    const auto* p = find(out, "TRAIN.BATCH_SIZE");
    QVERIFY2(p && !p->isError(), all(out).c_str());
    QVERIFY2(p->message.find("about 41 GiB needed for one training step, 23 GiB of RAM free") !=
                 std::string::npos,
             p->message.c_str());
    out.clear();
    m.free_ram_bytes = 64 * gib;
    preflight::checkMemory(demo(), "demo.yaml", m, e, out);
    QVERIFY2(out.empty(), all(out).c_str());
  }

  void memoryIsMeasuredOnceperModel() {
    preflight::MemoryEstimator estimator;
    const auto a = estimator.estimate(demo({"X3D.DIM_C5", "32"}));
    QVERIFY2(a.measured, a.note.c_str());
    QVERIFY(a.per_clip_bytes > 0);
    QVERIFY(a.fixed_bytes > 0);
    QCOMPARE(estimator.measurements(), 1);
    // The batch, the paths and the schedule do not change one clip's step: from the cache.
    const auto b = estimator.estimate(demo({"X3D.DIM_C5", "32", "TRAIN.BATCH_SIZE", "16",
                                            "SOLVER.BASE_LR", "0.1", "OUTPUT_DIR", "x"}));
    QCOMPARE(estimator.measurements(), 1);
    QCOMPARE(b.per_clip_bytes, a.per_clip_bytes);
    // The model does.
    estimator.estimate(demo({"X3D.DIM_C5", "48"}));
    QCOMPARE(estimator.measurements(), 2);
  }

  void runPreflightReportsTrainerRefusalsAndWritesNothing() {
    const std::string out = path("runs/never");
    preflight::PreflightOptions o;
    o.memory = false;
    auto d = preflight::runPreflight(demo({"OUTPUT_DIR", out, "MIXUP.ENABLE", "True",
                                           "TRAIN.BATCH_SIZE", "1", "X3D.BN_LIN5", "False"}),
                                     "demo.yaml", o, nullptr);
    QVERIFY2(find(d, "MIXUP.ENABLE") && find(d, "MIXUP.ENABLE")->isError(), all(d).c_str());
    d = preflight::runPreflight(demo({"OUTPUT_DIR", out, "DATA.MULTI_LABEL", "True"}), "demo.yaml",
                                o, nullptr);
    QVERIFY2(find(d, "DATA.MULTI_LABEL"), all(d).c_str());
    d = preflight::runPreflight(demo({"OUTPUT_DIR", out}), "demo.yaml", o, nullptr);
    QVERIFY2(!config::hasErrors(d), all(d).c_str());
    QVERIFY(!std::filesystem::exists(out));
  }
};

QTEST_GUILESS_MAIN(TestPreflight)
#include "tst_preflight.moc"
