// Where a process stands in a data-parallel job: the launcher's, torchrun's and Slurm's
// environments, and the PySlowFast batch semantics of the config.
#include <QtTest>

#include <map>

#include "config/BatchLayout.h"
#include "configfile/ConfigLoader.h"
#include "configfile/Validator.h"
#include "dist/DistEnv.h"

using namespace amp;

namespace {

dist::EnvLookup envOf(const std::map<std::string, std::string>& vars) {
  return [vars](const char* k) -> const char* {
    auto it = vars.find(k);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

config::Config load(const std::vector<std::string>& overrides) {
  auto r = config::ConfigLoader().loadFile(
      std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/SLOWFAST_8x8_R50.yaml", overrides);
  if (!r.ok()) qFatal("%s", config::formatDiagnostics(r.diagnostics).c_str());
  return r.config;
}

}  // namespace

class TestDistEnv : public QObject {
  Q_OBJECT
 private slots:
  void noVariablesIsOneProcess() {
    std::string error;
    QVERIFY(!dist::distEnvFromEnvironment(envOf({}), &error));
    QVERIFY(error.empty());
  }

  void torchrun() {
    std::string error;
    const auto d = dist::distEnvFromEnvironment(envOf({{"RANK", "5"},
                                                       {"WORLD_SIZE", "8"},
                                                       {"LOCAL_RANK", "1"},
                                                       {"LOCAL_WORLD_SIZE", "4"},
                                                       {"MASTER_ADDR", "node0"},
                                                       {"MASTER_PORT", "29400"}}),
                                                &error);
    QVERIFY2(d, error.c_str());
    QCOMPARE(d->rank, 5);
    QCOMPARE(d->world_size, 8);
    QCOMPARE(d->local_rank, 1);
    QCOMPARE(d->local_world_size, 4);
    QCOMPARE(d->init_method, std::string("tcp://node0:29400"));
    QCOMPARE(d->origin, std::string("torchrun"));
    QVERIFY(d->distributed());
  }

  void torchrunAgentStore() {
    // torchrun's agent serves the TCPStore on MASTER_PORT and tells its workers so: every rank is
    // a client, its keys under the restart's prefix (PyTorch's _create_c10d_store).
    std::string error;
    auto vars = std::map<std::string, std::string>{{"RANK", "0"},
                                                   {"WORLD_SIZE", "2"},
                                                   {"LOCAL_RANK", "0"},
                                                   {"LOCAL_WORLD_SIZE", "2"},
                                                   {"MASTER_ADDR", "127.0.0.1"},
                                                   {"MASTER_PORT", "29400"},
                                                   {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                                                   {"TORCHELASTIC_RESTART_COUNT", "3"}};
    auto d = dist::distEnvFromEnvironment(envOf(vars), &error);
    QVERIFY2(d, error.c_str());
    QCOMPARE(d->agent_store_prefix, std::string("/worker/attempt_3"));
    QVERIFY2(d->describe().find("torchrun's agent store") != std::string::npos,
             d->describe().c_str());
    vars["TORCHELASTIC_USE_AGENT_STORE"] =
        "False";  // e.g. a c10d rendezvous backend without a shared store
    d = dist::distEnvFromEnvironment(envOf(vars), &error);
    QVERIFY2(d, error.c_str());
    QVERIFY(d->agent_store_prefix.empty());
    vars["TORCHELASTIC_USE_AGENT_STORE"] = "True";
    vars["TORCHELASTIC_RESTART_COUNT"] = "one";
    QVERIFY(!dist::distEnvFromEnvironment(envOf(vars), &error));
    QVERIFY2(error.find("TORCHELASTIC_RESTART_COUNT='one'") != std::string::npos, error.c_str());
  }

  void launcherWorker() {
    std::string error;
    const auto d = dist::distEnvFromEnvironment(envOf({{"RANK", "1"},
                                                       {"WORLD_SIZE", "2"},
                                                       {"LOCAL_RANK", "1"},
                                                       {"LOCAL_WORLD_SIZE", "2"},
                                                       {"AMPSTUDIO_INIT_METHOD", "file:///tmp/x"}}),
                                                &error);
    QVERIFY2(d, error.c_str());
    QCOMPARE(d->origin, std::string("launcher"));
    QCOMPARE(d->init_method, std::string("file:///tmp/x"));
  }

  void slurm() {
    std::string error;
    const auto d = dist::distEnvFromEnvironment(envOf({{"SLURM_PROCID", "6"},
                                                       {"SLURM_NTASKS", "8"},
                                                       {"SLURM_LOCALID", "2"},
                                                       {"SLURM_NTASKS_PER_NODE", "4(x2)"},
                                                       {"SLURM_STEP_NODELIST", "gpu[03-04,09]"}}),
                                                &error);
    QVERIFY2(d, error.c_str());
    QCOMPARE(d->rank, 6);
    QCOMPARE(d->world_size, 8);
    QCOMPARE(d->local_rank, 2);
    QCOMPARE(d->local_world_size, 4);
    QCOMPARE(d->init_method, std::string("tcp://gpu03:29500"));
    QCOMPARE(d->origin, std::string("slurm"));
  }

  void slurmWithoutTasksPerNodeOption() {
    // srun -N 2 -n 6 without --ntasks-per-node: no SLURM_NTASKS_PER_NODE, but SLURM_TASKS_PER_NODE
    // (or the step's) says "3(x2)"; this task is on node 1.
    std::string error;
    auto vars = std::map<std::string, std::string>{{"SLURM_PROCID", "4"},
                                                   {"SLURM_NTASKS", "6"},
                                                   {"SLURM_LOCALID", "1"},
                                                   {"SLURM_NODEID", "1"},
                                                   {"SLURM_TASKS_PER_NODE", "3(x2)"},
                                                   {"SLURM_JOB_NODELIST", "n[1-2]"}};
    auto d = dist::distEnvFromEnvironment(envOf(vars), &error);
    QVERIFY2(d, error.c_str());
    QCOMPARE(d->local_world_size, 3);
    vars["SLURM_STEP_TASKS_PER_NODE"] = "4,2";  // the step's layout wins over the job's
    d = dist::distEnvFromEnvironment(envOf(vars), &error);
    QVERIFY2(d, error.c_str());
    QCOMPARE(d->local_world_size, 2);
    QCOMPARE(dist::slurmTasksOnNode("2(x3),1", 0), 2);
    QCOMPARE(dist::slurmTasksOnNode("2(x3),1", 2), 2);
    QCOMPARE(dist::slurmTasksOnNode("2(x3),1", 3), 1);
    QCOMPARE(dist::slurmTasksOnNode("2(x3),1", 4), 0);  // no such node
    QCOMPARE(dist::slurmTasksOnNode("8", 0), 8);
    QCOMPARE(dist::slurmTasksOnNode("2(x", 0), 0);
    QCOMPARE(dist::slurmTasksOnNode("", 0), 0);
    QCOMPARE(dist::slurmTasksOnNode("x", 0), 0);
  }

  void cudaDeviceOfLocalRank() {
    QCOMPARE(dist::cudaDeviceOfLocalRank(3, 8), 3);
    QCOMPARE(dist::cudaDeviceOfLocalRank(3, 1), 0);  // one GPU bound to each task
    QCOMPARE(dist::cudaDeviceOfLocalRank(3, 2),
             3);  // too few: trainingDevice refuses, naming NUM_GPUS
  }

  void slurmHosts() {
    QCOMPARE(dist::firstSlurmHost("gpu[03-05,09],cpu1"), std::string("gpu03"));
    QCOMPARE(dist::firstSlurmHost("a,b"), std::string("a"));
    QCOMPARE(dist::firstSlurmHost("node7"), std::string("node7"));
    QCOMPARE(dist::firstSlurmHost("rack1-n[1,4]"), std::string("rack1-n1"));
  }

  void malformedVariablesAreNamed() {
    std::string error;
    QVERIFY(!dist::distEnvFromEnvironment(
        envOf({{"RANK", "x"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}), &error));
    QVERIFY2(error.find("RANK='x'") != std::string::npos, error.c_str());
    error.clear();
    QVERIFY(!dist::distEnvFromEnvironment(
        envOf({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}), &error));
    QVERIFY2(error.find("not below the world size 2") != std::string::npos, error.c_str());
    error.clear();
    QVERIFY(!dist::distEnvFromEnvironment(envOf({{"RANK", "0"}, {"WORLD_SIZE", "2"}}), &error));
    QVERIFY2(error.find("MASTER_ADDR") != std::string::npos, error.c_str());
  }

  void tcpInitMethod() {
    std::string host, error;
    int port = 0;
    QVERIFY(dist::parseTcpInitMethod("tcp://localhost:9999", host, port, &error));
    QCOMPARE(host, std::string("localhost"));
    QCOMPARE(port, 9999);
    QVERIFY(dist::parseTcpInitMethod("tcp://[::1]:1234", host, port, &error));
    QCOMPARE(host, std::string("::1"));
    QVERIFY(!dist::parseTcpInitMethod("tcp://host", host, port, &error));
    QVERIFY(!dist::parseTcpInitMethod("tcp://host:70000", host, port, &error));
    QVERIFY(!dist::parseTcpInitMethod("udp://host:1", host, port, &error));
  }

  void batchIsPerMachineAsInPySlowFast() {
    // 64 clips per machine over its 8 GPUs: 8 per process whatever the number of machines.
    const auto one = load({"TRAIN.BATCH_SIZE", "64", "NUM_GPUS", "8"});
    QCOMPARE(config::perProcessBatch(one, false), 8);
    QCOMPARE(config::configuredWorldSize(one), 8);
    const auto two = load({"TRAIN.BATCH_SIZE", "64", "NUM_GPUS", "8", "NUM_SHARDS", "2"});
    QCOMPARE(config::perProcessBatch(two, false), 8);
    QCOMPARE(config::configuredWorldSize(two), 16);
    const auto cpu = load({"TRAIN.BATCH_SIZE", "8", "NUM_GPUS", "0", "DIST.CPU_PROCESSES", "2"});
    QCOMPARE(config::processesPerShard(cpu), 2);
    QCOMPARE(config::perProcessBatch(cpu, false), 4);
  }

  void divisibilityRuleIsPerMachine() {
    // PySlowFast runs 8 GPUs x 3 machines with 64 clips per machine (64 % 8 == 0), though 64 is
    // not divisible by 24; it refuses 60 clips over 8 GPUs.
    auto ok = config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/SLOWFAST_8x8_R50.yaml",
        {"TRAIN.BATCH_SIZE", "64", "NUM_GPUS", "8", "NUM_SHARDS", "3"});
    QVERIFY2(ok.ok(), config::formatDiagnostics(ok.diagnostics).c_str());
    auto bad = config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/SLOWFAST_8x8_R50.yaml",
        {"TRAIN.BATCH_SIZE", "60", "NUM_GPUS", "8"});
    QVERIFY(!bad.ok());
    const auto text = config::formatDiagnostics(bad.diagnostics);
    QVERIFY2(text.find("not divisible by NUM_GPUS 8") != std::string::npos, text.c_str());
    auto cpu = config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/SLOWFAST_8x8_R50.yaml",
        {"TRAIN.BATCH_SIZE", "9", "NUM_GPUS", "0", "DIST.CPU_PROCESSES", "2"});
    QVERIFY(!cpu.ok());
    QVERIFY(config::formatDiagnostics(cpu.diagnostics).find("DIST.CPU_PROCESSES 2") !=
            std::string::npos);
  }

  void syncBatchNormGroupsMustSplitAMachine() {
    auto load2 = [](std::vector<std::string> ov) {
      return config::ConfigLoader().loadFile(
          std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/SLOWFAST_8x8_R50.yaml", ov);
    };
    auto bad =
        load2({"NUM_GPUS", "8", "BN.NORM_TYPE", "sync_batchnorm", "BN.NUM_SYNC_DEVICES", "3"});
    QVERIFY(!bad.ok());
    QCOMPARE(bad.diagnostics.front().key, std::string("BN.NUM_SYNC_DEVICES"));
    QVERIFY(load2({"NUM_GPUS", "8", "BN.NORM_TYPE", "sync_batchnorm", "BN.NUM_SYNC_DEVICES", "4"})
                .ok());
    QVERIFY(load2({"NUM_GPUS", "8", "BN.NORM_TYPE", "sync_batchnorm", "BN.NUM_SYNC_DEVICES", "3",
                   "BN.GLOBAL_SYNC", "True"})
                .ok());
    // sub_batchnorm splits each device's clips: 64 per device into 4 groups, not 3.
    auto sub = load2({"BN.NORM_TYPE", "sub_batchnorm", "BN.NUM_SPLITS", "4", "NUM_GPUS", "1"});
    QVERIFY2(sub.ok(), config::formatDiagnostics(sub.diagnostics).c_str());
    auto uneven = load2({"BN.NORM_TYPE", "sub_batchnorm", "BN.NUM_SPLITS", "3", "NUM_GPUS", "1"});
    QVERIFY(!uneven.ok());
    QVERIFY2(
        config::formatDiagnostics(uneven.diagnostics).find("BN.NUM_SPLITS") != std::string::npos,
        config::formatDiagnostics(uneven.diagnostics).c_str());
  }

  void environmentMustFitTheConfig() {
    const auto c = load({"TRAIN.BATCH_SIZE", "16", "NUM_GPUS", "4", "NUM_SHARDS", "2"});
    dist::DistEnv d;
    d.world_size = 8;
    d.local_world_size = 4;
    d.rank = 5;
    d.local_rank = 1;
    QVERIFY(!dist::checkAgainstConfig(d, c));
    d.world_size = 4;
    const auto why = dist::checkAgainstConfig(d, c).value_or("");
    QVERIFY2(why.find("NUM_GPUS 4 x NUM_SHARDS 2 = 8") != std::string::npos, why.c_str());
    d.world_size = 8;
    d.local_world_size = 2;
    QVERIFY(dist::checkAgainstConfig(d, c).value_or("").find("LOCAL_WORLD_SIZE") !=
            std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestDistEnv)
#include "tst_distenv.moc"
