#include "DemoDataJob.h"

#include <QDir>
#include <QFileInfo>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>
#include <fstream>
#include <iterator>
#include <thread>

#include <nlohmann/json.hpp>

namespace amp::gui {

DemoDataJob::DemoDataJob(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcherBase::progressValueChanged, this, &DemoDataJob::progressed);
  connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
    running_ = false;
    result_ = watcher_.future().resultCount() > 0 ? watcher_.result() : Result{};
    emit finished(result_.ok);
  });
}

bool DemoDataJob::isCurrent(const QString& dir, data::DemoFormat format) {
  std::ifstream in(QDir(dir).filePath("demo-data.json").toStdString());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto j = nlohmann::json::parse(text, nullptr, false);
  const char* list = format == data::DemoFormat::Ava ? "frame_lists/train.csv" : "train.csv";
  if (!QFileInfo::exists(QDir(dir).filePath(list)) || !j.is_object() ||
      j.value("version", 0) != data::kDemoDataVersion)
    return false;
  // Datasets written before the frame formats name none: they are Kinetics'.
  const auto written = j.find("format");
  data::DemoFormat was = data::DemoFormat::Kinetics;
  if (written != j.end() && written->is_string() &&
      !data::demoFormatFromName(written->get<std::string>(), was))
    return false;
  return was == format;
}

bool DemoDataJob::start(const QString& dir, int clipsPerClass, data::DemoFormat format) {
  if (running_) return false;
  running_ = true;
  dir_ = dir;
  result_ = {};
  QDir(dir).removeRecursively();  // clips of an older generator must not mix with the new ones
  data::DemoDataOptions o;
  o.out_dir = dir.toStdString();
  o.clips_per_class = clipsPerClass;
  o.format = format;
  o.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  // Everything the task touches is its own copy: it may outlive this object.
  watcher_.setFuture(QtConcurrent::run([o](QPromise<Result>& promise) {
    promise.setProgressRange(0, 100);
    Result r;
    try {  // an exception on a pool thread would end the studio
      r.ok = data::generateDemoData(o, r.summary, &r.error, [&promise](int done, int total) {
        // Thread-safe; a value below the last one (threads finishing out of order) is ignored.
        promise.setProgressValue(100 * done / std::max(1, total));
      });
    } catch (const std::exception& e) {
      r.ok = false;
      r.error = e.what();
    }
    promise.addResult(std::move(r));
  }));
  return true;
}

}  // namespace amp::gui
