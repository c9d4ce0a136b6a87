#pragma once
// Small helpers the file-reading suites share: write a file into a temporary folder, the message
// a reader throws, and the checkpoint files of tests/data.
//
//   QTemporaryDir dir;
//   const std::string path = amp::testsupport::writeFile(dir, "sub/labels.json", "{}");
//   QVERIFY(amp::testsupport::errorOf([&] { read(path); }).contains(path.c_str()));
#include <QString>
#include <QTemporaryDir>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>

namespace amp::testsupport {

/// Writes `bytes` to `dir`/`name` (creating its folders); returns the path.
inline std::string writeFile(const QTemporaryDir& dir, const std::string& name,
                             const std::string& bytes) {
  const std::string path = dir.path().toStdString() + "/" + name;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

/// What `f` throws as std::runtime_error; "" when it returns.
inline QString errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

/// A file of tests/data/checkpoints (tests/data/README.md says how each was written).
inline std::string checkpointFixture(const std::string& name) {
  return std::string(AMPSTUDIO_TEST_DATA_DIR) + "/checkpoints/" + name;
}

}  // namespace amp::testsupport
