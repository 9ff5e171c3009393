#pragma once
/// @file A file (TempFile) or a folder (TempFolder) in the temporary folder, named after the
/// running test plus a counter (so several of one test never share a path), removed at scope
/// exit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace heptane::test {

/// A path in the temporary folder unique to this test, process and call.
inline std::string unique_temp_path(const char* suffix) {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string test = info != nullptr ? std::string(info->test_suite_name()) + "_" + info->name()
                                       : std::string("global");
    for (char& c : test) c = c == '/' ? '_' : c;  // parameterized names
    return (std::filesystem::temp_directory_path() /
            ("heptane_" + test + "_" + std::to_string(::getpid()) + "_" +
             std::to_string(counter++) + suffix))
        .string();
}

class TempFile {
  public:
    /// Reserves a unique path; nothing is created.
    TempFile() : path_(unique_temp_path(".txt")) {}
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

/// An empty folder, removed with everything in it at scope exit.
class TempFolder {
  public:
    TempFolder() : path_(unique_temp_path("")) { std::filesystem::create_directories(path_); }
    ~TempFolder() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

}  // namespace heptane::test
