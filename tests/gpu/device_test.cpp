// GPU backend build and device queries. The fixture tests skip without a device and must
// pass on the H100/H200 machines (sm_90).
#include "gpu/device.hpp"

#include <gtest/gtest.h>

#include "common/gpu_test.hpp"

namespace heptane::gpu {
namespace {

TEST(GpuBuild, BackendMatchesTheBuildConfiguration) {
    EXPECT_EQ(compiled_with_cuda(), static_cast<bool>(HEPTANE_TEST_HAVE_CUDA));
    if (!compiled_with_cuda()) {
        EXPECT_EQ(device_count(), 0);
        EXPECT_TRUE(list_devices().empty());
    }
}

class DeviceQuery : public test::GpuTest {};

TEST_F(DeviceQuery, ListsEveryDeviceWithItsProperties) {
    const auto devices = list_devices();
    ASSERT_EQ(static_cast<int>(devices.size()), device_count());
    for (const DeviceInfo& d : devices) {
        EXPECT_FALSE(d.name.empty());
        EXPECT_GT(d.multiprocessors, 0);
        EXPECT_GT(d.global_memory_bytes, 0u);
        // The build targets sm_90 only: the device must be Hopper (or newer) to run it.
        EXPECT_GE(d.compute_major, 9) << d.name;
        EXPECT_TRUE(d.cooperative_launch) << "persistent solvers need cooperative launch";
    }
    EXPECT_NE(runtime_version().find("runtime"), std::string::npos);
}

}  // namespace
}  // namespace heptane::gpu
