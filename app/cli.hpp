#pragma once
/// @file The heptane command line (DESIGN section 6). Exit codes: 0 success; 1 solver did
/// not converge / compare found a difference; 2 bad input (deck, file, CLI) with a message
/// naming the file, line and key; 3 runtime or device error.
#include <iosfwd>

namespace heptane::app {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitRuntime = 3;

/// Runs the CLI with the given arguments; never throws and never calls exit().
/// `terminal`: stderr is a terminal, so long runs may show progress there.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
            bool terminal = false);

}  // namespace heptane::app
