#pragma once
/// @file Device-resident state of a GPU Krylov solve: the scalars, the status and the gates
/// that let graph-replayed kernels skip work once the solve has ended (or skip the restart
/// branch), with the reference solver's rules (core/krylov/krylov.cpp) for recording an iteration
/// and for breakdown. Plus small RAII helpers: stream, graph, events, pinned state copy.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/krylov/bicgstab_recurrence.hpp"
#include "core/krylov/krylov.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/krylov/qmr_recurrence.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/cuda_check.cuh"

namespace heptane::gpu::detail {

enum Status : int {
    kRunning = 0,
    kConverged = 1,
    kMaxIterations = 2,
    kBreakdown = 3,
    kNonFinite = 4
};
enum Detail : int {
    kDetailNone = 0,
    kDetailRhoNonFinite,
    kDetailRhoZero,
    kDetailSigma,
    kDetailTT,
    kDetailOmega,
    kDetailResidual,
    // QMR (the CPU reference's messages)
    kDetailQmrRho,  ///< rho = ||v~|| = 0
    kDetailQmrXi,   ///< xi = ||z|| = 0
    kDetailDelta,
    kDetailEpsilon,
    kDetailBeta,
    kDetailGamma,
};

/// The reference's SolverFrame rules on anything with its result fields (SolverState; the
/// in-kernel solvers' frame). Records iteration `it` with residual norm `norm`: the relative
/// residual and the status it implies (converged, non_finite, or still running).
template <class S>
__device__ void record_residual(S& s, int it, double norm) {
    s.iterations = it;
    s.relative_residual = norm / s.bnorm;
    if (!std::isfinite(s.relative_residual)) {
        s.status = kNonFinite;
        s.detail = kDetailResidual;
        s.detail_iteration = it;
    } else if (s.relative_residual <= s.tolerance) {
        s.status = kConverged;
    }
}

/// Breakdown on a zero (non_finite on a non-finite) `value` of quantity `what`.
template <class S>
__device__ void record_failure(S& s, double value, int what, int it) {
    s.status = std::isfinite(value) ? kBreakdown : kNonFinite;
    s.detail = what;
    s.detail_value = value;
    s.detail_iteration = it;
}

struct SolverState {
    double bnorm, r_norm, s_norm;
    double tolerance, relative_residual, true_relative_residual, detail_value;
    int iterations, status, restarts, max_restarts, max_iterations;
    int restart_pending, half_step, detail, detail_iteration;
    BicgstabRecurrence
        bicg;  ///< BiCGStab's scalars and rules (core/krylov/bicgstab_recurrence.hpp)
    // Gates (1 = skip), kept consistent by update_gates():
    int skip_iteration;  ///< the solve has ended
    int skip_t;          ///< ... or converged at the half step (no t = A s)
    int skip_restart;    ///< no restart pending
    // QMR: rho = ||v~||, xi = ||z|| (z = M^{-T} w~, w~ without a preconditioner),
    // beta = epsilon / delta; rho_next: the iteration's ||v~|| until ||z|| is known
    double rho, beta, xi, delta, epsilon, rho_next;
    QmrRecurrence qmr;

    __device__ void update_gates() {
        skip_iteration = status != kRunning;
        skip_t = skip_iteration || half_step;
        skip_restart = skip_iteration || !restart_pending;
    }
    /// Breakdown on a zero (non_finite on a non-finite) `value`, as SolverFrame::fail.
    __device__ void fail(double value, int what, int it) {
        record_failure(*this, value, what, it);
        update_gates();
    }
    /// Records iteration `it` with residual norm `norm`; true when the solve ends
    /// (converged or non-finite), as SolverFrame::record.
    __device__ bool record(int it, double norm, double* history) {
        record_residual(*this, it, norm);
        history[it] = relative_residual;
        update_gates();
        return status != kRunning;
    }
};

/// The state in device memory with a pinned host copy for the periodic looks.
class DeviceState {
  public:
    explicit DeviceState(const SolveOptions& opt) {
        const SolverState s = initial(opt);
        HEPTANE_CUDA_CHECK(cudaMalloc(&device_, sizeof(SolverState)));
        count_allocation();
        HEPTANE_CUDA_CHECK(cudaMallocHost(&host_, sizeof(SolverState)));
        count_allocation();
        HEPTANE_CUDA_CHECK(cudaMemcpy(device_, &s, sizeof s, cudaMemcpyHostToDevice));
    }
    /// The initial state of a new solve with `opt` (no allocation).
    void reset(const SolveOptions& opt, cudaStream_t stream) {
        *host_ = initial(opt);
        HEPTANE_CUDA_CHECK(
            cudaMemcpyAsync(device_, host_, sizeof(SolverState), cudaMemcpyHostToDevice, stream));
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(stream));  // host_ is reused by download
    }
    static SolverState initial(const SolveOptions& opt) {
        SolverState s{};
        s.tolerance = opt.tolerance;
        s.max_iterations = opt.max_iterations;
        s.max_restarts = opt.max_restarts;
        s.status = kRunning;
        s.skip_restart = 1;
        return s;
    }
    DeviceState(const DeviceState&) = delete;
    DeviceState& operator=(const DeviceState&) = delete;
    ~DeviceState() {
        cudaFree(device_);
        cudaFreeHost(host_);
    }
    SolverState* device() const { return device_; }
    /// Copies the state to the host (synchronizes `stream`).
    SolverState download(cudaStream_t stream) const {
        HEPTANE_CUDA_CHECK(
            cudaMemcpyAsync(host_, device_, sizeof(SolverState), cudaMemcpyDeviceToHost, stream));
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(stream));
        return *host_;
    }

  private:
    SolverState* device_ = nullptr;
    SolverState* host_ = nullptr;
};

