#pragma once
/// @file What the library BiCGStab and QMR objects (bicgstab_library.cu, qmr_library.cu)
/// share: the cuSPARSE matrix (and QMR's explicit transpose), the cuBLAS handle, b and x
/// (padded to whole blocks for BSR), the device state and residual history; update_values;
/// and the frame of a solve: ||b||, batches of check_interval iterations with one look at
/// the device state after each, the true residual and the result. An algorithm supplies its
/// vectors and scalars, iteration 0, one iteration, and what happens after a batch.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/krylov/linear_solver.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "core/matrix/linear_operator.hpp"
#include "gpu/solver.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/solver_state.cuh"
#include "gpu/src/krylov/library_matrix.cuh"

namespace heptane::gpu::detail {

class LibrarySolver : public GpuSolver {
  public:
    using GpuSolver::update_values;  // the device values' form: NotSupported here
    void update_values(const GHMatrix& A) override {
        update_values_into(info_, structure_, A, false, [&] {
            mat_->update(A);
            if (mat_t_) mat_t_->update(A);
        });
    }

    SolveResult solve(const std::vector<double>& b, std::vector<double>& x,
                      const SolveOptions& opt) override {
        check_sizes(rows_, b, x, name_);
        check_capacity(opt, capacity_, name_);
        const cudaStream_t st = stream_.get();
        upload_padded(d_b_, b, st);
        upload_padded(d_x_, x, st);
        reset(st);
        state_.reset(opt, st);

        // ||b|| (cuBLAS), then iteration 0.
        EventTimer solve_timer(st);
        const double host_bnorm = library_norm(*handle_, d_b_.get(), &state_.device()->bnorm);
        if (SolveResult trivial; trivial_rhs(host_bnorm, x, trivial)) return trivial;
        start(st);
        SolverState host = state_.download(st);
        const int batch = std::max(check_interval_, 1);
        const long long limit = launch_limit(opt, batch);
        long long launched = 0;
        while (host.status == kRunning && launched < limit) {
            for (int i = 0; i < batch; ++i) iteration(st);
            launched += batch;
            host = state_.download(st);
            host = after_batch(host, st);
            if (opt.progress && host.iterations > 0) {
                opt.progress(host.iterations, host.relative_residual);
            }
        }
        // True residual ||b - A x|| / ||b||.
        library_residual(*mat_, *handle_, d_b_.get(), d_x_.get(), scratch());
        const double true_norm = library_norm(*handle_, scratch(), norm_.get());
        info_.solve_seconds = solve_timer.seconds();
        host = state_.download(st);
        host.true_relative_residual = true_norm / host_bnorm;

        std::vector<double> xs;
        SolveResult result = finish_solve(host, d_x_, history_, xs, 0.0, 0.0, nullptr, st, quasi());
        xs.resize(static_cast<std::size_t>(rows_));  // BSR's padding unknowns
        x = std::move(xs);
        return result;
    }

    SolverInfo info() const override { return info_; }

  protected:
    /// `transpose`: also store A^T (QMR's A^T q; cuSPARSE's BSR SpMV has no transposed op).
    LibrarySolver(const char* name, Method method, const GHMatrix& A,
                  const GpuSolveOptions& options, bool transpose)
        : t0_(SetupClock::now()),
          name_(name),
          structure_(A),
          rows_(A.rows()),
          capacity_(options.solve.max_iterations),
          check_interval_(options.check_interval),
          mat_(std::make_unique<LibraryMatrix>(A, options.library_spmv, stream_.get())),
          mat_t_(transpose
                     ? std::make_unique<LibraryMatrix>(A, options.library_spmv, stream_.get(), true)
                     : nullptr),
          n_(mat_->size()),
          d_b_(static_cast<std::size_t>(n_)),
          d_x_(static_cast<std::size_t>(n_)),
          history_(static_cast<std::size_t>(std::max(capacity_, 0)) + 1),
          norm_(1),
          state_(options.solve),
          handle_(std::make_unique<BlasHandle>(stream_.get(), n_)) {
        info_.backend = "gpu";
        info_.kernel = std::string("library/") + to_string(options.library_spmv);
        info_.cost = cost(method, GpuKernel::library);
        info_.bytes_per_iteration =
            iteration_bytes(method, PreconditionerKind::none, options.block_shape, A,
                            GHOperator(A).minimal_bytes(), info_.cost);
        info_.counts.matrix_uploads = 1;
    }

    /// The end of the algorithm's constructor: the setup time.
    void finish_setup() {
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
        info_.workspace_bytes = d_b_.bytes() * workspace_vectors_;
        info_.setup_seconds = seconds_since(t0_);
    }

    /// A vector of the matrix's (padded) order.
    Buffer<double> vector() {
        ++workspace_vectors_;
        return Buffer<double>(static_cast<std::size_t>(n_));
    }

    /// Zeros the scalars and the vectors whose old values a first iteration multiplies by 0.
    virtual void reset(cudaStream_t st) = 0;
    /// Iteration 0: r = b - A x and what the algorithm derives from it.
    virtual void start(cudaStream_t st) = 0;
    virtual void iteration(cudaStream_t st) = 0;
    /// Iterations launched at most (every launched iteration either ends the solve or counts).
    virtual long long launch_limit(const SolveOptions& opt, int /*batch*/) const {
        return opt.max_iterations;
    }
    /// After each batch (BiCGStab: the shadow-residual restart the host performs).
    virtual SolverState after_batch(const SolverState& host, cudaStream_t /*st*/) { return host; }
    /// A vector the true residual may overwrite.
    virtual double* scratch() = 0;
    virtual const Buffer<double>* quasi() const { return nullptr; }

    LibraryMatrix& mat() { return *mat_; }
    LibraryMatrix& mat_t() { return *mat_t_; }
    const BlasHandle& handle() const { return *handle_; }
    cublasHandle_t blas() const { return handle_->get(); }
    int ni() const { return handle_->n(); }
    int capacity() const { return capacity_; }
    double* d_b() const { return d_b_.get(); }
    double* d_x() const { return d_x_.get(); }
    double* history() const { return history_.get(); }
    SolverState* state() const { return state_.device(); }
    const DeviceState& device_state() const { return state_; }

  private:
    SetupClock::time_point t0_;
    const char* name_;
    GHStructure structure_;
    long long rows_;
    int capacity_, check_interval_;
    Stream stream_;
    std::unique_ptr<LibraryMatrix> mat_, mat_t_;
    long long n_;
    Buffer<double> d_b_, d_x_, history_, norm_;
    DeviceState state_;
    std::unique_ptr<BlasHandle> handle_;
    int workspace_vectors_ = 2;  ///< b and x
    SolverInfo info_;
};

}  // namespace heptane::gpu::detail
