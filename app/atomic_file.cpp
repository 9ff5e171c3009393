#include "app/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/base/errors.hpp"

namespace heptane::app {

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
