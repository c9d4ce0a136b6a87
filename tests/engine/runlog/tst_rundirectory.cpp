#include <QtTest>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "runlog/RunDirectory.h"
#include "runlog/RunLock.h"
#include "util/AtomicFile.h"

using namespace amp::runlog;
namespace fs = std::filesystem;

class TestRunDirectory : public QObject {
  Q_OBJECT
 private slots:
  void layoutAndMetadataRoundTrip() {
    QTemporaryDir tmp;
    RunDirectory run(tmp.path().toStdString() + "/run-a");
    QVERIFY(!run.exists());
    QVERIFY(run.ensureExists(nullptr));
    QVERIFY(fs::is_directory(run.checkpointsDir()));
    RunMetadata m;
    m.name = "slowfast-amp";
    m.status = RunStatus::Running;
    m.device = "cpu (2 threads)";
    m.precision = "bf16";
    m.model = "SlowFast R50";
    m.host = hostName();
    m.pid = getpid();
    m.startedAt = 1.7e9;
    m.versions = {{"libtorch", "1.13.1"}};
    QVERIFY(run.writeMetadata(m, nullptr));
    QVERIFY(run.exists());
    auto back = run.readMetadata();
    QVERIFY(back);
    QCOMPARE(back->toJson(), m.toJson());
    QVERIFY(!RunDirectory::isAbandoned(*back));  // this process is alive
    // No temporary files are left beside run.json.
    for (const auto& e : fs::directory_iterator(run.dir()))
      QVERIFY2(e.path().filename().string().find(".tmp") == std::string::npos, e.path().c_str());
  }

  // DATA.MULTI_LABEL runs say so in run.json ("multi_label": true); a single-label run's run.json
  // has no such field, and a field of another type reads as single-label.
  void multiLabelRunsSaySo() {
    QTemporaryDir tmp;
    RunDirectory run(tmp.path().toStdString());
    RunMetadata m;
    m.name = "charades";
    QVERIFY(!m.toJson().contains("multi_label"));
    m.multiLabel = true;
    QCOMPARE(m.toJson()["multi_label"], nlohmann::json(true));
    QVERIFY(run.writeMetadata(m, nullptr));
    auto back = run.readMetadata();
    QVERIFY(back && back->multiLabel);
    QVERIFY(!back->extra.contains("multi_label"));  // a known field, not kept as unknown
    back->multiLabel = false;
    QVERIFY(!back->toJson().contains("multi_label"));
    std::ofstream(run.metadataPath())
        << R"({"format":"ampstudio-run","status":"finished","multi_label":"yes"})";
    back = run.readMetadata();
    QVERIFY(back && !back->multiLabel);
  }

