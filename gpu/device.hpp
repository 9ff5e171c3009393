#pragma once
/// @file GPU backend: build and device queries. CUDA-free (plain C++), so host code and
/// tests build without nvcc. Queries never throw: without CUDA (the stub) or without a
/// device they report zero devices; operations that need a GPU throw NotCompiled (stub) or
/// CudaError.
#include <cstddef>
#include <string>
#include <vector>

namespace heptane::gpu {

/// Whether this build contains the CUDA backend (false: gpu/ was built as the stub).
bool compiled_with_cuda();

/// Number of usable CUDA devices; 0 without CUDA, without a driver or on any CUDA error.
int device_count();

struct DeviceInfo {
    int id = 0;
    std::string name;
    int compute_major = 0, compute_minor = 0;
    int multiprocessors = 0;
    std::size_t global_memory_bytes = 0;
    std::size_t l2_cache_bytes = 0;
    int memory_bus_width_bits = 0;
    bool cooperative_launch = false;
};

/// One entry per usable device (empty when device_count() == 0).
std::vector<DeviceInfo> list_devices();

/// Whether device `from` can read and write device `to`'s memory directly (peer access over
/// NVLink or PCIe); false without CUDA, for from == to, or on any CUDA error.
bool peer_access(int from, int to);

/// CUDA runtime and driver versions as "runtime X.Y, driver X.Y"; "not compiled" for the
/// stub.
std::string runtime_version();

}  // namespace heptane::gpu
