#include "Launcher.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <map>
#include <thread>

extern char** environ;

namespace amp::cli {
namespace {

volatile std::sig_atomic_t gSignal = 0;
volatile std::sig_atomic_t gForward = 0;  // SIGUSR1 / SIGUSR2 (pause / resume) to pass on

std::string describeExit(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "ended (status " + std::to_string(status) + ")";
}

// The launcher's environment with `set` replacing or adding variables.
std::vector<std::string> workerEnvironment(const std::map<std::string, std::string>& set) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    if (!set.count(key)) env.push_back(kv);
  }
  for (const auto& [k, v] : set) env.push_back(k + "=" + v);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

}  // namespace

int launchWorkers(const LaunchPlan& plan) {
  const int world = plan.processes * plan.num_shards;
  // Each worker gets an equal share of the cores unless the user chose (as torchrun's
  // OMP_NUM_THREADS).
  std::string threads;
  if (!std::getenv("OMP_NUM_THREADS")) {
    const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
    threads = std::to_string(std::max(1L, cores / plan.processes));
  }
  if (!plan.quiet)
    std::cout << "launching " << plan.processes << " worker process"
              << (plan.processes > 1 ? "es" : "") << " (ranks " << plan.shard_id * plan.processes
              << "-" << plan.shard_id * plan.processes + plan.processes - 1 << " of " << world
              << ", machine " << plan.shard_id << " of " << plan.num_shards << ", "
              << plan.init_method
              << (threads.empty() ? ""
                                  : ", " + threads +
                                        (threads == "1" ? " CPU thread each" : " CPU threads each"))
              << ")" << std::endl;

  std::string exe = "/proc/self/exe";
  std::map<pid_t, int> rankOf;  // running workers
  std::map<int, pid_t> pidOf;
  for (int local = 0; local < plan.processes; ++local) {
    const int rank = plan.shard_id * plan.processes + local;
    std::map<std::string, std::string> set = {{"RANK", std::to_string(rank)},
                                              {"WORLD_SIZE", std::to_string(world)},
                                              {"LOCAL_RANK", std::to_string(local)},
                                              {"LOCAL_WORLD_SIZE", std::to_string(plan.processes)},
                                              {"AMPSTUDIO_INIT_METHOD", plan.init_method}};
    if (!threads.empty()) set["OMP_NUM_THREADS"] = threads;
    auto env = workerEnvironment(set);
    std::vector<std::string> args = {"ampstudio-cli"};
    args.insert(args.end(), plan.worker_args.begin(), plan.worker_args.end());
    auto argv = pointers(args);
    auto envp = pointers(env);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), envp.data());
    if (rc != 0) {
      std::cerr << "cannot start worker rank " << rank << ": " << std::strerror(rc) << "\n";
      for (auto& [p, r] : rankOf) kill(p, SIGKILL);
      for (auto& [p, r] : rankOf) waitpid(p, nullptr, 0);
      return 1;
    }
    rankOf[pid] = rank;
    pidOf[rank] = pid;
  }

  struct sigaction sa {};
  sa.sa_handler = [](int sig) { gSignal = sig; };
  sigemptyset(&sa.sa_mask);
  struct sigaction oldInt {
  }, oldTerm{}, oldUsr1{}, oldUsr2{};
  sigaction(SIGINT, &sa, &oldInt);
  sigaction(SIGTERM, &sa, &oldTerm);
  struct sigaction fwd {};
  fwd.sa_handler = [](int sig) { gForward = sig; };
  sigemptyset(&fwd.sa_mask);
  sigaction(SIGUSR1, &fwd, &oldUsr1);
  sigaction(SIGUSR2, &fwd, &oldUsr2);

  using Clock = std::chrono::steady_clock;
  int exitCode = 0;
  std::string firstFailure;
  Clock::time_point failedAt{};
  bool terminated = false, killed = false;
  while (!rankOf.empty()) {
    if (gSignal) {  // Ctrl-C or SIGTERM: every worker stops after its iteration (rank 0 writes a
                    // checkpoint)
      for (auto& [p, r] : rankOf) kill(p, SIGINT);
      gSignal = 0;
    }
    if (gForward) {
      for (auto& [p, r] : rankOf) kill(p, gForward);
      gForward = 0;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0 && rankOf.count(pid)) {
      const int rank = rankOf[pid];
      rankOf.erase(pid);
      const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      const bool stopped = WIFEXITED(status) && WEXITSTATUS(status) == 130;
      if (!ok && !stopped && firstFailure.empty()) {
        firstFailure = "rank " + std::to_string(rank) + " (pid " + std::to_string(pid) + ") " +
                       describeExit(status);
        failedAt = Clock::now();
        std::cerr << "launcher: " << firstFailure << "; stopping the other ranks" << std::endl;
        exitCode = 1;
      } else if (!ok && !stopped && !killed) {
        std::cerr << "launcher: rank " << rank << " (pid " << pid << ") " << describeExit(status)
                  << std::endl;
      }
      if (stopped && exitCode == 0) exitCode = 130;
      continue;
    }
    if (!firstFailure.empty()) {
      const double waited = std::chrono::duration<double>(Clock::now() - failedAt).count();
      if (!terminated && waited > plan.grace_s) {
        for (auto& [p, r] : rankOf) {
          std::cerr << "launcher: rank " << r << " (pid " << p << ") still running " << plan.grace_s
                    << " s after " << firstFailure << ": terminating it" << std::endl;
          kill(p, SIGTERM);
        }
        terminated = true;
      } else if (terminated && !killed && waited > plan.grace_s + 5) {
        for (auto& [p, r] : rankOf) kill(p, SIGKILL);
        killed = true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  sigaction(SIGINT, &oldInt, nullptr);
  sigaction(SIGTERM, &oldTerm, nullptr);
  sigaction(SIGUSR1, &oldUsr1, nullptr);
  sigaction(SIGUSR2, &oldUsr2, nullptr);
  if (!firstFailure.empty()) std::cerr << "launcher: the run failed: " << firstFailure << std::endl;
  return exitCode;
}

}  // namespace amp::cli
