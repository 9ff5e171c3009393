#include "gpu/device.hpp"
#include "gpu/src/base/cuda_check.cuh"

namespace heptane::gpu {

bool compiled_with_cuda() { return true; }

int device_count() {
    int n = 0;
    // No driver, no device, or a broken installation: report zero devices so GPU tests skip.
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();  // clear the sticky-free error state
        return 0;
    }
    return n;
}

std::vector<DeviceInfo> list_devices() {
    std::vector<DeviceInfo> out;
    const int n = device_count();
    for (int id = 0; id < n; ++id) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, id) != cudaSuccess) continue;
        DeviceInfo info;
        info.id = id;
        info.name = prop.name;
        info.compute_major = prop.major;
        info.compute_minor = prop.minor;
        info.multiprocessors = prop.multiProcessorCount;
        info.global_memory_bytes = prop.totalGlobalMem;
        info.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
        info.memory_bus_width_bits = prop.memoryBusWidth;
        info.cooperative_launch = prop.cooperativeLaunch != 0;
        out.push_back(info);
    }
    return out;
}

bool peer_access(int from, int to) {
    int can = 0;
    if (from == to || cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return can != 0;
}

std::string runtime_version() {
    int runtime = 0, driver = 0;
    (void)cudaRuntimeGetVersion(&runtime);
    (void)cudaDriverGetVersion(&driver);
    auto fmt = [](int v) {
        return v == 0 ? std::string("none")
                      : std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
    };
    return "runtime " + fmt(runtime) + ", driver " + fmt(driver);
}

}  // namespace heptane::gpu
