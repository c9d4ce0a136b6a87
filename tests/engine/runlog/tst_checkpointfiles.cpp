// runlog/CheckpointFiles: a run folder's checkpoints by TASK, as PySlowFast names them
// (get_path_to_checkpoint: "<task>_checkpoint_epoch_N.pyth"; "checkpoint_epoch_N.pyth" without a
// task), has_checkpoint, and the unfinished files of any task.
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "runlog/CheckpointFiles.h"

using namespace amp::runlog;
namespace fs = std::filesystem;

namespace {

void touch(const fs::path& dir, const std::string& name) {
  fs::create_directories(dir / "checkpoints");
  std::ofstream(dir / "checkpoints" / name) << "x";
}

std::vector<std::string> names(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(fs::path(p).filename().string());
  return out;
}

}  // namespace

class TestCheckpointFiles : public QObject {
  Q_OBJECT
 private slots:
  void namesCarryTheTask() {
    QCOMPARE(checkpointNamePrefix(""), std::string("checkpoint_epoch_"));
    QCOMPARE(checkpointNamePrefix("ssl_eval_k400"), std::string("ssl_eval_k400_checkpoint_epoch_"));
  }

  // A linear-evaluation run shares its folder with the pre-training run (PySlowFast's recipe):
  // each task sees its own files only, and a task that is the tail of another's name does not
  // take that one's files.
  void eachTaskListsItsOwnFiles() {
    QTemporaryDir tmp;
    const fs::path run = tmp.path().toStdString();
    for (const char* n : {"ssl_checkpoint_epoch_00005.pyth", "ssl_checkpoint_epoch_00010.pyth",
                          "ssl_eval_k400_checkpoint_epoch_00001.pyth",
                          "checkpoint_epoch_00002.pyth", "ssl_checkpoint_epoch_00011.pyth.tmp-7"})
      touch(run, n);
    QCOMPARE(names(listCheckpointFiles(run.string())),
             (std::vector<std::string>{"checkpoint_epoch_00002.pyth"}));
    QCOMPARE(names(listCheckpointFiles(run.string(), "ssl")),
             (std::vector<std::string>{"ssl_checkpoint_epoch_00005.pyth",
                                       "ssl_checkpoint_epoch_00010.pyth"}));
    QCOMPARE(fs::path(latestCheckpointFile(run.string(), "ssl_eval_k400")).filename().string(),
             std::string("ssl_eval_k400_checkpoint_epoch_00001.pyth"));
    QCOMPARE(latestCheckpointFile(run.string(), "k400"), std::string());
    QCOMPARE(latestCheckpointFile(run.string(), "ssl_eval_ucf"), std::string());
  }

  // PySlowFast's has_checkpoint: any name holding "checkpoint", whatever its task.
  void anyCheckpointOfAnyTaskCounts() {
    QTemporaryDir tmp;
    const fs::path run = tmp.path().toStdString();
    QVERIFY(!hasAnyCheckpointFile(run.string()));
    touch(run, "notes.txt");
    QVERIFY(!hasAnyCheckpointFile(run.string()));
    touch(run, "ssl_checkpoint_epoch_00005.pyth");
    QVERIFY(hasAnyCheckpointFile(run.string()));
    QVERIFY(latestCheckpointFile(run.string()).empty());  // none of the plain task
  }

  void unfinishedFilesOfEveryTaskAreRemoved() {
    QTemporaryDir tmp;
    const fs::path run = tmp.path().toStdString();
    for (const char* n :
         {"checkpoint_epoch_00001.pyth.tmp-12", "ssl_eval_k400_checkpoint_epoch_00002.pyth.tmp-13",
          "ssl_eval_k400_checkpoint_epoch_00001.pyth"})
      touch(run, n);
    auto removed = removeUnfinishedCheckpoints(run.string());
    std::sort(removed.begin(), removed.end());
    QCOMPARE(removed,
             (std::vector<std::string>{"checkpoint_epoch_00001.pyth.tmp-12",
                                       "ssl_eval_k400_checkpoint_epoch_00002.pyth.tmp-13"}));
    QVERIFY(fs::exists(run / "checkpoints" / "ssl_eval_k400_checkpoint_epoch_00001.pyth"));
  }
};

QTEST_APPLESS_MAIN(TestCheckpointFiles)
#include "tst_checkpointfiles.moc"
