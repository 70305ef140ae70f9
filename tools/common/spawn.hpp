// Child processes without a shell: the program and its arguments go to posix_spawnp as a
// vector, so no path or option a user passes can be read as shell syntax (issue 15 item 1).
#pragma once

#include <string>
#include <vector>

namespace gjk::tools {

/// What became of a child process.
struct ChildOutcome {
  bool started = false;  ///< false: the program could not be started (see `error`)
  int exit_status = -1;  ///< the child's exit status when it exited normally, else -1
  int signal = 0;        ///< the signal that ended the child, 0 if it exited
  std::string error;     ///< why it did not start, when !started
  /// True when the child started and exited with status 0.
  bool ok() const { return started && signal == 0 && exit_status == 0; }
  /// "exited with status 3", "was killed by signal 9 (Killed)" or the start error, for messages.
  std::string describe() const;
};

/// Runs argv[0] (looked up on PATH when it has no slash) with the arguments argv[1..], inheriting
/// stdin, stdout and stderr, and waits for it. Never throws for a child that fails; throws
/// std::invalid_argument for an empty argv.
ChildOutcome run_child(const std::vector<std::string>& argv);

/// The command line for messages: each argument quoted when it holds anything but safe
/// characters, so the user can see (and copy) exactly what ran.
std::string quote_command(const std::vector<std::string>& argv);

}  // namespace gjk::tools
