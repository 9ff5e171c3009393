#pragma once
// The fixture of the `heptane run` tests (run_test.cpp, run_precond_test.cpp,
// run_matrix_deck_test.cpp): a scratch folder per test, the names they share, perturb.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/cli_runner.hpp"
#include "common/test_systems.hpp"

namespace heptane::app {

// The names every run test uses.
namespace fs = std::filesystem;
using test::CliResult;
using test::run_heptane;
using test::source_path;

/// A fresh, empty folder per test, removed at the end.
class RunTest : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = std::filesystem::temp_directory_path() /
               ("heptane_run_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    std::vector<std::string> files() const {
        std::vector<std::string> out;
        for (const auto& f : std::filesystem::directory_iterator(dir_))
            out.push_back(f.path().filename().string());
        return out;
    }
    std::filesystem::path dir_;
};

/// Multiplies entry `i` of a dataset by (1 + rel) in place.
inline void perturb(const std::string& file, const char* dataset, std::size_t i, double rel) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
    const hid_t space = H5Dget_space(d);
    std::vector<double> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    v[i] *= 1.0 + rel;
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
}

/// The small two-phase deck most run tests use.
inline const std::string kSmallDeck = test::source_path("tests/app/decks/small_two_phase.yaml");

}  // namespace heptane::app