  void unknownFieldsSurviveARewrite() {
    QTemporaryDir tmp;
    RunDirectory run(tmp.path().toStdString());
    std::ofstream(run.metadataPath()) << R"({"format":"ampstudio-run","format_version":2,"name":"x",
      "status":"finished","gpu_hours":3.5,"versions":{}})";
    auto m = run.readMetadata();
    QVERIFY(m);
    QCOMPARE(m->status, RunStatus::Finished);
    m->name = "renamed";
    QVERIFY(run.writeMetadata(*m, nullptr));
    std::string text;
    QVERIFY(amp::util::readFile(run.metadataPath(), text));
    auto j = nlohmann::json::parse(text);
    QCOMPARE(j["gpu_hours"].get<double>(), 3.5);
    QCOMPARE(j["name"].get<std::string>(), std::string("renamed"));
  }

  // A person's note and tags live in run.json beside the trainer's fields: the trainer's
  // rewrites (its copy of the metadata is older than the note) keep them, and the studio's edit
  // keeps what the trainer wrote.
  void notesAndTagsSurviveAWritersRewrite() {
    QTemporaryDir tmp;
    RunDirectory run(tmp.path().toStdString());
    RunMetadata trainer;
    trainer.name = "x3d-bf16";
    trainer.status = RunStatus::Running;
    QVERIFY(run.writeMetadata(trainer, nullptr));
    std::string err;
    QVERIFY2(run.setNoteAndTags("lr too high?\nsecond line", {"sweep-3", "baseline"}, &err),
             err.c_str());
    trainer.status = RunStatus::Finished;  // the trainer's next rewrite, from its own copy
    trainer.updatedAt = 42;
    QVERIFY(run.writeMetadata(trainer, nullptr));
    auto back = run.readMetadata();
    QVERIFY(back);
    QCOMPARE(back->status, RunStatus::Finished);
    QCOMPARE(back->note, std::string("lr too high?\nsecond line"));
    QCOMPARE(back->tags, (std::vector<std::string>{"sweep-3", "baseline"}));
    // The studio's edit keeps the trainer's fields; clearing stays cleared after a rewrite.
    QVERIFY(run.setNoteAndTags("", {}, &err));
    back = run.readMetadata();
    QVERIFY(back && back->note.empty() && back->tags.empty());
    QCOMPARE(back->updatedAt, 42.0);
    trainer.note = "stale copy";  // a writer's own copy never brings a removed note back
    QVERIFY(run.writeMetadata(trainer, nullptr));
    back = run.readMetadata();
    QVERIFY(back && back->note.empty());
    // An imported run has no run.json to keep them in: said, nothing written.
    QTemporaryDir imported;
    QVERIFY(!RunDirectory(imported.path().toStdString()).setNoteAndTags("x", {}, &err));
    QVERIFY2(err.find("read-only") != std::string::npos, err.c_str());
    QVERIFY(!fs::exists(imported.filePath("run.json").toStdString()));
    // Tags of another type in a hand-edited run.json are dropped, the words kept.
    std::ofstream(run.metadataPath())
        << R"({"format":"ampstudio-run","status":"finished","tags":["a",3,"",{"b":1},"c"],"note":7})";
    back = run.readMetadata();
    QVERIFY(back);
    QCOMPARE(back->tags, (std::vector<std::string>{"a", "c"}));
    QVERIFY(back->note.empty());
  }

  // The trainer rewriting run.json while the studio edits the note, many times over: neither
  // loses the other's last word (both take the folder's lock for their read-modify-write).
  void concurrentRewritesLoseNothing() {
    QTemporaryDir tmp;
    RunDirectory run(tmp.path().toStdString());
    RunMetadata trainer;
    trainer.name = "live";
    QVERIFY(run.writeMetadata(trainer, nullptr));
    constexpr int kRounds = 60;
    std::thread writer([&] {
      for (int i = 1; i <= kRounds; ++i) {
        trainer.updatedAt = i;
        (void)run.writeMetadata(trainer, nullptr);
      }
    });
    int failed = 0;  // counted, not QVERIFY'd: the writer thread must be joined first
    for (int i = 1; i <= kRounds; ++i)
      failed += run.setNoteAndTags("note " + std::to_string(i), {"t" + std::to_string(i)}, nullptr)
                    ? 0
                    : 1;
    writer.join();
    QCOMPARE(failed, 0);
    const auto back = run.readMetadata();
    QVERIFY(back);
    QCOMPARE(back->updatedAt, double(kRounds));
    QCOMPARE(back->note, "note " + std::to_string(kRounds));
    QCOMPARE(back->tags, std::vector<std::string>{"t" + std::to_string(kRounds)});
  }

  void badMetadataIsAClearError() {
    QTemporaryDir tmp;
    RunDirectory run(tmp.path().toStdString());
    std::string err;
    QVERIFY(!run.readMetadata(&err));
    QVERIFY(err.find("run.json") != std::string::npos);
    std::ofstream(run.metadataPath()) << "{\"format\":\"ampstudio-run\",\"status\":\"exploded\"}";
    QVERIFY(!run.readMetadata(&err));
    QVERIFY2(err.find("exploded") != std::string::npos, err.c_str());
    std::ofstream(run.metadataPath()) << "not json";
    QVERIFY(!run.readMetadata(&err));
    QVERIFY2(err.find("not valid JSON") != std::string::npos, err.c_str());
    // Fields of the wrong type or out of range (found by fuzzing: a number as "format" threw).
    std::ofstream(run.metadataPath()) << "{\"format\":1790000000,\"status\":\"finished\"}";
    QVERIFY(!run.readMetadata(&err));
    QVERIFY2(err.find("lacks \"format\"") != std::string::npos, err.c_str());
    std::ofstream(run.metadataPath())
        << "{\"format\":\"ampstudio-run\",\"status\":\"finished\",\"pid\":1e300,"
           "\"world_size\":-5e20,\"name\":[1]}";
    const auto odd = run.readMetadata(&err);
    QVERIFY2(odd, err.c_str());
    QCOMPARE(odd->pid, std::int64_t{0});
    QCOMPARE(odd->worldSize, 1);
    QCOMPARE(odd->name, std::string());
  }

  void abandonedRun() {
    RunMetadata m;
    m.status = RunStatus::Running;
    m.host = hostName();
    const pid_t child = fork();
    if (child == 0) _exit(0);
    int status = 0;
    waitpid(child, &status, 0);
    m.pid = child;  // exited and reaped: no such process now
    QVERIFY(RunDirectory::isAbandoned(m));
    m.host = "another-machine";  // cannot tell for runs of other hosts
    QVERIFY(!RunDirectory::isAbandoned(m));
    m.host = hostName();
    m.status = RunStatus::Finished;
    QVERIFY(!RunDirectory::isAbandoned(m));
  }

  void findRuns() {
    QTemporaryDir tmp;
    const std::string root = tmp.path().toStdString();
    for (const char* name : {"b", "a"}) {
      RunDirectory r(root + "/" + name);
      QVERIFY(r.ensureExists(nullptr));
      RunMetadata m;
      m.name = name;
      QVERIFY(r.writeMetadata(m, nullptr));
    }
    fs::create_directories(root + "/not-a-run");
    const auto runs = RunDirectory::findRuns(root);
    QCOMPARE(runs.size(), size_t(2));
    QVERIFY(runs[0] < runs[1]);
    QVERIFY(RunDirectory::findRuns(root + "/missing").empty());
  }

  void appendLogKeepsLines() {
    QTemporaryDir tmp;
    RunDirectory run(tmp.path().toStdString());
    QVERIFY(run.appendLog("first", nullptr));
    QVERIFY(run.appendLog("second\n", nullptr));
    std::string text;
    QVERIFY(amp::util::readFile(run.logPath(), text));
    QCOMPARE(std::count(text.begin(), text.end(), '\n'), 2L);
    QVERIFY(text.find("] first\n") != std::string::npos);
  }

  void oneLockHolderPerRunDirectory() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    amp::runlog::RunLock first, second;
    std::string error;
    QVERIFY2(first.acquire(dir, &error), error.c_str());
    QVERIFY(!second.acquire(
        dir, &error));  // another open file description: refused, as another process is
    const std::string expected = "is being written by another trainer (pid " +
                                 std::to_string(getpid()) + " on host " + amp::runlog::hostName() +
                                 ", since ";
    QVERIFY2(error.find(expected) != std::string::npos, error.c_str());
    QVERIFY(!second.held());
    first.release();
    QVERIFY2(second.acquire(dir, &error), error.c_str());
  }

  void aDeadHoldersLockIsFree() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    const pid_t child = fork();
    if (child == 0) {  // takes the lock and dies without releasing it
      amp::runlog::RunLock lock;
      _exit(lock.acquire(dir, nullptr) ? 0 : 1);
    }
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QCOMPARE(WEXITSTATUS(status), 0);
    std::string name;
    QVERIFY(amp::util::readFile(dir + "/run.lock", name));
    QVERIFY(name.find("pid " + std::to_string(child)) !=
            std::string::npos);  // its name is still there...
    amp::runlog::RunLock lock;
    std::string error;
    QVERIFY2(lock.acquire(dir, &error), error.c_str());  // ...but the kernel freed the lock
  }

  void aLockThatCannotBeCreatedSaysWhy() {
    // /proc refuses new files even to root (a read-only run folder behaves the same way).
    amp::runlog::RunLock lock;
    std::string error;
    QVERIFY(!lock.acquire("/proc/no-such-run", &error));
    QVERIFY2(
        error.find("cannot open the lock file '/proc/no-such-run/run.lock'") != std::string::npos,
        error.c_str());
  }
  // run.json from a stranger, read at every refresh of the run list on the GUI thread: each is
  // refused by name, none crashes (deep nesting overflowed the stack in the copy of `extra`) or
  // hangs (a link to /dev/zero was read forever, a FIFO waited for a writer).
  void hostileRunJsonIsRefusedByName() {
    QTemporaryDir tmp;
    const std::string root = tmp.path().toStdString();
    const std::string good = "{\"format\":\"ampstudio-run\",\"status\":\"finished\",\"name\":\"n\"";
    auto refused = [&](const std::string& name, const std::string& part) {
      std::string err;
      const RunDirectory run(root + "/" + name);
      if (run.readMetadata(&err)) return std::string("accepted");
      if (err.find(run.metadataPath()) == std::string::npos || err.find(part) == std::string::npos)
        return err;
      return std::string();
    };
    auto make = [&](const std::string& name) {
      fs::create_directories(root + "/" + name);
      return root + "/" + name + "/run.json";
    };
    std::ofstream(make("deep")) << good << ",\"unknown\":" << std::string(100000, '[')
                                << std::string(100000, ']') << "}";
    QCOMPARE(refused("deep", "nested more than 64 levels deep"), std::string());
    fs::create_symlink("/dev/zero", make("zero"));
    QCOMPARE(refused("zero", "not a regular file"), std::string());
    QCOMPARE(::mkfifo(make("fifo").c_str(), 0600), 0);
    QCOMPARE(refused("fifo", "not a regular file"), std::string());
    std::ofstream(make("big")) << good << ",\"pad\":\""
                               << std::string(RunDirectory::kMaxMetadataBytes, ' ') << "\"}";
    QCOMPARE(refused("big", "larger than the 1048576 bytes"), std::string());
    // Nesting up to the limit is still a run.json (ours nest 3 deep).
    std::ofstream(make("nested")) << good << ",\"unknown\":" << std::string(60, '[')
                                  << std::string(60, ']') << "}";
    std::string err;
    const auto nested = RunDirectory(root + "/nested").readMetadata(&err);
    QVERIFY2(nested, err.c_str());
    QVERIFY(nested->extra.contains("unknown"));
    // fromJson refuses a deep value whoever parsed it.
    const auto deep = nlohmann::json::parse(std::string(100, '[') + std::string(100, ']'));
    QVERIFY(!RunMetadata::fromJson(
        nlohmann::json{{"format", "ampstudio-run"}, {"status", "finished"}, {"x", deep}}, &err));
    QVERIFY2(err.find("nests more than 64") != std::string::npos, err.c_str());
  }
};

QTEST_APPLESS_MAIN(TestRunDirectory)
#include "tst_rundirectory.moc"
