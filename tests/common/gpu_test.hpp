#pragma once
/// @file Fixture for GPU tests: skips (GTEST_SKIP in SetUp, never in a global Environment,
/// see googletest issue #4653) when no CUDA device is usable, so the `gpu` label reports
/// Skipped on machines without a GPU and must pass on one.
#include <gtest/gtest.h>

#include "gpu/device.hpp"

namespace heptane::test {

class GpuTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (gpu::device_count() == 0) {
            GTEST_SKIP() << (gpu::compiled_with_cuda() ? "no CUDA device" : "built without CUDA");
        }
    }
};

}  // namespace heptane::test
