#pragma once
/// @file cuSPARSE SpMV on the BSR or CSR form of a GH matrix (the library baseline) or of its
/// transpose, the checked-call macros for cuSPARSE and cuBLAS, and a cuBLAS handle.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/base/errors.hpp"
#include "core/matrix/formats.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/base/buffer.cuh"
#include "gpu/src/base/cuda_check.cuh"

#define HEPTANE_CUSPARSE_CHECK(expr)                                                            \
    do {                                                                                        \
        const cusparseStatus_t heptane_st_ = (expr);                                            \
        if (heptane_st_ != CUSPARSE_STATUS_SUCCESS) {                                           \
            throw ::heptane::CudaError(std::string(__FILE__) + ":" + std::to_string(__LINE__) + \
                                       ": " + #expr +                                           \
                                       " failed: " + cusparseGetErrorString(heptane_st_));      \
        }                                                                                       \
    } while (0)

#define HEPTANE_CUBLAS_CHECK(expr)                                                              \
    do {                                                                                        \
        const cublasStatus_t heptane_st_ = (expr);                                              \
        if (heptane_st_ != CUBLAS_STATUS_SUCCESS) {                                             \
            throw ::heptane::CudaError(std::string(__FILE__) + ":" + std::to_string(__LINE__) + \
                                       ": " + #expr +                                           \
                                       " failed: " + cublasGetStatusString(heptane_st_));       \
        }                                                                                       \
    } while (0)

namespace heptane::gpu::detail {

/// In place, the transpose of a square block-sparse matrix of `rows` block rows with bs x bs
/// row-major blocks (bs = 1: CSR): block (i, j) becomes block (j, i), itself transposed, and
/// the columns of each row stay sorted. Diagonal blocks stay on the diagonal, so the padding
/// ones of to_bsr (design decision 4) keep their place.
inline void transpose_block_sparse(std::int32_t rows, int bs, std::vector<std::int32_t>& row_ptr,
                                   std::vector<std::int32_t>& col, std::vector<double>& val) {
    const std::size_t kk = static_cast<std::size_t>(bs) * bs;
    std::vector<std::int32_t> t_ptr(static_cast<std::size_t>(rows) + 1, 0);
    for (const std::int32_t j : col) ++t_ptr[static_cast<std::size_t>(j) + 1];
    for (std::int32_t i = 0; i < rows; ++i) t_ptr[i + 1] += t_ptr[i];
    std::vector<std::int32_t> next(t_ptr.begin(), t_ptr.end() - 1);
    std::vector<std::int32_t> t_col(col.size());
    std::vector<double> t_val(val.size());
    for (std::int32_t i = 0; i < rows; ++i) {  // rows in order: the new columns come sorted
        for (std::int32_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
            const std::size_t q = static_cast<std::size_t>(next[col[p]]++);
            t_col[q] = i;
            const double* from = val.data() + static_cast<std::size_t>(p) * kk;
            double* to = t_val.data() + q * kk;
            for (int r = 0; r < bs; ++r)
                for (int c = 0; c < bs; ++c) to[c * bs + r] = from[r * bs + c];
        }
    }
    row_ptr = std::move(t_ptr);
    col = std::move(t_col);
    val = std::move(t_val);
}

/// cuSPARSE SpMV y = A x (or y = A^T x) in one of the LibrarySpmv forms; vectors of size()
/// entries.
class LibraryMatrix {
  public:
    /// `transpose`: store A^T explicitly (cuSPARSE's BSR SpMV has no transposed operation),
    /// so that apply() computes A^T x, as a library user would for QMR's A^T q.
    LibraryMatrix(const GHMatrix& A, LibrarySpmv kind, cudaStream_t stream, bool transpose = false)
        : LibraryMatrix(kind, stream) {
        transpose_ = transpose;
        if (kind != LibrarySpmv::csr && A.block_size() == 1) {
            throw NotSupported(std::string(to_string(kind)) +
                               ": cuSPARSE BSR SpMV needs blocks of 2 x 2 or more; use "
                               "csr for K = 1");
        }
        if (kind == LibrarySpmv::csr) {
            set(host_csr(A));
        } else {
            set(host_bsr(A));
        }
    }
    /// New values of a GH matrix of the same structure into the same buffers (the SpMV's
    /// preprocessing is redone in its buffer before the next product).
    void update(const GHMatrix& A) {
        const std::vector<double> val =
            kind_ == LibrarySpmv::csr ? host_csr(A).val : host_bsr(A).val;
        if (val.size() != val_.size()) {
            throw std::invalid_argument("LibraryMatrix::update: the matrix has another structure");
        }
        val_.upload(val);
        HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());  // the host array dies here
        preprocessed_ = false;
    }
    /// Any square block-sparse matrix: BSR as it is (kind bsr or bsr_legacy, blocks of 2 x 2
    /// or more), or its scalar CSR (kind csr).
    LibraryMatrix(const Bsr& A, LibrarySpmv kind, cudaStream_t stream)
        : LibraryMatrix(kind, stream) {
        if (kind == LibrarySpmv::csr) {
            set(to_csr(A));
        } else {
            if (A.block_size == 1) {
                throw NotSupported(std::string(to_string(kind)) +
                                   ": cuSPARSE BSR SpMV needs blocks of 2 x 2 or more");
            }
            set(A);
        }
    }
    LibraryMatrix(const LibraryMatrix&) = delete;
    LibraryMatrix& operator=(const LibraryMatrix&) = delete;
    ~LibraryMatrix() {
        if (mat_ != nullptr) cusparseDestroySpMat(mat_);
        if (descr_ != nullptr) cusparseDestroyMatDescr(descr_);
        if (vx_ != nullptr) cusparseDestroyDnVec(vx_);
        if (vy_ != nullptr) cusparseDestroyDnVec(vy_);
        cusparseDestroy(handle_);
    }

