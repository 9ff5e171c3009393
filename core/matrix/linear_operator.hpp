#pragma once
/// @file What the reference Krylov solvers need from a matrix and a preconditioner.
#include <memory>

#include "core/matrix/formats.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {

/// A square linear operator with products by A and A^T (QMR needs both).
class LinearOperator {
  public:
    virtual ~LinearOperator() = default;
    virtual index_t size() const = 0;
    /// y = A x (x, y of size(), not aliased).
    virtual void apply(const double* x, double* y) const = 0;
    /// y = A^T x.
    virtual void apply_transpose(const double* x, double* y) const = 0;
    /// Bytes one product must move at least: every stored value, x and y once
    /// (used for effective-bandwidth reports).
    virtual double minimal_bytes() const = 0;
};

/// The GH matrix through the reference Bdia + wells products.
class GHOperator : public LinearOperator {
  public:
    explicit GHOperator(const GHMatrix& A) : A_(A) {}
    index_t size() const override { return A_.rows(); }
    void apply(const double* x, double* y) const override;
    void apply_transpose(const double* x, double* y) const override;
    double minimal_bytes() const override;

  private:
    const GHMatrix& A_;
};

class CellMajorBlocks;

/// The GH matrix through the CPU solvers' product: A x from a cell-major copy of the blocks
/// where it measured to pay (K >= 6: core/spmv/cell_major.hpp), else from Bdia, the same
/// bits either way; with `transpose` (QMR: BiCGStab never pays for it) A^T x likewise from a
/// cell-major copy of H^T's blocks, else from Bdia. Keeps A by pointer (it must outlive this);
/// update() takes a Newton step's new values of the same structure. cell_major false: Bdia
/// only (no copy; the block smoothers, which do not use this product).
class CpuGHOperator : public LinearOperator {
  public:
    explicit CpuGHOperator(const GHMatrix& A, bool cell_major = true, bool transpose = false);
    ~CpuGHOperator() override;
    void update(const GHMatrix& A);
    index_t size() const override { return A_->rows(); }
    void apply(const double* x, double* y) const override;
    void apply_transpose(const double* x, double* y) const override;
    /// The rows of `range` of A x (A^T x with transpose), the other rows of y left alone.
    void apply_columns(const double* x, double* y, ColumnRange range, bool transpose) const;
    double minimal_bytes() const override;
    /// Bytes of the cell-major copies (0 without one).
    std::size_t workspace_bytes() const;

  private:
    const GHMatrix* A_;
    std::unique_ptr<CellMajorBlocks> cells_;
    std::unique_ptr<CellMajorBlocks> cells_transposed_;
};

/// A scalar CSR matrix (tests, imported matrices). apply_transpose scatters serially.
class CsrOperator : public LinearOperator {
  public:
    explicit CsrOperator(const Csr& A) : A_(A) {}
    index_t size() const override { return A_.rows; }
    void apply(const double* x, double* y) const override;
    void apply_transpose(const double* x, double* y) const override;
    double minimal_bytes() const override;

  private:
    const Csr& A_;
};

/// A square BSR matrix (matrix decks, issue 7): apply is spmv(Bsr) (core/spmv/spmv.hpp);
/// apply_transpose scatters block by block serially, without storing A^T (QMR only).
class BsrOperator : public LinearOperator {
  public:
    /// @param[in] A  square (block_rows == block_cols); kept by reference, must outlive this
    /// @throws InputError when A is not square
    explicit BsrOperator(const Bsr& A);
    index_t size() const override { return static_cast<index_t>(A_.block_rows) * A_.block_size; }
    void apply(const double* x, double* y) const override;
    void apply_transpose(const double* x, double* y) const override;
    /// Every stored block value (blocks x bs^2 x 8 bytes), x and y once.
    double minimal_bytes() const override;

  private:
    const Bsr& A_;
};

/// What a preconditioner offers the solvers (and, later, the preconditioners that compose
/// it, such as CPR).
struct PreconditionerCaps {
    /// z of a cell depends on r of that cell only, so a GPU thread block that owns whole
    /// cells can apply it to values it has just computed (fused into the in-kernel BiCGStab).
    bool cell_local = false;
    /// apply_transpose is available (QMR needs M^{-T}).
    bool has_transpose = true;
};

/// z = M^{-1} r for a preconditioner M ~ A, applied on the right by the solvers: they solve
/// A M^{-1} u = b and return x = M^{-1} u, so the residual they monitor is the true
/// residual b - A x of the original system (left preconditioning would monitor M^{-1}(b - A x)).
/// Made once from a matrix; update() refreshes it for new values of the same structure (a
/// Newton step), re-factoring without re-planning.
class Preconditioner {
  public:
    virtual ~Preconditioner() = default;
    /// z = M^{-1} r (not aliased).
    virtual void apply(const double* r, double* z) const = 0;
    /// z = M^{-T} r (QMR).
    virtual void apply_transpose(const double* r, double* z) const = 0;
    /// New values of A (same grid, K and wells as before; std::invalid_argument otherwise).
    /// A must outlive the preconditioner or the next update. The default (a preconditioner
    /// that was not built from a GH matrix) throws std::logic_error.
    virtual void update(const GHMatrix& A);
    virtual PreconditionerCaps capabilities() const { return {}; }
    /// Whether apply is the identity (the solvers then skip the copies).
    virtual bool is_identity() const { return false; }
};

/// M = I.
class IdentityPreconditioner : public Preconditioner {
  public:
    explicit IdentityPreconditioner(index_t n) : n_(n) {}
    void apply(const double* r, double* z) const override;
    void apply_transpose(const double* r, double* z) const override { apply(r, z); }
    void update(const GHMatrix&) override {}
    PreconditionerCaps capabilities() const override { return {true, true}; }
    bool is_identity() const override { return true; }

  private:
    index_t n_;
};

}  // namespace heptane