/// Replays the graph of one iteration in batches of check_interval launches, looking at the
/// device state after each batch only (the host's one round trip), until the solve has ended
/// or max_iterations iterations were launched; `look` (if given), then progress, after each look.
inline void replay_iterations(cudaGraphExec_t exec, const DeviceState& state,
                              const GpuSolveOptions& options, cudaStream_t st,
                              const std::function<void()>& look = {}) {
    const SolveOptions& opt = options.solve;
    SolverState host = state.download(st);
    int launched = 0;
    while (host.status == kRunning && launched < opt.max_iterations) {
        const int batch =
            std::min(std::max(options.check_interval, 1), opt.max_iterations - launched);
        for (int i = 0; i < batch; ++i) HEPTANE_CUDA_CHECK(cudaGraphLaunch(exec, st));
        launched += batch;
        host = state.download(st);
        if (look) look();
        if (opt.progress && host.iterations > 0) {
            opt.progress(host.iterations, host.relative_residual);
        }
    }
}

class Stream {
  public:
    Stream() { HEPTANE_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream() { cudaStreamDestroy(s_); }
    cudaStream_t get() const { return s_; }

  private:
    cudaStream_t s_ = nullptr;
};

class GraphExec {
  public:
    explicit GraphExec(cudaGraph_t graph) {
        HEPTANE_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph, 0));
    }
    GraphExec(const GraphExec&) = delete;
    GraphExec& operator=(const GraphExec&) = delete;
    ~GraphExec() { cudaGraphExecDestroy(exec_); }
    cudaGraphExec_t get() const { return exec_; }

  private:
    cudaGraphExec_t exec_ = nullptr;
};

/// Seconds between construction and seconds() on `stream` (CUDA events).
class EventTimer {
  public:
    explicit EventTimer(cudaStream_t stream) : stream_(stream) {
        HEPTANE_CUDA_CHECK(cudaEventCreate(&start_));
        HEPTANE_CUDA_CHECK(cudaEventCreate(&stop_));
        HEPTANE_CUDA_CHECK(cudaEventRecord(start_, stream_));
    }
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;
    ~EventTimer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    double seconds() {
        HEPTANE_CUDA_CHECK(cudaEventRecord(stop_, stream_));
        HEPTANE_CUDA_CHECK(cudaEventSynchronize(stop_));
        float ms = 0.0f;
        HEPTANE_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return 1e-3 * ms;
    }

  private:
    cudaStream_t stream_;
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

using SetupClock = std::chrono::steady_clock;

/// Wall seconds since t0 (a solver object's setup and update_values).
inline double seconds_since(SetupClock::time_point t0) {
    return std::chrono::duration<double>(SetupClock::now() - t0).count();
}

/// b or x into a device vector of the operator's order: the system's entries, zeros after
/// them (the padding unknowns of the BSR form, design decision 4).
inline void upload_padded(Buffer<double>& d, const std::vector<double>& v, cudaStream_t st) {
    if (d.size() > v.size()) d.zero(st);
    if (!v.empty()) {
        HEPTANE_CUDA_CHECK(cudaMemcpyAsync(d.get(), v.data(), v.size() * sizeof(double),
                                           cudaMemcpyHostToDevice, st));
    }
}

/// n doubles from src to dst, both on the device (solve_device's b and x).
inline void copy_on_device(double* dst, const double* src, long long n, cudaStream_t st) {
    if (n > 0 && dst != src) {
        HEPTANE_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(n) * sizeof(double),
                                           cudaMemcpyDeviceToDevice, st));
    }
}

/// x = 0 for n doubles on the device.
inline void zero_on_device(double* x, long long n, cudaStream_t st) {
    if (n > 0) {
        HEPTANE_CUDA_CHECK(cudaMemsetAsync(x, 0, static_cast<std::size_t>(n) * sizeof(double), st));
    }
}

/// update_values' frame for every GPU solver object: checks the structure, runs `copy` (the new
/// values into the object's buffers, the preconditioner re-factored), counts and times it.
template <class Copy>
void update_values_into(SolverInfo& info, bool factors, Copy copy) {
    const auto t0 = SetupClock::now();
    copy();
    ++info.counts.matrix_uploads;
    if (factors) ++info.counts.factorizations;
    info.update_seconds = seconds_since(t0);
}

