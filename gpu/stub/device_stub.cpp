// gpu/ built without CUDA: the same API; queries report no devices, operations throw
// NotCompiled.
#include "gpu/device.hpp"

namespace heptane::gpu {

bool compiled_with_cuda() { return false; }
int device_count() { return 0; }
std::vector<DeviceInfo> list_devices() { return {}; }
std::string runtime_version() { return "not compiled"; }

}  // namespace heptane::gpu
