#pragma once
/// @file Checked CUDA calls: every CUDA runtime call goes through HEPTANE_CUDA_CHECK, which
/// throws CudaError with the expression, file, line, function and CUDA's error string.
/// HEPTANE_SYNC_CHECK(stream) (after launches) also synchronizes when HEPTANE_SYNC_CHECKS is
/// defined (Debug builds) so an asynchronous kernel fault is reported at its launch.
#include <cuda_runtime.h>

#include <string>

#include "core/base/errors.hpp"

namespace heptane::gpu::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* expr, const char* file,
                                          int line, const char* func) {
    throw CudaError(std::string(file) + ":" + std::to_string(line) + " in " + func + ": " + expr +
                    " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

}  // namespace heptane::gpu::detail

#define HEPTANE_CUDA_CHECK(expr)                                                              \
    do {                                                                                      \
        const cudaError_t heptane_err_ = (expr);                                              \
        if (heptane_err_ != cudaSuccess) {                                                    \
            ::heptane::gpu::detail::throw_cuda_error(heptane_err_, #expr, __FILE__, __LINE__, \
                                                     __func__);                               \
        }                                                                                     \
    } while (0)

/// After a launch on `stream`: the launch error; with HEPTANE_SYNC_CHECKS (Debug) also a
/// synchronization, unless the stream is being captured into a graph.
#ifdef HEPTANE_SYNC_CHECKS
#define HEPTANE_SYNC_CHECK(stream)                                              \
    do {                                                                        \
        HEPTANE_CUDA_CHECK(cudaGetLastError());                                 \
        cudaStreamCaptureStatus heptane_capture_ = cudaStreamCaptureStatusNone; \
        HEPTANE_CUDA_CHECK(cudaStreamIsCapturing((stream), &heptane_capture_)); \
        if (heptane_capture_ == cudaStreamCaptureStatusNone) {                  \
            HEPTANE_CUDA_CHECK(cudaStreamSynchronize(stream));                  \
        }                                                                       \
    } while (0)
#else
#define HEPTANE_SYNC_CHECK(stream) HEPTANE_CUDA_CHECK(cudaGetLastError())
#endif
