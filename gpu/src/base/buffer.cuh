#pragma once
/// @file RAII device memory.
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "gpu/src/base/cuda_check.cuh"

namespace heptane::gpu::detail {

/// Device and pinned-host allocations made by heptane since the process started
/// (gpu::device_allocations()): every RAII owner below counts its allocation here.
inline std::atomic<long long> g_device_allocations{0};
inline void count_allocation() { g_device_allocations.fetch_add(1, std::memory_order_relaxed); }

/// n elements of T in device memory; move-only; freed on destruction.
template <class T>
class Buffer {
  public:
    Buffer() = default;
    explicit Buffer(std::size_t n) : n_(n) {
        if (n_ > 0) {
            HEPTANE_CUDA_CHECK(cudaMalloc(&ptr_, n_ * sizeof(T)));
            count_allocation();
        }
    }
    explicit Buffer(const std::vector<T>& host) : Buffer(host.size()) { upload(host); }
    Buffer(Buffer&& o) noexcept : ptr_(o.ptr_), n_(o.n_) {
        o.ptr_ = nullptr;
        o.n_ = 0;
    }
    Buffer& operator=(Buffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = o.ptr_;
            n_ = o.n_;
            o.ptr_ = nullptr;
            o.n_ = 0;
        }
        return *this;
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { release(); }

    T* get() const { return ptr_; }
    std::size_t size() const { return n_; }
    std::size_t bytes() const { return n_ * sizeof(T); }

    /// Copies `host` (at most size() elements) to the start of the buffer.
    void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
        if (host.size() > n_) throw std::logic_error("Buffer::upload: more elements than size()");
        if (!host.empty()) {
            HEPTANE_CUDA_CHECK(cudaMemcpyAsync(ptr_, host.data(), host.size() * sizeof(T),
                                               cudaMemcpyHostToDevice, stream));
        }
    }
    std::vector<T> download(cudaStream_t stream = nullptr) const {
        std::vector<T> host(n_);
        if (n_ > 0) {
            HEPTANE_CUDA_CHECK(
                cudaMemcpyAsync(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost, stream));
            HEPTANE_CUDA_CHECK(cudaStreamSynchronize(stream));
        }
        return host;
    }
    void zero(cudaStream_t stream = nullptr) {
        if (n_ > 0) HEPTANE_CUDA_CHECK(cudaMemsetAsync(ptr_, 0, bytes(), stream));
    }

  private:
    void release() {
        if (ptr_ != nullptr) cudaFree(ptr_);  // no throw from a destructor
        ptr_ = nullptr;
    }
    T* ptr_ = nullptr;
    std::size_t n_ = 0;
};

/// Pinned host memory of n doubles (RAII), counted as a device allocation; mapped into the
/// device's address space (kernels may write into it).
class Pinned {
  public:
    explicit Pinned(std::size_t n) : n_(n) {
        HEPTANE_CUDA_CHECK(
            cudaHostAlloc(&p_, (n > 0 ? n : 1) * sizeof(double), cudaHostAllocMapped));
        count_allocation();
    }
    Pinned(const Pinned&) = delete;
    Pinned& operator=(const Pinned&) = delete;
    ~Pinned() { cudaFreeHost(p_); }
    double* get() const { return p_; }
    std::size_t size() const { return n_; }

  private:
    double* p_ = nullptr;
    std::size_t n_ = 0;
};

}  // namespace heptane::gpu::detail
