#pragma once
/// @file A file in the temporary folder, named after the running test plus a counter (so
/// several files of one test never share a path), removed at scope exit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace heptane::test {

class TempFile {
  public:
    /// Reserves a unique path; nothing is created.
    TempFile() {
        static std::atomic<int> counter{0};
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        const std::string test = info != nullptr
                                     ? std::string(info->test_suite_name()) + "_" + info->name()
                                     : std::string("global");
        path_ = (std::filesystem::temp_directory_path() /
                 ("heptane_" + test + "_" + std::to_string(::getpid()) + "_" +
                  std::to_string(counter++) + ".txt"))
                    .string();
    }
    /// Creates the file with `contents`.
    explicit TempFile(const std::string& contents) : TempFile() {
        std::ofstream(path_, std::ios::binary) << contents;
    }
    ~TempFile() { std::remove(path_.c_str()); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

}  // namespace heptane::test
