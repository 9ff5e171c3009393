#include "core/matrix/linear_operator.hpp"

#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "core/base/vector_ops.hpp"
#include "core/spmv/cell_major.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {

void GHOperator::apply(const double* x, double* y) const { spmv(A_, x, y); }

void GHOperator::apply_transpose(const double* x, double* y) const { spmv_transpose(A_, x, y); }

double GHOperator::minimal_bytes() const {
    // Structural nonzeros (padding excluded) once, plus x and y.
    return 8.0 * static_cast<double>(A_.nonzeros()) + 16.0 * static_cast<double>(A_.rows());
}

CpuGHOperator::CpuGHOperator(const GHMatrix& A, bool cell_major, bool transpose) : A_(&A) {
    if (cell_major && cell_major_pays(A.block_size())) {
        cells_ = std::make_unique<CellMajorBlocks>(A);
        if (transpose) cells_transposed_ = std::make_unique<CellMajorBlocks>(A, true);
    }
}

CpuGHOperator::~CpuGHOperator() = default;

void CpuGHOperator::update(const GHMatrix& A) {
    check_same_structure(*A_, A, "CpuGHOperator::update");
    A_ = &A;
    if (cells_) cells_->update(A);
    if (cells_transposed_) cells_transposed_->update(A);
}

void CpuGHOperator::apply(const double* x, double* y) const {
    if (cells_) {
        cells_->product(*A_, x, y);
    } else {
        spmv(*A_, x, y);
    }
}

void CpuGHOperator::apply_transpose(const double* x, double* y) const {
    if (cells_transposed_) {
        cells_transposed_->product(*A_, x, y);
    } else {
        spmv_transpose(*A_, x, y);
    }
}

void CpuGHOperator::apply_columns(const double* x, double* y, ColumnRange range,
                                  bool transpose) const {
    const CellMajorBlocks* cells = transpose ? cells_transposed_.get() : cells_.get();
    if (cells != nullptr) {
        cells->product(*A_, x, y, range);
    } else {
        spmv_columns(*A_, x, y, range, transpose);
    }
}

double CpuGHOperator::minimal_bytes() const { return GHOperator(*A_).minimal_bytes(); }

std::size_t CpuGHOperator::workspace_bytes() const {
    return (cells_ ? cells_->bytes() : 0) + (cells_transposed_ ? cells_transposed_->bytes() : 0);
}

void CsrOperator::apply(const double* x, double* y) const { spmv(A_, x, y); }

void CsrOperator::apply_transpose(const double* x, double* y) const {
    for (std::int32_t i = 0; i < A_.cols; ++i) y[i] = 0.0;
    for (std::int32_t i = 0; i < A_.rows; ++i) {
        for (std::int32_t p = A_.row_ptr[i]; p < A_.row_ptr[i + 1]; ++p) {
            y[A_.col[p]] += A_.val[p] * x[i];
        }
    }
}

double CsrOperator::minimal_bytes() const {
    return 8.0 * static_cast<double>(A_.nonzeros()) + 16.0 * static_cast<double>(A_.rows);
}

BsrOperator::BsrOperator(const Bsr& A) : A_(A) {
    if (A.block_rows != A.block_cols) {
        throw InputError("BsrOperator: the matrix has " + std::to_string(A.block_rows) +
                         " block rows and " + std::to_string(A.block_cols) +
                         " block columns; a linear operator must be square");
    }
}

void BsrOperator::apply(const double* x, double* y) const { spmv(A_, x, y); }

void BsrOperator::apply_transpose(const double* x, double* y) const {
    const int bs = A_.block_size;
    const index_t bb = static_cast<index_t>(bs) * bs;
    const index_t n = size();
    for (index_t i = 0; i < n; ++i) y[i] = 0.0;
    // y_j += B_ij^T x_i for every stored block (i, j); blocks are row-major.
    for (std::int32_t br = 0; br < A_.block_rows; ++br) {
        const double* xb = x + static_cast<index_t>(br) * bs;
        for (std::int32_t p = A_.row_ptr[br]; p < A_.row_ptr[br + 1]; ++p) {
            const double* block = A_.val.data() + p * bb;
            double* yb = y + static_cast<index_t>(A_.col[p]) * bs;
            for (int r = 0; r < bs; ++r) {
                for (int c = 0; c < bs; ++c) yb[c] += block[r * bs + c] * xb[r];
            }
        }
    }
}

double BsrOperator::minimal_bytes() const {
    const double values = static_cast<double>(A_.blocks()) * A_.block_size * A_.block_size;
    return 8.0 * values + 16.0 * static_cast<double>(size());
}

void IdentityPreconditioner::apply(const double* r, double* z) const { vec::copy(r, z, n_); }

void Preconditioner::update(const GHMatrix&) {
    throw std::logic_error("this preconditioner was not built from a GH matrix: no update");
}

}  // namespace heptane
