#pragma once
/// @file cuSPARSE SpMV on the BSR or CSR form of a GH matrix (the library baseline), and the
/// checked-call macros for cuSPARSE and cuBLAS.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <string>

#include "core/errors.hpp"
#include "core/formats.hpp"
#include "gpu/solvers.hpp"
#include "gpu/src/buffer.cuh"
#include "gpu/src/cuda_check.cuh"

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

/// cuSPARSE SpMV y = A x in one of the LibrarySpmv forms; vectors of size() entries.
class LibraryMatrix {
  public:
    LibraryMatrix(const GHMatrix& A, LibrarySpmv kind, cudaStream_t stream) : kind_(kind) {
        HEPTANE_CUSPARSE_CHECK(cusparseCreate(&handle_));
        HEPTANE_CUSPARSE_CHECK(cusparseSetStream(handle_, stream));
        if (kind == LibrarySpmv::csr) {
            const Csr csr = to_csr(A);
            n_ = csr.rows;
            upload(csr.row_ptr, csr.col, csr.val);
            HEPTANE_CUSPARSE_CHECK(
                cusparseCreateCsr(&mat_, n_, n_, static_cast<int64_t>(csr.val.size()),
                                  row_ptr_.get(), col_.get(), val_.get(), CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        } else {
            if (A.block_size() == 1) {
                throw NotSupported(std::string(to_string(kind)) +
                                   ": cuSPARSE BSR SpMV needs blocks of 2 x 2 or more; use "
                                   "csr for K = 1");
            }
            const Bsr bsr = to_bsr(A);
            bs_ = bsr.block_size;
            mb_ = bsr.block_rows;
            nnzb_ = static_cast<int>(bsr.blocks());
            n_ = static_cast<long long>(mb_) * bs_;
            upload(bsr.row_ptr, bsr.col, bsr.val);
            if (kind == LibrarySpmv::bsr) {
                HEPTANE_CUSPARSE_CHECK(
                    cusparseCreateBsr(&mat_, mb_, mb_, nnzb_, bs_, bs_, row_ptr_.get(), col_.get(),
                                      val_.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F, CUSPARSE_ORDER_ROW));
            } else {
                HEPTANE_CUSPARSE_CHECK(cusparseCreateMatDescr(&descr_));
            }
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

    /// y = A x.
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
            HEPTANE_CUSPARSE_CHECK(
                cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_, vx_,
                                        &zero, vy_, CUDA_R_64F, alg, buffer_.get()));
        }
        HEPTANE_CUSPARSE_CHECK(cusparseDnVecSetValues(vx_, const_cast<double*>(x)));
        HEPTANE_CUSPARSE_CHECK(cusparseDnVecSetValues(vy_, y));
        HEPTANE_CUSPARSE_CHECK(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat_,
                                            vx_, &zero, vy_, CUDA_R_64F, alg, buffer_.get()));
    }

  private:
    template <class I>
    void upload(const std::vector<I>& row_ptr, const std::vector<I>& col,
                const std::vector<double>& val) {
        row_ptr_ = Buffer<int>(row_ptr);
        col_ = Buffer<int>(col);
        val_ = Buffer<double>(val);
        HEPTANE_CUDA_CHECK(cudaDeviceSynchronize());  // the host arrays die with the caller
    }

    LibrarySpmv kind_;
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

}  // namespace heptane::gpu::detail
