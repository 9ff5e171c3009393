#pragma once
/// @file `heptane bench spmv | solve`: measured against the machine's own limits (the
/// device's STREAM triad measured in the same run); a table on stdout and a YAML report.
#include <iosfwd>
#include <string>
#include <vector>

namespace heptane::app {

struct BenchArgs {
    std::vector<int> grids{32, 64, 128};            ///< cubic grids g^3
    std::vector<int> ks{1, 2, 3, 4, 6, 8, 12, 16};  ///< block sizes
    int repeats = 20;                               ///< timed runs per kernel (median)
    int wells = 16;
    int iterations = 100;       ///< bench solve: fixed iteration count
    double max_host_gb = 48.0;  ///< skip systems larger than this
    /// bench solve: the GPU solvers timed (in_kernel, multi_kernel, library)
    std::vector<std::string> solvers{"in_kernel", "multi_kernel", "library"};
    /// bench solve: the Krylov methods timed (bicgstab, qmr)
    std::vector<std::string> methods{"bicgstab", "qmr"};
    /// bench ksparse: the MatrixMarket file, its block sizes ("a..b" ranges expanded) and the
    /// seed of the promoted blocks' values
    std::string matrix;
    std::vector<int> block_sizes;
    unsigned long long seed = 1;
    bool tune = false;         ///< bench ksparse: tune the kernels not yet cached
    bool retune = false;       ///< bench ksparse: tune again even when cached
    std::string tuning_cache;  ///< bench ksparse: the cache file ("" = the default path)
    bool cpu = false;          ///< also time the CPU reference
    std::string report;        ///< YAML report path
    std::string command;       ///< the command line, for the report
};

int cmd_bench_spmv(const BenchArgs& args, std::ostream& out);
int cmd_bench_solve(const BenchArgs& args, std::ostream& out);
int cmd_bench_ksparse(const BenchArgs& args, std::ostream& out);

/// "1..16,24,32" -> 1, 2, ..., 16, 24, 32; each in [1, 128] (InputError at --block-sizes).
std::vector<int> parse_block_sizes(const std::vector<std::string>& items);

}  // namespace heptane::app
