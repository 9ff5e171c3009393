// KSPARSE brute-force search space, tuning cache file and driver (core/ksparse/ksparse_tuning.hpp).
#include "core/ksparse/ksparse_tuning.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <system_error>
#include <utility>

#include "core/ksparse/chunked_bsr.hpp"

namespace heptane {
namespace {

namespace fs = std::filesystem;

// The values tried for each Table I parameter. The paper names the parameters and their
// restrictions but not the values; these sets keep the search small (section 5.7: every
// remaining combination is timed), with K2's N_tg also taking 3, 6, 12 and 24 so that blocks
// like 6x6 or 12x12 split into slices of equal width (equations 2a-2b).
constexpr std::array<int, 6> kK1ArraysPerBlock = {1, 2, 4, 8, 16, 32};
constexpr std::array<int, 4> kK1RowsPerArray = {1, 2, 4, 8};
constexpr std::array<int, 10> kK2Groups = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
constexpr std::array<int, 5> kK2ArraysPerBlock = {1, 2, 4, 8, 16};
constexpr std::array<int, 3> kK2RowsPerArray = {1, 2, 4};
constexpr std::array<int, 4> kK3Nb = {16, 32, 64, 128};
constexpr std::array<int, 5> kK3Groups = {1, 2, 4, 8, 16};
constexpr std::array<int, 4> kK3Ept = {1, 2, 4, 8};
// K4: warps per block, loads in flight per lane, and values per chunk (lambda = values / bs^2).
constexpr std::array<int, 3> kK4ArraysPerBlock = {4, 8, 16};
constexpr std::array<int, 2> kK4Ept = {4, 8};
constexpr std::array<int, 5> kK4ChunkValues = {512, 1024, 2048, 4096, 8192};

// Block-size ranges of the kernels (section 5.1; K2 up to 128 as bs x N_tg must fit a block).
constexpr int kK1MaxBs = 5;
constexpr int kK2MaxBs = 128;

KsparseParams base(KsparseKernel kernel) {
    KsparseParams p;
    p.kernel = kernel;
    // The plain kernels' shapes; K4 has only its chunked layout.
    p.balance = kernel == KsparseKernel::k4 ? KsparseBalance::automatic : KsparseBalance::off;
    return p;
}

// Larger values in a cache file are rejected as corrupt (and so always fit an int).
constexpr std::int64_t kMaxFileValue = std::int64_t{1} << 24;

constexpr char kHeader[] =
    "# heptane KSPARSE tuning cache (seed 001, section 5.7): the fastest launch parameters per "
    "device, kernel and block size, found by brute force. Written by tune_ksparse; safe to "
    "delete (everything is tuned again).\n"
    "# KERNEL bs= N_ta= N_brows_ta= N_tg= nb= ept= lambda=(K4's chunk; optional, 0) "
    "seconds=(median of the winner) tried=(candidates timed) device=(the rest of the line)\n";

constexpr std::string_view kDeviceKey = "device";

/// The integer keys of an entry line, in the order save() writes them.
constexpr std::array<std::string_view, 7> kIntKeys = {"bs", "N_ta", "N_brows_ta", "N_tg",
                                                      "nb", "ept",  "tried"};

std::string shortest(double v) {
    std::array<char, 64> buf{};
    const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return std::string(buf.data(), res.ptr);
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

/// Why an entry cannot be stored, or empty if it can.
std::string entry_problem(const std::string& device, const TunedEntry& e) {
    if (device.empty()) return "device: empty name";
    if (device.find_first_of("\r\n") != std::string::npos)
        return "device: the name contains a line break";
    const KsparseParams& p = e.params;
    if (p.kernel == KsparseKernel::automatic)
        return "kernel: automatic is not a kernel (resolve it with ksparse_kernel_for)";
    if (e.bs < 1) return "bs: must be at least 1, got " + std::to_string(e.bs);
    const std::pair<const char*, int> fields[] = {{"N_ta", p.arrays_per_block},
                                                  {"N_brows_ta", p.rows_per_array},
                                                  {"N_tg", p.groups},
                                                  {"nb", p.nb},
                                                  {"ept", p.ept},
                                                  {"tried", e.candidates_tried}};
    for (const auto& [name, v] : fields)
        if (v < 0) return std::string(name) + ": must not be negative, got " + std::to_string(v);
    if (!std::isfinite(e.seconds) || e.seconds < 0)
        return "seconds: must be finite and not negative, got " + shortest(e.seconds);
    const KsparseBalance layout =
        p.kernel == KsparseKernel::k4 ? KsparseBalance::automatic : KsparseBalance::off;
    if (p.balance != layout)
        return std::string(
                   "balance: the cache holds plain-kernel launch shapes (balance off; K4, "
                   "whose chunks always split long rows, automatic), got ") +
               to_string(p.balance);
    if (p.lambda < 0) return "lambda: must not be negative, got " + std::to_string(p.lambda);
    return {};
}

std::string entry_line(const std::string& device, const TunedEntry& e) {
    const KsparseParams& p = e.params;
    std::string s = to_string(p.kernel);
    const int values[] = {e.bs, p.arrays_per_block, p.rows_per_array, p.groups, p.nb, p.ept};
    for (std::size_t i = 0; i < std::size(values); ++i)
        s += " " + std::string(kIntKeys[i]) + "=" + std::to_string(values[i]);
    s += " lambda=" + std::to_string(p.lambda);
    s += " seconds=" + shortest(e.seconds);
    s += " tried=" + std::to_string(e.candidates_tried);
    s += " device=" + device;
    return s;
}

/// One entry line, parsed; throws TuningCacheError naming file, line and key.
class LineParser {
  public:
    LineParser(const std::string& file, std::int64_t line) : file_(file), line_(line) {}

    [[noreturn]] void fail(const std::string& key, const std::string& detail) const {
        throw TuningCacheError(file_, line_, key, detail);
    }

    /// Parses `text` (no line break) into device and entry.
    void parse(std::string_view text, std::string& device, TunedEntry& e) {
        std::size_t i = 0;
        auto next_token = [&]() {
            while (i < text.size() && is_blank(text[i])) ++i;
            const std::size_t start = i;
            while (i < text.size() && !is_blank(text[i])) ++i;
            return text.substr(start, i - start);
        };
        const std::string_view kernel = next_token();
        if (kernel == "k1") {
            e.params.kernel = KsparseKernel::k1;
        } else if (kernel == "k2") {
            e.params.kernel = KsparseKernel::k2;
        } else if (kernel == "k3") {
            e.params.kernel = KsparseKernel::k3;
        } else if (kernel == "k4") {
            e.params.kernel = KsparseKernel::k4;
        } else {
            fail("kernel",
                 "expected k1, k2, k3 or k4 as the first word, got '" + std::string(kernel) + "'");
        }
        e.params.balance =
            e.params.kernel == KsparseKernel::k4 ? KsparseBalance::automatic : KsparseBalance::off;
        bool have_lambda = false;

        std::array<std::int64_t, kIntKeys.size()> ints{};
        std::array<bool, kIntKeys.size()> have_int{};
        bool have_seconds = false;
        bool have_device = false;
        while (true) {
            while (i < text.size() && is_blank(text[i])) ++i;
            const std::size_t token_start = i;
            const std::string_view token = next_token();
            if (token.empty()) break;
            const std::size_t eq = token.find('=');
            if (eq == std::string_view::npos || eq == 0)
                fail("", "expected KEY=VALUE, got '" + std::string(token) + "'");
            const std::string_view key = token.substr(0, eq);
            if (key == kDeviceKey) {
                // The name is the rest of the line, inner spaces included.
                device = std::string(text.substr(token_start + eq + 1));
                if (device.empty()) fail("device", "empty name");
                have_device = true;
                break;
            }
            const std::string_view value = token.substr(eq + 1);
            if (key == "seconds") {
                if (have_seconds) fail("seconds", "given twice");
                have_seconds = true;
                const auto res =
                    std::from_chars(value.data(), value.data() + value.size(), e.seconds);
                if (value.empty() || res.ec != std::errc() ||
                    res.ptr != value.data() + value.size())
                    fail("seconds", "expected a number, got '" + std::string(value) + "'");
                if (!std::isfinite(e.seconds) || e.seconds < 0)
                    fail("seconds",
                         "must be finite and not negative, got '" + std::string(value) + "'");
                continue;
            }
            const auto it = std::find(kIntKeys.begin(), kIntKeys.end(), key);
            if (it == kIntKeys.end() && key != "lambda")
                fail(std::string(key),
                     "unknown key (expected bs, N_ta, N_brows_ta, N_tg, nb, ept, lambda, "
                     "seconds, tried, device)");
            bool& seen = key == "lambda"
                             ? have_lambda
                             : have_int[static_cast<std::size_t>(it - kIntKeys.begin())];
            if (seen) fail(std::string(key), "given twice");
            seen = true;
            std::int64_t v = 0;
            const auto res = std::from_chars(value.data(), value.data() + value.size(), v);
            if (value.empty() || res.ec != std::errc() || res.ptr != value.data() + value.size())
                fail(std::string(key), "expected an integer, got '" + std::string(value) + "'");
            const std::int64_t lo = key == "bs" ? 1 : 0;
            if (v < lo || v > kMaxFileValue)
                fail(std::string(key), "out of range: " + std::to_string(v));
            if (key == "lambda") {
                e.params.lambda = static_cast<int>(v);
            } else {
                ints[static_cast<std::size_t>(it - kIntKeys.begin())] = v;
            }
        }
        for (std::size_t k = 0; k < kIntKeys.size(); ++k)
            if (!have_int[k]) fail(std::string(kIntKeys[k]), "missing");
        if (!have_seconds) fail("seconds", "missing");
        if (!have_device) fail("device", "missing (it must be the last key)");

        e.bs = static_cast<int>(ints[0]);
        e.params.arrays_per_block = static_cast<int>(ints[1]);
        e.params.rows_per_array = static_cast<int>(ints[2]);
        e.params.groups = static_cast<int>(ints[3]);
        e.params.nb = static_cast<int>(ints[4]);
        e.params.ept = static_cast<int>(ints[5]);
        e.candidates_tried = static_cast<int>(ints[6]);
    }

  private:
    const std::string& file_;
    std::int64_t line_;
};

}  // namespace

std::vector<KsparseParams> ksparse_candidates(KsparseKernel kernel, int bs) {
    std::vector<KsparseParams> out;
    switch (kernel) {
        case KsparseKernel::k1:
            if (bs < 1 || bs > kK1MaxBs) break;
            // A thread array is one (truncated) warp: 32 N_ta threads per block.
            for (int n_ta : kK1ArraysPerBlock) {
                if (kKsparseWarpSize * n_ta > kKsparseMaxThreadsPerBlock) continue;
                for (int n_brows : kK1RowsPerArray) {
                    KsparseParams p = base(kernel);
                    p.arrays_per_block = n_ta;
                    p.rows_per_array = n_brows;
                    out.push_back(p);
                }
            }
            break;
        case KsparseKernel::k2:
            if (bs < 2 || bs > kK2MaxBs) break;
            // A thread array is bs x N_tg threads; a block holds N_ta of them.
            for (int n_tg : kK2Groups) {
                if (n_tg > bs || bs * n_tg > kKsparseMaxThreadsPerBlock) continue;
                for (int n_ta : kK2ArraysPerBlock) {
                    const int threads = bs * n_tg * n_ta;
                    if (threads > kKsparseMaxThreadsPerBlock || threads < kKsparseWarpSize)
                        continue;
                    for (int n_brows : kK2RowsPerArray) {
                        KsparseParams p = base(kernel);
                        p.groups = n_tg;
                        p.arrays_per_block = n_ta;
                        p.rows_per_array = n_brows;
                        out.push_back(p);
                    }
                }
            }
            break;
        case KsparseKernel::k3:
            if (bs < 2) break;
            // One thread array of nb x N_tg threads; a working set is nb x (N_tg ept).
            for (int nb : kK3Nb) {
                if (nb > std::max(kK3Nb[0], bs)) continue;
                for (int n_tg : kK3Groups) {
                    if (nb * n_tg > kKsparseMaxThreadsPerBlock) continue;
                    for (int ept : kK3Ept) {
                        if (n_tg * ept > nb) continue;
                        KsparseParams p = base(kernel);
                        p.nb = nb;
                        p.groups = n_tg;
                        p.ept = ept;
                        out.push_back(p);
                    }
                }
            }
            break;
        case KsparseKernel::k4:
            if (!k4_takes(bs)) break;
            for (int n_ta : kK4ArraysPerBlock) {
                for (int ept : kK4Ept) {
                    int last = 0;
                    for (int values : kK4ChunkValues) {
                        const int lambda = std::max(1, values / (bs * bs));
                        if (lambda == last) continue;  // bs 32: 512 and 1,024 values are 1 block
                        last = lambda;
                        KsparseParams p = base(kernel);
                        p.arrays_per_block = n_ta;
                        p.ept = ept;
                        p.lambda = lambda;
                        out.push_back(p);
                    }
                }
            }
            break;
        case KsparseKernel::automatic:
            break;
    }
    return out;
}

TuningCacheError::TuningCacheError(const std::string& file, std::int64_t line,
                                   const std::string& key, const std::string& detail)
    : InputError(key, detail,
                 file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " +
                     (key.empty() ? detail : key + ": " + detail)),
      file_(file),
      line_(line) {}

TuningCache::TuningCache(std::string path) : path_(std::move(path)) {
    std::error_code ec;
    const bool exists = fs::exists(path_, ec);
    if (ec) throw Error(path_ + ": cannot check the tuning cache: " + ec.message());
    if (!exists) return;
    if (fs::is_directory(path_, ec))
        throw Error(path_ + ": the tuning cache path is a directory, not a file");
    std::ifstream in(path_, std::ios::binary);
    if (!in)
        throw Error(path_ + ": cannot open the tuning cache: " + std::string(std::strerror(errno)));
    std::map<Key, std::int64_t> first_line;
    std::string text;
    std::int64_t line = 0;
    while (std::getline(in, text)) {
        ++line;
        if (!text.empty() && text.back() == '\r') text.pop_back();
        const auto first = text.find_first_not_of(" \t");
        if (first == std::string::npos || text[first] == '#') continue;
        std::string device;
        TunedEntry e;
        LineParser parser(path_, line);
        parser.parse(std::string_view(text).substr(first), device, e);
        Key key{device, static_cast<int>(e.params.kernel), e.bs};
        const auto [it, inserted] = first_line.emplace(key, line);
        if (!inserted)
            parser.fail("", std::string("duplicate entry for ") + to_string(e.params.kernel) +
                                " bs=" + std::to_string(e.bs) + " device=" + device +
                                " (first on line " + std::to_string(it->second) + ")");
        entries_.emplace(std::move(key), e);
    }
    if (in.bad()) throw Error(path_ + ": error reading the tuning cache: " + std::strerror(errno));
}

std::string TuningCache::default_path() {
    auto env = [](const char* name) -> std::string {
        const char* v = std::getenv(name);
        return v != nullptr ? std::string(v) : std::string();
    };
    const std::string explicit_path = env("HEPTANE_TUNING_CACHE");
    if (!explicit_path.empty()) return explicit_path;
    const std::string xdg = env("XDG_CACHE_HOME");
    if (!xdg.empty() && fs::path(xdg).is_absolute())
        return (fs::path(xdg) / "heptane" / "ksparse_tuning.txt").string();
    const std::string home = env("HOME");
    if (!home.empty())
        return (fs::path(home) / ".cache" / "heptane" / "ksparse_tuning.txt").string();
    return "./heptane_ksparse_tuning.txt";
}

std::optional<TunedEntry> TuningCache::find(const std::string& device, KsparseKernel kernel,
                                            int bs) const {
    const auto it = entries_.find(Key{device, static_cast<int>(kernel), bs});
    if (it == entries_.end()) return std::nullopt;
    return it->second;
}

void TuningCache::put(const std::string& device, const TunedEntry& entry) {
    const std::string problem = entry_problem(device, entry);
    if (!problem.empty()) throw Error("TuningCache::put: " + problem);
    entries_[Key{device, static_cast<int>(entry.params.kernel), entry.bs}] = entry;
}

void TuningCache::save() const {
    const fs::path target(path_);
    std::error_code ec;
    if (target.has_parent_path()) {
        fs::create_directories(target.parent_path(), ec);
        if (ec)
            throw Error(path_ + ": cannot create the tuning cache folder " +
                        target.parent_path().string() + ": " + ec.message());
    }
    std::string text = kHeader;
    for (const auto& [key, e] : entries_) text += entry_line(std::get<0>(key), e) + "\n";

    // Same folder as the target, so the rename stays on one file system and is atomic.
    const std::string tmp = path_ + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw Error(tmp + ": cannot write the tuning cache: " + std::strerror(errno));
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.close();
        if (!out) {
            const std::string why = std::strerror(errno);
            std::remove(tmp.c_str());
            throw Error(tmp + ": cannot write the tuning cache: " + why);
        }
    }
    if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        throw Error(path_ + ": cannot replace the tuning cache with " + tmp + ": " + why);
    }
}

