#include "app/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/base/errors.hpp"

namespace heptane::app {

void check_output_path(const std::string& path, const std::string& key) {
    namespace fs = std::filesystem;
    if (path.empty()) throw InputError(key, "an empty path");
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        throw InputError(key, "cannot write '" + path + "': it is a folder");
    }
    const fs::path dir = fs::path(path).parent_path();
    if (!dir.empty() && !fs::is_directory(dir, ec)) {
        throw InputError(
            key, "cannot write '" + path + "': folder '" + dir.string() + "' does not exist");
    }
}

AtomicOutput::AtomicOutput(std::string final_path)
    : final_(std::move(final_path)),
      temp_(final_ + ".tmp-" + std::to_string(static_cast<long>(::getpid()))) {}

AtomicOutput::~AtomicOutput() {
    if (!committed_) std::remove(temp_.c_str());
}

void AtomicOutput::commit() {
    if (std::rename(temp_.c_str(), final_.c_str()) != 0) {
        throw Error("cannot rename '" + temp_ + "' to '" + final_ + "': " + std::strerror(errno));
    }
    committed_ = true;
}

}  // namespace heptane::app
