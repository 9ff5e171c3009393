#pragma once
/// @file Output files are written to a temporary name beside the target and renamed at the
/// end (DESIGN section 6): a failed run never leaves a half-written file.
#include <string>

namespace heptane::app {

/// Throws InputError at `key` (an option or deck key) unless `path` can be written: it is not
/// empty, not an existing folder, and its folder exists. Called before any work, so that a bad
/// output path is exit 2 up front, not a failed rename after the solve.
void check_output_path(const std::string& path, const std::string& key);

class AtomicOutput {
  public:
    /// Reserves `final_path`; nothing is created until the caller writes temp_path().
    explicit AtomicOutput(std::string final_path);
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;
    /// Removes the temporary file unless commit() succeeded.
    ~AtomicOutput();

    const std::string& path() const { return final_; }
    const std::string& temp_path() const { return temp_; }
    /// Renames the temporary file to the final path (throws Error on failure).
    void commit();

  private:
    std::string final_;
    std::string temp_;
    bool committed_ = false;
};

}  // namespace heptane::app
