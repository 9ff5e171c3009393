// KSPARSE autotuning, host side (core/ksparse/ksparse_tuning.hpp): the Table I search space, the
// tuning cache file (round trip, atomic save, malformed lines) and the brute-force driver
// with a fake timing function (tuned once, then reused without timing).
#include "core/ksparse/ksparse_tuning.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "common/scoped_env.hpp"
#include "core/base/errors.hpp"

namespace heptane {
namespace {

namespace fs = std::filesystem;

constexpr const char* kH100 = "NVIDIA H100 80GB HBM3";
constexpr const char* kH200 = "NVIDIA H200 NVL  (two spaces)";

std::tuple<int, int, int, int, int, int, int, int> fields(const KsparseParams& p) {
    return {
        static_cast<int>(p.kernel),  p.rows_per_array, p.arrays_per_block, p.groups, p.nb, p.ept,
        static_cast<int>(p.balance), p.lambda};
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_bytes(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

int log2i(int v) {
    int l = 0;
    while ((1 << l) < v) ++l;
    return l;
}

// ---- Search space (Table I) ---------------------------------------------------------------

TEST(KsparseCandidates, RespectTableIAndHardwareLimits) {
    for (KsparseKernel k :
         {KsparseKernel::k1, KsparseKernel::k2, KsparseKernel::k3, KsparseKernel::k4}) {
        for (int bs = 0; bs <= 300; ++bs) {
            SCOPED_TRACE(std::string(to_string(k)) + " bs=" + std::to_string(bs));
            const auto cands = ksparse_candidates(k, bs);
            const bool in_range = k == KsparseKernel::k1   ? (bs >= 1 && bs <= 5)
                                  : k == KsparseKernel::k2 ? (bs >= 2 && bs <= 128)
                                  : k == KsparseKernel::k4 ? (bs == 8 || bs == 16 || bs == 32)
                                                           : bs >= 2;
            EXPECT_EQ(!cands.empty(), in_range);
            std::set<std::tuple<int, int, int, int, int, int, int, int>> seen;
            for (const KsparseParams& p : cands) {
                SCOPED_TRACE(describe(p));
                EXPECT_TRUE(seen.insert(fields(p)).second) << "duplicate candidate";
                EXPECT_EQ(p.kernel, k);
                // K4 has only its chunked layout; lambda is its chunk (512-8,192 values).
                EXPECT_EQ(p.balance,
                          k == KsparseKernel::k4 ? KsparseBalance::automatic : KsparseBalance::off);
                if (k != KsparseKernel::k4) {
                    EXPECT_EQ(p.lambda, 0);
                }
                int threads = 0;
                switch (k) {
                    case KsparseKernel::k1:
                        EXPECT_GE(p.arrays_per_block, 1);
                        EXPECT_GE(p.rows_per_array, 1);
                        EXPECT_LE(p.rows_per_array, 8);
                        EXPECT_EQ(p.groups, 0);
                        EXPECT_EQ(p.nb, 0);
                        EXPECT_EQ(p.ept, 0);
                        threads = 32 * p.arrays_per_block;
                        break;
                    case KsparseKernel::k2:
                        EXPECT_GE(p.groups, 1);
                        EXPECT_LE(p.groups, bs);  // Table I: N_tg <= bs
                        EXPECT_LE(p.groups, 32);
                        EXPECT_GE(p.arrays_per_block, 1);
                        EXPECT_LE(p.arrays_per_block, 16);
                        EXPECT_GE(p.rows_per_array, 1);
                        EXPECT_LE(p.rows_per_array, 4);
                        EXPECT_EQ(p.nb, 0);
                        EXPECT_EQ(p.ept, 0);
                        threads = bs * p.groups * p.arrays_per_block;
                        EXPECT_GE(threads, 32) << "less than a warp per block";
                        break;
                    case KsparseKernel::k3:
                        EXPECT_TRUE(p.nb == 16 || p.nb == 32 || p.nb == 64 || p.nb == 128);
                        EXPECT_LE(p.nb, std::max(16, bs));
                        EXPECT_GE(p.groups, 1);
                        EXPECT_GE(p.ept, 1);
                        EXPECT_LE(p.groups * p.ept, p.nb);  // Table I: N_tg x ept <= nb
                        EXPECT_EQ(p.arrays_per_block, 0);
                        EXPECT_EQ(p.rows_per_array, 0);
                        threads = p.nb * p.groups;
                        break;
                    case KsparseKernel::k4:
                        EXPECT_TRUE(p.ept == 4 || p.ept == 8);
                        EXPECT_GE(p.lambda * bs * bs, bs == 32 ? 1024 : 512);
                        EXPECT_LE(p.lambda * bs * bs, 8192);
                        EXPECT_EQ(p.groups, 0);
                        EXPECT_EQ(p.nb, 0);
                        threads = 32 * p.arrays_per_block;
                        EXPECT_LE(threads, 512);  // 128 registers a thread
                        break;
                    case KsparseKernel::automatic:
                        break;
                }
                EXPECT_GE(threads, 1);
                EXPECT_LE(threads, 1024);
            }
        }
    }
}

TEST(KsparseCandidates, PinnedCounts) {
    // K1: 6 N_ta x 4 N_brows_ta, all within 1,024 threads.
    for (int bs = 1; bs <= 5; ++bs)
        EXPECT_EQ(ksparse_candidates(KsparseKernel::k1, bs).size(), 24u);
    // K2 bs 2: N_tg 1 -> N_ta 16; N_tg 2 -> N_ta 8, 16 (at least 32 threads); x 3 N_brows_ta.
    EXPECT_EQ(ksparse_candidates(KsparseKernel::k2, 2).size(), 9u);
    // K2 bs 16: 2 <= N_tg N_ta <= 64 gives 4+5+5+5+4+4+3+3 pairs for N_tg 1,2,3,4,6,8,12,16.
    EXPECT_EQ(ksparse_candidates(KsparseKernel::k2, 16).size(), 33u * 3u);
    // K2 bs 128: N_tg N_ta <= 8 gives 4+3+2+2+1+1 pairs for N_tg 1,2,3,4,6,8.
    EXPECT_EQ(ksparse_candidates(KsparseKernel::k2, 128).size(), 13u * 3u);
    // K3: (N_tg, ept) pairs with N_tg ept <= nb: 14 for nb 16, 17 for 32, 19 for 64, and 16
    // for 128 (N_tg <= 8 so that 128 N_tg <= 1024).
    EXPECT_EQ(ksparse_candidates(KsparseKernel::k3, 45).size(), 14u + 17u);
    EXPECT_EQ(ksparse_candidates(KsparseKernel::k3, 64).size(), 14u + 17u + 19u);
    EXPECT_EQ(ksparse_candidates(KsparseKernel::k3, 128).size(), 14u + 17u + 19u + 16u);
    EXPECT_EQ(ksparse_candidates(KsparseKernel::k3, 1000).size(), 14u + 17u + 19u + 16u);
    EXPECT_EQ(ksparse_candidates(KsparseKernel::k3, 2).size(), 14u);
}

TEST(KsparseCandidates, K4Counts) {
    // 3 N_ta x 2 ept x 5 chunk lengths (512 to 8,192 values; at bs 32 the first two are the
    // same one block, listed once).
    EXPECT_EQ(ksparse_candidates(KsparseKernel::k4, 8).size(), 30u);
    EXPECT_EQ(ksparse_candidates(KsparseKernel::k4, 16).size(), 30u);
    EXPECT_EQ(ksparse_candidates(KsparseKernel::k4, 32).size(), 24u);
    EXPECT_TRUE(ksparse_candidates(KsparseKernel::k4, 4).empty());
    EXPECT_TRUE(ksparse_candidates(KsparseKernel::k4, 12).empty());
    EXPECT_TRUE(ksparse_candidates(KsparseKernel::k4, 64).empty());
}

TEST(KsparseCandidates, EmptyOutsideTheKernelRange) {
    EXPECT_TRUE(ksparse_candidates(KsparseKernel::automatic, 4).empty());
    EXPECT_TRUE(ksparse_candidates(KsparseKernel::k1, 0).empty());
    EXPECT_TRUE(ksparse_candidates(KsparseKernel::k1, 6).empty());
    EXPECT_TRUE(ksparse_candidates(KsparseKernel::k2, 1).empty());
    EXPECT_TRUE(ksparse_candidates(KsparseKernel::k2, 129).empty());
    EXPECT_TRUE(ksparse_candidates(KsparseKernel::k3, 1).empty());
    EXPECT_TRUE(ksparse_candidates(KsparseKernel::k3, -5).empty());
}

// ---- Cache file and driver ----------------------------------------------------------------

/// A fresh, empty folder per test, removed at the end.
class TuningCacheTest : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() /
               ("heptane_tuning_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    std::vector<std::string> files() const {
        std::vector<std::string> out;
        for (const auto& f : fs::recursive_directory_iterator(dir_))
            out.push_back(fs::relative(f.path(), dir_).string());
        return out;
    }
    fs::path dir_;
};

/// Counts calls; time has a unique minimum at K2 N_ta=4 N_brows_ta=1 N_tg=8 (and for K1
/// and K3 at N_ta=4 N_brows_ta=1 / nb=32 N_tg=4 ept=2).
struct FakeTimer {
    int calls = 0;
    double scale = 1e-5;
    double operator()(const KsparseParams& p) {
        ++calls;
        double d = 0;
        switch (p.kernel) {
            case KsparseKernel::k1:
                d = std::abs(log2i(p.arrays_per_block) - 2) + (p.rows_per_array - 1);
                break;
            case KsparseKernel::k2:
                d = std::abs(log2i(p.arrays_per_block) - 2) + (p.rows_per_array - 1) +
                    std::abs(p.groups - 8);
                break;
            case KsparseKernel::k3:
                d = std::abs(p.nb - 32) + std::abs(p.groups - 4) + std::abs(p.ept - 2);
                break;
            case KsparseKernel::k4:
                d = std::abs(p.arrays_per_block - 8) + std::abs(p.ept - 8) +
                    std::abs(p.lambda - 64);
                break;
            case KsparseKernel::automatic:
                break;
        }
        return scale * (1.0 + d);
    }
};

TEST_F(TuningCacheTest, MissingFileIsAnEmptyCache) {
    const TuningCache cache(path("none.txt"));
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_FALSE(cache.find(kH100, KsparseKernel::k2, 16));
    EXPECT_TRUE(files().empty());
}

TEST_F(TuningCacheTest, RoundTripTwoDevicesFourKernels) {
    const std::string file = path("sub/dir/cache.txt");  // the parent folders do not exist
    TuningCache cache(file);
    std::vector<std::tuple<std::string, TunedEntry>> put;
    int n = 0;
    for (const char* device : {kH100, kH200}) {
        for (KsparseKernel k :
             {KsparseKernel::k1, KsparseKernel::k2, KsparseKernel::k3, KsparseKernel::k4}) {
            const int bs = k == KsparseKernel::k1   ? 3
                           : k == KsparseKernel::k2 ? 17
                           : k == KsparseKernel::k4 ? 16
                                                    : 90;
            const auto cands = ksparse_candidates(k, bs);
            ASSERT_FALSE(cands.empty());
            TunedEntry e;
            e.params = cands[(7 * n + 3) % cands.size()];
            e.bs = bs;
            // Doubles that need all 17 digits, and one that is short.
            e.seconds = n == 0 ? 1.2e-05 : (0.1 + 0.2) * 1e-4 / (n + 2);
            e.candidates_tried = static_cast<int>(cands.size()) - n;
            cache.put(device, e);
            put.emplace_back(device, e);
            ++n;
        }
    }
    EXPECT_EQ(cache.size(), 8u);
    cache.save();
    ASSERT_TRUE(fs::exists(file));
    EXPECT_EQ(files().size(), 3u) << "sub, sub/dir, sub/dir/cache.txt; no temporary file left";

    const TuningCache loaded(file);
    EXPECT_EQ(loaded.size(), 8u);
    for (const auto& [device, e] : put) {
        SCOPED_TRACE(device + " " + describe(e.params));
        const auto got = loaded.find(device, e.params.kernel, e.bs);
        ASSERT_TRUE(got);
        EXPECT_EQ(fields(got->params), fields(e.params));
        EXPECT_EQ(got->bs, e.bs);
        EXPECT_EQ(got->seconds, e.seconds);  // exact: shortest round-trip form
        EXPECT_EQ(got->candidates_tried, e.candidates_tried);
        EXPECT_FALSE(loaded.find(device, e.params.kernel, e.bs + 1));
    }
    EXPECT_FALSE(loaded.find("NVIDIA H100", KsparseKernel::k2, 17)) << "names match exactly";

    // Human-readable, a header comment first, sorted: saving what was loaded gives the same bytes.
    const std::string bytes = read_bytes(file);
    EXPECT_EQ(bytes.rfind("# heptane KSPARSE tuning cache", 0), 0u) << bytes;
    EXPECT_NE(bytes.find("k2 bs=17 "), std::string::npos) << bytes;
    EXPECT_NE(bytes.find(" seconds=1.2e-05 "), std::string::npos) << bytes;
    EXPECT_NE(bytes.find(" device=NVIDIA H200 NVL  (two spaces)\n"), std::string::npos) << bytes;
    const std::string copy = path("copy.txt");
    fs::copy_file(file, copy);
    TuningCache again(copy);
    again.save();
    EXPECT_EQ(read_bytes(copy), bytes);
}

TEST_F(TuningCacheTest, WrittenOnceAndReused) {
    const std::string file = path("cache.txt");
    const int bs = 16;
    const auto n_cands = static_cast<int>(ksparse_candidates(KsparseKernel::k2, bs).size());

    FakeTimer first;
    bool from_cache = true;
    {
        TuningCache cache(file);
        const TunedEntry e =
            tune_ksparse(kH100, KsparseKernel::k2, bs, std::ref(first), cache, false, &from_cache);
        EXPECT_FALSE(from_cache);
        EXPECT_EQ(first.calls, n_cands);
        EXPECT_EQ(e.candidates_tried, n_cands);
        EXPECT_EQ(e.bs, bs);
        EXPECT_EQ(e.params.kernel, KsparseKernel::k2);
        EXPECT_EQ(e.params.arrays_per_block, 4);
        EXPECT_EQ(e.params.rows_per_array, 1);
        EXPECT_EQ(e.params.groups, 8);
        EXPECT_EQ(e.seconds, 1e-5);
        EXPECT_TRUE(cache.find(kH100, KsparseKernel::k2, bs));
    }
    ASSERT_TRUE(fs::exists(file));
    EXPECT_EQ(files(), std::vector<std::string>{"cache.txt"}) << "no temporary file left";
    const std::string bytes = read_bytes(file);
    EXPECT_NE(bytes.find("k2 bs=16 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 ept=0 lambda=0 seconds=1e-05 "
                         "tried=" +
                         std::to_string(n_cands) + " device=NVIDIA H100 80GB HBM3\n"),
              std::string::npos)
        << bytes;
    // An old time stamp, so a rewrite would show even with the same bytes.
    const auto old_time = fs::last_write_time(file) - std::chrono::hours(1);
    fs::last_write_time(file, old_time);

    // A new process: a fresh cache from the same file, nothing timed, nothing written.
    FakeTimer second;
    TuningCache cache(file);
    const TunedEntry e =
        tune_ksparse(kH100, KsparseKernel::k2, bs, std::ref(second), cache, false, &from_cache);
    EXPECT_TRUE(from_cache);
    EXPECT_EQ(second.calls, 0);
    EXPECT_EQ(e.params.groups, 8);
    EXPECT_EQ(e.params.arrays_per_block, 4);
    EXPECT_EQ(e.seconds, 1e-5);
    EXPECT_EQ(e.candidates_tried, n_cands);
    EXPECT_EQ(read_bytes(file), bytes);
    EXPECT_EQ(fs::last_write_time(file), old_time);
    EXPECT_EQ(tuned_or_default(cache, kH100, KsparseKernel::k2, bs).groups, 8);

    // Another block size is tuned on its own and added to the same file.
    FakeTimer other_bs;
    tune_ksparse(kH100, KsparseKernel::k2, 17, std::ref(other_bs), cache);
    EXPECT_EQ(other_bs.calls, static_cast<int>(ksparse_candidates(KsparseKernel::k2, 17).size()));
    EXPECT_EQ(TuningCache(file).size(), 2u);
}

TEST_F(TuningCacheTest, RetuneTimesAgainAndReplacesTheEntry) {
    const std::string file = path("cache.txt");
    const auto n_cands = static_cast<int>(ksparse_candidates(KsparseKernel::k3, 64).size());
    {
        TuningCache cache(file);
        FakeTimer t;
        tune_ksparse(kH100, KsparseKernel::k3, 64, std::ref(t), cache);
        EXPECT_EQ(t.calls, n_cands);
    }
    const auto old_time = fs::last_write_time(file) - std::chrono::hours(1);
    fs::last_write_time(file, old_time);

    TuningCache cache(file);
    int calls = 0;
    // Now nb=64 N_tg=16 ept=4 is fastest.
    auto timer = [&](const KsparseParams& p) {
        ++calls;
        return (p.nb == 64 && p.groups == 16 && p.ept == 4) ? 1e-6 : 1e-3;
    };
    bool from_cache = true;
    const TunedEntry e =
        tune_ksparse(kH100, KsparseKernel::k3, 64, timer, cache, /*retune=*/true, &from_cache);
    EXPECT_FALSE(from_cache);
    EXPECT_EQ(calls, n_cands);
    EXPECT_EQ(e.params.nb, 64);
    EXPECT_NE(fs::last_write_time(file), old_time);
    const auto reloaded = TuningCache(file).find(kH100, KsparseKernel::k3, 64);
    ASSERT_TRUE(reloaded);
    EXPECT_EQ(fields(reloaded->params), fields(e.params));
    EXPECT_EQ(reloaded->seconds, 1e-6);
    EXPECT_EQ(TuningCache(file).size(), 1u);
}

TEST_F(TuningCacheTest, OtherDevicesAndKernelsAreTunedSeparately) {
    const std::string file = path("cache.txt");
    TuningCache cache(file);
    FakeTimer a;
    tune_ksparse(kH100, KsparseKernel::k2, 16, std::ref(a), cache);
    const int n = a.calls;
    EXPECT_GT(n, 0);

    FakeTimer b;
    b.scale = 2e-5;
    bool from_cache = true;
    const TunedEntry eb =
        tune_ksparse(kH200, KsparseKernel::k2, 16, std::ref(b), cache, false, &from_cache);
    EXPECT_FALSE(from_cache);
    EXPECT_EQ(b.calls, n);
    EXPECT_EQ(eb.seconds, 2e-5);

    FakeTimer c;
    tune_ksparse(kH100, KsparseKernel::k3, 16, std::ref(c), cache, false, &from_cache);
    EXPECT_FALSE(from_cache);
    EXPECT_EQ(c.calls, static_cast<int>(ksparse_candidates(KsparseKernel::k3, 16).size()));

    const TuningCache loaded(file);
    EXPECT_EQ(loaded.size(), 3u);
    ASSERT_TRUE(loaded.find(kH100, KsparseKernel::k2, 16));
    ASSERT_TRUE(loaded.find(kH200, KsparseKernel::k2, 16));
    EXPECT_EQ(loaded.find(kH100, KsparseKernel::k2, 16)->seconds, 1e-5);
    EXPECT_EQ(loaded.find(kH200, KsparseKernel::k2, 16)->seconds, 2e-5);
    EXPECT_EQ(loaded.find(kH100, KsparseKernel::k3, 16)->params.nb, 16);  // only nb=16 fits bs 16
}

TEST_F(TuningCacheTest, SkipsUnsupportedAndBadTimes) {
    const std::string file = path("cache.txt");
    TuningCache cache(file);
    const auto cands = ksparse_candidates(KsparseKernel::k2, 16);
    int calls = 0;
    int skipped = 0;
    // The fastest would be N_tg 8, but those throw; N_tg 4 returns NaN, N_tg 2 a negative time.
    auto timer = [&](const KsparseParams& p) -> double {
        ++calls;
        if (p.groups == 8) {
            ++skipped;
            throw NotSupported("too many registers");
        }
        if (p.groups == 4) {
            ++skipped;
            return std::numeric_limits<double>::quiet_NaN();
        }
        if (p.groups == 2) {
            ++skipped;
            return -1.0;
        }
        if (p.groups == 6) {
            ++skipped;
            return std::numeric_limits<double>::infinity();
        }
        return 1e-3 / p.groups + 1e-6 * p.rows_per_array;
    };
    const TunedEntry e = tune_ksparse(kH100, KsparseKernel::k2, 16, timer, cache);
    EXPECT_EQ(calls, static_cast<int>(cands.size()));
    EXPECT_GT(skipped, 0);
    EXPECT_EQ(e.candidates_tried, calls - skipped);
    EXPECT_EQ(e.params.groups, 16);
    EXPECT_EQ(e.params.rows_per_array, 1);
    EXPECT_EQ(e.params.arrays_per_block, 1) << "the first of the equally fast ones";
}

TEST_F(TuningCacheTest, AllSkippedThrowsNotSupportedAndWritesNothing) {
    const std::string file = path("cache.txt");
    TuningCache cache(file);
    int calls = 0;
    auto timer = [&](const KsparseParams&) -> double {
        ++calls;
        throw NotSupported("nope");
    };
    EXPECT_THROW(tune_ksparse(kH100, KsparseKernel::k1, 4, timer, cache), NotSupported);
    EXPECT_EQ(calls, 24);
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_FALSE(fs::exists(file));

    // No candidates at all: automatic, or a block size outside the kernel's range.
    EXPECT_THROW(tune_ksparse(kH100, KsparseKernel::automatic, 4, timer, cache), NotSupported);
    EXPECT_THROW(tune_ksparse(kH100, KsparseKernel::k1, 6, timer, cache), NotSupported);
    EXPECT_EQ(calls, 24);
}

TEST_F(TuningCacheTest, OtherExceptionsPropagate) {
    TuningCache cache(path("cache.txt"));
    auto timer = [](const KsparseParams&) -> double { throw CudaError("launch failed"); };
    EXPECT_THROW(tune_ksparse(kH100, KsparseKernel::k2, 8, timer, cache), CudaError);
    EXPECT_FALSE(fs::exists(path("cache.txt")));
}

TEST_F(TuningCacheTest, MalformedLineNamesFileLineAndKey) {
    const std::string good =
        "k2 bs=16 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 ept=0 seconds=1e-05 tried=99 device=GPU X";
    struct Case {
        std::string line;
        std::string key;
    };
    const std::vector<Case> cases = {
        {"k2 bs=16 N_ta=four N_brows_ta=1 N_tg=8 nb=0 ept=0 seconds=1e-05 tried=99 device=GPU",
         "N_ta"},
        {"k5 bs=16 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 ept=0 seconds=1e-05 tried=99 device=GPU",
         "kernel"},
        {"k4 bs=16 N_ta=4 N_brows_ta=1 N_tg=0 nb=0 ept=8 lambda=-1 seconds=1e-05 tried=9 "
         "device=GPU",
         "lambda"},
        {"k4 bs=16 N_ta=4 N_brows_ta=1 N_tg=0 nb=0 ept=8 lambda=16 lambda=16 seconds=1e-05 "
         "tried=9 device=GPU",
         "lambda"},
        {"k2 bs=16 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 ept=0 seconds=1e-05 tried=99", "device"},
        {"k2 bs=16 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 seconds=1e-05 tried=99 device=GPU", "ept"},
        {"k2 bs=0 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 ept=0 seconds=1e-05 tried=99 device=GPU", "bs"},
        {"k2 bs=16 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 ept=0 seconds=fast tried=99 device=GPU",
         "seconds"},
        {"k2 bs=16 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 ept=0 seconds=-1 tried=99 device=GPU",
         "seconds"},
        {"k2 bs=16 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 ept=0 seconds=1e-05 tried=99 wat=1 device=GPU",
         "wat"},
        {"k2 bs=16 N_ta=4 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 ept=0 seconds=1e-05 tried=9 device=GPU",
         "N_ta"},
        {"k2 bs=16 N_ta=4 N_brows_ta=1 N_tg=8 nb=0 ept=0 seconds=1e-05 tried=99 device=", "device"},
    };
    const std::string file = path("bad.txt");
    for (const Case& c : cases) {
        SCOPED_TRACE(c.line);
        write_bytes(file, "# a comment\n" + c.line + "\n" + good + "\n");
        try {
            TuningCache cache(file);
            ADD_FAILURE() << "no exception";
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(file + ":2: "), std::string::npos) << what;
            EXPECT_NE(what.find(":2: " + c.key + ": "), std::string::npos) << what;
            const auto* tc = dynamic_cast<const TuningCacheError*>(&e);
            ASSERT_NE(tc, nullptr) << what;
            EXPECT_EQ(tc->line(), 2);
            EXPECT_EQ(tc->key(), c.key);
        }
    }
    // A duplicate names the line of the second one and the first one.
    write_bytes(file, "\n" + good + "\r\n" + good + "\n");
    try {
        TuningCache cache(file);
        ADD_FAILURE() << "no exception";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(file + ":3: duplicate entry"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("first on line 2"), std::string::npos) << e.what();
    }
    // Blank lines, comments, CRLF and extra blanks are fine.
    write_bytes(file, "\n  # note\r\n  " + good + "\r\n\n");
    const TuningCache ok(file);
    ASSERT_TRUE(ok.find("GPU X", KsparseKernel::k2, 16));
    EXPECT_EQ(ok.find("GPU X", KsparseKernel::k2, 16)->params.groups, 8);
    // lambda is optional (caches written before K4 lack it): 0; K4's entries carry it.
    EXPECT_EQ(ok.find("GPU X", KsparseKernel::k2, 16)->params.lambda, 0);
    write_bytes(file,
                "k4 bs=8 N_ta=8 N_brows_ta=1 N_tg=0 nb=0 ept=16 lambda=64 seconds=2e-05 tried=27 "
                "device=GPU X\n");
    const TuningCache k4(file);
    ASSERT_TRUE(k4.find("GPU X", KsparseKernel::k4, 8));
    EXPECT_EQ(k4.find("GPU X", KsparseKernel::k4, 8)->params.lambda, 64);
    EXPECT_EQ(k4.find("GPU X", KsparseKernel::k4, 8)->params.balance, KsparseBalance::automatic);
}

TEST_F(TuningCacheTest, PutRejectsWhatCannotBeReadBack) {
    TuningCache cache(path("cache.txt"));
    TunedEntry e;
    e.params = ksparse_candidates(KsparseKernel::k2, 8).front();
    e.bs = 8;
    e.seconds = 1e-5;
    EXPECT_NO_THROW(cache.put(kH100, e));
    EXPECT_THROW(cache.put("", e), Error);
    EXPECT_THROW(cache.put("two\nlines", e), Error);
    TunedEntry bad = e;
    bad.params.kernel = KsparseKernel::automatic;
    EXPECT_THROW(cache.put(kH100, bad), Error);
    bad = e;
    bad.bs = 0;
    EXPECT_THROW(cache.put(kH100, bad), Error);
    bad = e;
    bad.seconds = std::numeric_limits<double>::infinity();
    EXPECT_THROW(cache.put(kH100, bad), Error);
    bad = e;
    bad.params.groups = -1;
    EXPECT_THROW(cache.put(kH100, bad), Error);
    bad = e;
    bad.params.balance = KsparseBalance::on;
    EXPECT_THROW(cache.put(kH100, bad), Error);
    bad = e;
    bad.params.lambda = -2;
    EXPECT_THROW(cache.put(kH100, bad), Error);
    TunedEntry k4 = e;  // K4's shape: balance automatic (its only layout), not off
    k4.params = ksparse_candidates(KsparseKernel::k4, 8).front();
    EXPECT_NO_THROW(cache.put(kH100, k4));
    k4.params.balance = KsparseBalance::off;
    EXPECT_THROW(cache.put(kH100, k4), Error);
    EXPECT_EQ(cache.size(), 2u);
}

TEST_F(TuningCacheTest, TunedOrDefault) {
    TuningCache cache(path("cache.txt"));
    const KsparseParams d = tuned_or_default(cache, kH100, KsparseKernel::k3, 90);
    KsparseParams expected;
    expected.kernel = KsparseKernel::k3;
    EXPECT_EQ(fields(d), fields(expected));
    FakeTimer t;
    tune_ksparse(kH100, KsparseKernel::k3, 90, std::ref(t), cache);
    const KsparseParams p = tuned_or_default(cache, kH100, KsparseKernel::k3, 90);
    EXPECT_EQ(p.kernel, KsparseKernel::k3);
    EXPECT_EQ(p.nb, 32);
    EXPECT_EQ(p.groups, 4);
    EXPECT_EQ(p.ept, 2);
    EXPECT_EQ(tuned_or_default(cache, kH200, KsparseKernel::k3, 90).nb, 0);
}

using test::ScopedEnv;

TEST(TuningCacheDefaultPath, FollowsTheEnvironment) {
    {
        ScopedEnv a("HEPTANE_TUNING_CACHE", "/some/where/tuning.txt");
        ScopedEnv b("XDG_CACHE_HOME", "/xdg");
        EXPECT_EQ(TuningCache::default_path(), "/some/where/tuning.txt");
    }
    ScopedEnv a("HEPTANE_TUNING_CACHE", nullptr);
    {
        ScopedEnv b("XDG_CACHE_HOME", "/xdg");
        ScopedEnv c("HOME", "/home/u");
        EXPECT_EQ(TuningCache::default_path(), "/xdg/heptane/ksparse_tuning.txt");
    }
    {
        ScopedEnv b("XDG_CACHE_HOME", "relative/ignored");
        ScopedEnv c("HOME", "/home/u");
        EXPECT_EQ(TuningCache::default_path(), "/home/u/.cache/heptane/ksparse_tuning.txt");
    }
    {
        ScopedEnv e("HEPTANE_TUNING_CACHE", "");
        ScopedEnv b("XDG_CACHE_HOME", nullptr);
        ScopedEnv c("HOME", "/home/u");
        EXPECT_EQ(TuningCache::default_path(), "/home/u/.cache/heptane/ksparse_tuning.txt");
    }
    {
        ScopedEnv b("XDG_CACHE_HOME", nullptr);
        ScopedEnv c("HOME", nullptr);
        EXPECT_EQ(TuningCache::default_path(), "./heptane_ksparse_tuning.txt");
    }
}

}  // namespace
}  // namespace heptane
