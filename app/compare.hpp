#pragma once
/// @file `heptane compare A.h5 B.h5`: every numeric dataset under /solution and /timesteps
/// and the solver status. Entries agree when |a - b| <= atol + rtol |b| (NaN only equals NaN).
#include <iosfwd>
#include <string>

namespace heptane::app {

struct CompareOptions {
    double rtol = 1.0e-8;
    double atol = 0.0;
};

/// Prints a table of the worst differences to `out`. Returns 0 when everything agrees, 1
/// otherwise. Throws InputError (exit 2) for an unreadable file, a dataset present in only
/// one file, or different shapes.
int compare_files(const std::string& a, const std::string& b, const CompareOptions& options,
                  std::ostream& out);

}  // namespace heptane::app