TunedEntry tune_ksparse(const std::string& device, KsparseKernel kernel, int bs,
                        const std::function<double(const KsparseParams&)>& time_candidate,
                        TuningCache& cache, bool retune, bool* from_cache) {
    if (from_cache != nullptr) *from_cache = false;
    if (!retune) {
        if (auto hit = cache.find(device, kernel, bs)) {
            if (from_cache != nullptr) *from_cache = true;
            return *hit;
        }
    }
    const std::vector<KsparseParams> candidates = ksparse_candidates(kernel, bs);
    const std::string what = std::string("tune_ksparse: ") + to_string(kernel) +
                             " bs=" + std::to_string(bs) + " on '" + device + "'";
    if (candidates.empty())
        throw NotSupported(
            what +
            ": no candidates (K1 takes bs 1-5, K2 2-128, K3 from 2, K4 8, 16 and 32; "
            "automatic must be resolved with ksparse_kernel_for first)");
    std::optional<TunedEntry> best;
    int timed = 0;
    std::string last_skip;
    for (const KsparseParams& p : candidates) {
        double t = 0;
        try {
            t = time_candidate(p);
        } catch (const NotSupported& e) {
            last_skip = describe(p) + ": " + e.what();
            continue;
        }
        if (!std::isfinite(t) || t < 0) {
            last_skip = describe(p) + ": time " + shortest(t);
            continue;
        }
        ++timed;
        if (!best || t < best->seconds) best = TunedEntry{p, bs, t, 0};
    }
    if (!best)
        throw NotSupported(what + ": all " + std::to_string(candidates.size()) +
                           " candidates were skipped (last: " + last_skip + ")");
    best->candidates_tried = timed;
    cache.put(device, *best);
    cache.save();
    return *best;
}

KsparseParams tuned_or_default(const TuningCache& cache, const std::string& device,
                               KsparseKernel kernel, int bs) {
    if (auto hit = cache.find(device, kernel, bs)) return hit->params;
    KsparseParams p;
    p.kernel = kernel;
    return p;
}

}  // namespace heptane
