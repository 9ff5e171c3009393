#pragma once
/// @file Runs the heptane CLI in-process for tests of app/ (link heptane_app_lib).
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.hpp"

namespace heptane::test {

struct CliResult {
    int code;
    std::string out, err;
};

/// heptane ARGS... with stdout and stderr captured; `terminal` pretends stderr is a terminal.
inline CliResult run_heptane(std::vector<std::string> args, bool terminal = false) {
    args.insert(args.begin(), "heptane");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    const int code = app::run_cli(static_cast<int>(argv.size()), argv.data(), out, err, terminal);
    return {code, out.str(), err.str()};
}

}  // namespace heptane::test