    long long size() const { return n_; }

    /// y = A x (A^T x for a transposed matrix).
    void apply(const double* x, double* y) {
        const double one = 1.0, zero = 0.0;
        if (kind_ == LibrarySpmv::bsr_legacy) {
            HEPTANE_CUSPARSE_CHECK(cusparseDbsrmv(
                handle_, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, mb_, mb_, nnzb_,
                &one, descr_, val_.get(), row_ptr_.get(), col_.get(), bs_, x, &zero, y));
            return;
        }
        const cusparseSpMVAlg_t alg =
            kind_ == LibrarySpmv::csr ? CUSPARSE_SPMV_CSR_ALG1 : CUSPARSE_SPMV_BSR_ALG1;
        if (vx_ == nullptr) {  // descriptors and workspace on first use
            HEPTANE_CUSPARSE_CHECK(
                cusparseCreateDnVec(&vx_, n_, const_cast<double*>(x), CUDA_R_64F));
            HEPTANE_CUSPARSE_CHECK(cusparseCreateDnVec(&vy_, n_, y, CUDA_R_64F));
            std::size_t bytes = 0;
            HEPTANE_CUSPARSE_CHECK(
                cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, vx_,
                                        &zero, vy_, CUDA_R_64F, alg, &bytes));
            buffer_ = Buffer<char>(bytes > 0 ? bytes : 1);
        }
        HEPTANE_CUSPARSE_CHECK(cusparseDnVecSetValues(vx_, const_cast<double*>(x)));
        HEPTANE_CUSPARSE_CHECK(cusparseDnVecSetValues(vy_, y));
        if (!preprocessed_) {  // after the first use and after every update
            HEPTANE_CUSPARSE_CHECK(
                cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, vx_,
                                        &zero, vy_, CUDA_R_64F, alg, buffer_.get()));
            preprocessed_ = true;
        }
        HEPTANE_CUSPARSE_CHECK(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_,
                                            vx_, &zero, vy_, CUDA_R_64F, alg, buffer_.get()));
    }

  private:
    /// The CSR / BSR form of A (transposed for a transposed matrix), on the host.
    Csr host_csr(const GHMatrix& A) const {
        Csr csr = to_csr(A);
        if (transpose_) transpose_block_sparse(csr.rows, 1, csr.row_ptr, csr.col, csr.val);
        return csr;
    }
    Bsr host_bsr(const GHMatrix& A) const {
        Bsr bsr = to_bsr(A);
        if (transpose_) {
            transpose_block_sparse(bsr.block_rows, bsr.block_size, bsr.row_ptr, bsr.col, bsr.val);
        }
        return bsr;
    }

    LibraryMatrix(LibrarySpmv kind, cudaStream_t stream) : kind_(kind) {
        HEPTANE_CUSPARSE_CHECK(cusparseCreate(&handle_));
        HEPTANE_CUSPARSE_CHECK(cusparseSetStream(handle_, stream));
    }
    void set(const Csr& csr) {
        n_ = csr.rows;
        upload(csr.row_ptr, csr.col, csr.val);
        HEPTANE_CUSPARSE_CHECK(
            cusparseCreateCsr(&mat_, n_, n_, static_cast<int64_t>(csr.val.size()), row_ptr_.get(),
                              col_.get(), val_.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    }
    void set(const Bsr& bsr) {
        bs_ = bsr.block_size;
        mb_ = bsr.block_rows;
        nnzb_ = static_cast<int>(bsr.blocks());
        n_ = static_cast<long long>(mb_) * bs_;
        upload(bsr.row_ptr, bsr.col, bsr.val);
        if (kind_ == LibrarySpmv::bsr) {
            HEPTANE_CUSPARSE_CHECK(
                cusparseCreateBsr(&mat_, mb_, mb_, nnzb_, bs_, bs_, row_ptr_.get(), col_.get(),
                                  val_.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, CUSPARSE_ORDER_ROW));
        } else {
            HEPTANE_CUSPARSE_CHECK(cusparseCreateMatDescr(&descr_));
        }
    }
    template <class I>
    void upload(const std::vector<I>& row_ptr, const std::vector<I>& col,
                const std::vector<double>& val) {
        row_ptr_ = Buffer<int>(row_ptr);
        col_ = Buffer<int>(col);
        val_ = Buffer<double>(val);
        HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());  // the host arrays die with the caller
    }

    LibrarySpmv kind_;
    bool transpose_ = false;
    bool preprocessed_ = false;
    cusparseHandle_t handle_ = nullptr;
    cusparseSpMatDescr_t mat_ = nullptr;
    cusparseMatDescr_t descr_ = nullptr;
    cusparseDnVecDescr_t vx_ = nullptr, vy_ = nullptr;
    Buffer<int> row_ptr_, col_;
    Buffer<double> val_;
    Buffer<char> buffer_;
    long long n_ = 0;
    int bs_ = 1, mb_ = 0, nnzb_ = 0;
};

