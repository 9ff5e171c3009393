#pragma once
/// @file The host side of KSPARSE autotuning (seed 001, section 5.7 and Table I): the
/// brute-force search space of each kernel, the per-device cache file of the winners, and the
/// driver that times every candidate once and reuses the cached winner afterwards. CUDA-free:
/// the GPU side only supplies the timing function (gpu/), so all of this is tested on the CPU.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/base/errors.hpp"
#include "core/ksparse/ksparse_params.hpp"

namespace heptane {

/// Hardware limits the search space respects (every NVIDIA GPU since Kepler).
constexpr int kKsparseMaxThreadsPerBlock = 1024;
constexpr int kKsparseWarpSize = 32;

/// The brute-force search space of one kernel for block size bs (seed 001, Table I), within
/// 1,024 threads per thread block:
/// - K1 (bs 1-5): N_ta in {1,2,4,8,16,32} (32 N_ta threads), N_brows_ta in {1,2,4,8}.
/// - K2 (bs 2-128): N_tg in {1,2,3,4,6,8,12,16,24,32} with N_tg <= bs (Table I) and
///   bs N_tg <= 1024; N_ta in {1,2,4,8,16} with 32 <= bs N_tg N_ta <= 1024 (at least a warp
///   per thread block); N_brows_ta in {1,2,4}.
/// - K3 (bs >= 2, the automatic choice from 45): nb in {16,32,64,128} with nb <= max(16, bs);
///   N_tg in {1,2,4,8,16}; ept in {1,2,4,8}; N_tg ept <= nb (Table I) and nb N_tg <= 1024.
/// Parameters a kernel does not use are 0. Every candidate has `kernel` set and balance off:
/// the plain kernels are tuned, balancing (section 5.5) is decided separately.
/// @param[in] kernel  k1, k2 or k3
/// @param[in] bs  block size
/// @return the candidates in a fixed order; EMPTY (no exception) when the kernel does not
///         apply to bs or is `automatic` (not a kernel: resolve it with ksparse_kernel_for
///         first), so callers can also use this to ask whether a kernel takes a block size.
std::vector<KsparseParams> ksparse_candidates(KsparseKernel kernel, int bs);

/// The winner of one brute-force search.
struct TunedEntry {
    KsparseParams params;      ///< the fastest candidate (kernel inside, balance off)
    int bs = 0;                ///< block size it was tuned for
    double seconds = 0;        ///< its time in seconds, as time_candidate returned it (a median)
    int candidates_tried = 0;  ///< candidates that were timed (the skipped ones not counted)
};

/// A malformed tuning cache file. what() is "FILE:LINE: KEY: detail" (or "FILE:LINE: detail"
/// when no key is to blame), like MatrixMarketError; key() names the offending key.
class TuningCacheError : public InputError {
  public:
    /// @param[in] file  the cache file
    /// @param[in] line  1-based line number, 0 if the problem is not on one line
    /// @param[in] key  the key at fault ("N_ta", "device", ...), or empty
    /// @param[in] detail  what is wrong, without the location
    TuningCacheError(const std::string& file, std::int64_t line, const std::string& key,
                     const std::string& detail);
    const std::string& file() const { return file_; }
    std::int64_t line() const { return line_; }

  private:
    std::string file_;
    std::int64_t line_;
};

/// The tuned winners, keyed by (device name, kernel, block size), backed by a text file.
///
/// File format: UTF-8 text, one entry per line; blank lines and lines starting with '#' are
/// ignored (save() writes a header comment). An entry is the kernel name, then blank-separated
/// KEY=VALUE pairs, all required, in any order, with `device` last because it takes the rest
/// of the line (device names contain spaces):
///
///     k2 bs=16 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 ept=0 seconds=1.2e-05 tried=99 device=NVIDIA H100
///     80GB HBM3
///
/// seconds is written in the shortest form that reads back to the same double. save() writes
/// the entries sorted by device, kernel and bs, so the same cache always gives the same bytes.
class TuningCache {
  public:
    /// Reads `path` if it exists; a missing file is an empty cache.
    /// @throws TuningCacheError  on a malformed line ("PATH:LINE: KEY: ...") or a duplicate entry
    /// @throws Error  when the file exists but cannot be read
    explicit TuningCache(std::string path);

    /// Where the cache lives by default: $HEPTANE_TUNING_CACHE if set and non-empty, else
    /// $XDG_CACHE_HOME/heptane/ksparse_tuning.txt (if XDG_CACHE_HOME is an absolute path, as the
    /// XDG base directory specification requires), else $HOME/.cache/heptane/ksparse_tuning.txt,
    /// else ./heptane_ksparse_tuning.txt.
    static std::string default_path();

    const std::string& path() const { return path_; }
    std::size_t size() const { return entries_.size(); }

    /// The entry for (device, kernel, bs), if any (never one for kernel `automatic`).
    std::optional<TunedEntry> find(const std::string& device, KsparseKernel kernel, int bs) const;

    /// Adds or replaces the entry for (device, entry.params.kernel, entry.bs), in memory only.
    /// @throws Error  if the entry could not be written and read back: device empty or with a
    ///                line break, kernel automatic, bs < 1, a negative parameter, seconds not
    ///                finite or negative, candidates_tried < 0, or balance not off (the file
    ///                holds launch shapes of the plain kernels only)
    void put(const std::string& device, const TunedEntry& entry);

    /// Writes the whole cache atomically: PATH.tmp.<pid> in the same folder, then std::rename
    /// over PATH, so readers see the old file or the new one, never a partial one. Creates the
    /// parent folder. Two processes saving at once: the last rename wins (entries that only
    /// the other process had are lost and get tuned again later).
    /// @throws Error  if the folder, the temporary file or the rename fails
    void save() const;

  private:
    using Key = std::tuple<std::string, int, int>;  // device, kernel, bs
    std::string path_;
    std::map<Key, TunedEntry> entries_;
};

/// Brute-force tuning with a cache (seed 001, section 5.7). If the cache has an entry for
/// (device, kernel, bs) and !retune, returns it without calling time_candidate. Otherwise calls
/// time_candidate once for every ksparse_candidates(kernel, bs), in order; a candidate whose
/// call throws NotSupported or returns a non-finite or negative time is skipped. The fastest
/// (the first one on a tie) is put() into the cache, the cache is save()d, and it is returned.
/// @param[in] device  the device name (cudaDeviceProp::name); entries of other devices are
///                    never used
/// @param[in] kernel  k1, k2 or k3
/// @param[in] bs  block size
/// @param[in] time_candidate  runs the kernel with the given parameters and returns its time
///                            in seconds (a median of repeats); other exceptions propagate
/// @param[in,out] cache  looked up, and updated and saved after tuning
/// @param[in] retune  time the candidates even when an entry is cached
/// @param[out] from_cache  if not null: whether the result came from the cache
/// @throws NotSupported  if there are no candidates (kernel automatic, or bs outside the
///                       kernel's range) or every candidate was skipped
/// @throws Error  from cache.save()
TunedEntry tune_ksparse(const std::string& device, KsparseKernel kernel, int bs,
                        const std::function<double(const KsparseParams&)>& time_candidate,
                        TuningCache& cache, bool retune = false, bool* from_cache = nullptr);

/// The cached parameters for (device, kernel, bs), or a default-constructed KsparseParams with
/// `kernel` set (every parameter 0 = the kernel's default) when nothing is cached. Balance and
/// lambda are not tuned: callers overlay their own settings.
KsparseParams tuned_or_default(const TuningCache& cache, const std::string& device,
                               KsparseKernel kernel, int bs);

}  // namespace heptane
