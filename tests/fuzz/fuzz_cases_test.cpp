// Replays tests/fuzz/cases/TARGET/* through the fuzz targets (fuzz/targets.hpp): each input
// must be accepted or refused as bad input (InputError), never crash or throw anything else.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/targets.hpp"

namespace {

namespace fs = std::filesystem;
using Target = void (*)(const std::uint8_t*, std::size_t);

std::vector<fs::path> cases(const std::string& target) {
    std::vector<fs::path> files;
    const fs::path dir = fs::path(HEPTANE_SOURCE_DIR) / "tests/fuzz/cases" / target;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

void replay(const std::string& target, Target run) {
    const std::vector<fs::path> files = cases(target);
    ASSERT_FALSE(files.empty()) << "no cases for " << target;
    for (const fs::path& f : files) {
        std::ifstream in(f, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
        ASSERT_TRUE(in.good() || in.eof()) << f;
        EXPECT_NO_THROW(run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()))
            << f.filename();
    }
}

TEST(FuzzCases, Deck) { replay("deck", heptane::fuzz::deck); }
TEST(FuzzCases, MatrixMarket) { replay("matrix_market", heptane::fuzz::matrix_market); }
TEST(FuzzCases, Eclipse) { replay("eclipse", heptane::fuzz::eclipse); }
TEST(FuzzCases, Spe10) { replay("spe10", heptane::fuzz::spe10); }

}  // namespace
