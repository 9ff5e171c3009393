// libFuzzer entry point of one fuzz target (fuzz/CMakeLists.txt defines HEPTANE_FUZZ_TARGET).
#include <cstddef>
#include <cstdint>

#include "fuzz/targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    HEPTANE_FUZZ_TARGET(data, size);
    return 0;
}