/// The same for new values of A from the host, whose structure is checked first.
template <class Copy>
void update_values_into(SolverInfo& info, const GHStructure& structure, const GHMatrix& A,
                        bool factors, Copy copy) {
    update_values_into(info, factors, [&] {
        structure.check(A, "update_values");
        copy();
    });
}

/// A solve may not ask for more iterations than its solver object's residual histories hold.
inline void check_capacity(const SolveOptions& opt, int capacity, const char* solver) {
    if (opt.max_iterations > capacity) {
        throw std::invalid_argument(std::string(solver) + ": max_iterations " +
                                    std::to_string(opt.max_iterations) +
                                    " exceeds the solver's capacity " + std::to_string(capacity));
    }
}

/// Checks b and x against A (std::invalid_argument naming the solver).
inline void check_sizes(long long rows, const std::vector<double>& b, const std::vector<double>& x,
                        const char* solver) {
    if (static_cast<long long>(b.size()) != rows || static_cast<long long>(x.size()) != rows) {
        throw std::invalid_argument(std::string(solver) + ": b and x must have A.rows() entries");
    }
}

/// The reference's exits before the first iteration: ||b|| = 0 (x = 0 is exact) or a
/// non-finite b. Returns true (and sets `result`, and x for b = 0) when the solve ends here.
inline bool trivial_rhs(double bnorm, std::vector<double>& x, SolveResult& result) {
    if (std::isfinite(bnorm) && bnorm != 0.0) return false;
    result = SolveResult{};
    if (bnorm == 0.0) {
        x.assign(x.size(), 0.0);
        result.status = SolveStatus::converged;
        result.history = {0.0};
    } else {
        result.status = SolveStatus::non_finite;
        result.detail = "||b|| is not finite";
    }
    return true;
}

/// The SolveResult of a finished device solve; `quasi` (QMR's tau_i / ||b||, iterations + 1
/// entries used) may be empty.
inline SolveResult to_result(const SolverState& s, const std::vector<double>& history,
                             const std::vector<double>& quasi = {}) {
    SolveResult r;
    switch (s.status) {
        case kConverged:
            r.status = SolveStatus::converged;
            break;
        case kBreakdown:
            r.status = SolveStatus::breakdown;
            break;
        case kNonFinite:
            r.status = SolveStatus::non_finite;
            break;
        default:
            r.status = SolveStatus::max_iterations;
            break;  // also never started
    }
    r.iterations = s.iterations;
    r.restarts = s.restarts;
    r.relative_residual = s.relative_residual;
    r.true_relative_residual = s.true_relative_residual;
    r.history.assign(history.begin(), history.begin() + s.iterations + 1);
    if (!quasi.empty()) r.quasi_history.assign(quasi.begin(), quasi.begin() + s.iterations + 1);
    char value[32];
    std::snprintf(value, sizeof value, "%.6g", s.detail_value);
    const std::string at = " at iteration " + std::to_string(s.detail_iteration);
    switch (s.detail) {
        case kDetailRhoNonFinite:
            r.detail = "rho = (r_hat, r) is not finite" + at;
            break;
        case kDetailRhoZero:
            r.detail = std::string("rho = (r_hat, r) = ") + value + " (numerically zero, " +
                       std::to_string(s.restarts) + " restarts)" + at;
            break;
        case kDetailSigma:
            r.detail = std::string("(r_hat, A p) = ") + value + at;
            break;
        case kDetailTT:
            r.detail = std::string("(t, t) = ") + value + at;
            break;
        case kDetailOmega:
            r.detail = "omega = (t, s) / (t, t) = 0" + at;
            break;
        case kDetailResidual:
            r.detail = "the residual is not finite" + at;
            break;
        case kDetailQmrRho:
            r.detail = "rho = ||v~|| = 0" + at;
            break;
        case kDetailQmrXi:
            r.detail = "xi = ||z|| = 0" + at;
            break;
        case kDetailDelta:
            r.detail = std::string("delta = z^T y = ") + value + at;
            break;
        case kDetailEpsilon:
            r.detail = std::string("epsilon = q^T A p = ") + value + at;
            break;
        case kDetailBeta:
            r.detail = "beta = epsilon / delta = 0" + at;
            break;
        case kDetailGamma:
            r.detail = "gamma = 0" + at;
            break;
        default:
            break;
    }
    return r;
}

/// The end of a device solve: x from the device, the times, the SolveResult (with QMR's
/// quasi-residual history when `quasi` is given).
inline SolveResult finish_solve(const SolverState& host, const Buffer<double>& d_x,
                                const Buffer<double>& history, std::vector<double>& x,
                                double setup_seconds, double solve_seconds, GpuSolveTimes* times,
                                cudaStream_t stream, const Buffer<double>* quasi = nullptr) {
    x = d_x.download(stream);
    if (times != nullptr) {
        times->setup_seconds = setup_seconds;
        times->solve_seconds = solve_seconds;
    }
    return to_result(host, history.download(stream),
                     quasi != nullptr ? quasi->download(stream) : std::vector<double>{});
}

}  // namespace heptane::gpu::detail