/// A cuBLAS handle on `stream` in device pointer mode (every scalar argument and result
/// lives in device memory), and the vector length n as cuBLAS's int.
class BlasHandle {
  public:
    BlasHandle(cudaStream_t stream, long long n) : n_(static_cast<int>(n)), stream_(stream) {
        if (static_cast<long long>(n_) != n) {
            throw NotSupported("library solver: more than 2^31 rows");
        }
        HEPTANE_CUBLAS_CHECK(cublasCreate(&owner_.handle));
        HEPTANE_CUBLAS_CHECK(cublasSetStream(owner_.handle, stream));
        HEPTANE_CUBLAS_CHECK(cublasSetPointerMode(owner_.handle, CUBLAS_POINTER_MODE_DEVICE));
        constants_.upload({-1.0, 1.0}, stream);
        HEPTANE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host list dies here
    }
    BlasHandle(const BlasHandle&) = delete;
    BlasHandle& operator=(const BlasHandle&) = delete;
    cublasHandle_t get() const { return owner_.handle; }
    int n() const { return n_; }
    cudaStream_t stream() const { return stream_; }
    const double* minus_one() const { return constants_.get(); }
    const double* plus_one() const { return constants_.get() + 1; }

  private:
    struct Owner {  // a member: destroyed even when the constructor throws
        cublasHandle_t handle = nullptr;
        ~Owner() {
            if (handle != nullptr) cublasDestroy(handle);
        }
    };
    Owner owner_;
    int n_ = 0;
    cudaStream_t stream_;
    Buffer<double> constants_{2};  ///< -1, 1: the scalars of r = b - A x
};

/// r = b - A x with cuSPARSE and cuBLAS (r = A x, r = -r, r = r + b).
inline void library_residual(LibraryMatrix& A, const BlasHandle& blas, const double* b,
                             const double* x, double* r) {
    A.apply(x, r);
    HEPTANE_CUBLAS_CHECK(cublasDscal(blas.get(), blas.n(), blas.minus_one(), r, 1));
    HEPTANE_CUBLAS_CHECK(cublasDaxpy(blas.get(), blas.n(), blas.plus_one(), b, 1, r, 1));
}

/// ||v|| (cuBLAS) into device memory at `result` and returned to the host.
inline double library_norm(const BlasHandle& blas, const double* v, double* result) {
    HEPTANE_CUBLAS_CHECK(cublasDnrm2(blas.get(), blas.n(), v, 1, result));
    double host = 0.0;
    HEPTANE_CUDA_CHECK(
        cudaMemcpyAsync(&host, result, sizeof(double), cudaMemcpyDeviceToHost, blas.stream()));
    HEPTANE_CUDA_CHECK(cudaStreamSynchronize(blas.stream()));
    return host;
}

}  // namespace heptane::gpu::detail
