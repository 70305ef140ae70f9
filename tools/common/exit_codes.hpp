// One exit-code convention for every installed tool (README "Exit codes"), so scripts and CI
// jobs can tell "the check failed" from "the command line was wrong" from "the input was bad".
#pragma once

namespace gjk::tools {

enum ExitCode : int {
  kExitOk = 0,            ///< done; any check asked for passed
  kExitCheckFailed = 1,   ///< ran to the end, but the check failed (collision, margin, no plan)
  kExitUsage = 2,         ///< bad command line: unknown option, bad option value, missing argument
  kExitInputError = 3,    ///< an input file or input line is unreadable or invalid
  kExitOutputError = 4,   ///< an output could not be written (or a helper program failed)
  kExitInternalError = 5  ///< a bug: an unexpected exception; please report it
};

}  // namespace gjk::tools
