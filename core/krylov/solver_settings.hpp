#pragma once
/// @file Solver settings (DESIGN sections 5 and 6), filled by app/ from the deck's solver
/// section.
#include <array>

#include "core/ksparse/ksparse_params.hpp"
#include "core/precond/cpr_options.hpp"

namespace heptane {

enum class Method { bicgstab, qmr, block_jacobi, block_gs };
enum class PreconditionerKind { none, point_block_jacobi, line_jacobi, block_jacobi, cpr };
enum class Backend { automatic, cpu, gpu };
enum class GpuKernel { in_kernel, multi_kernel, library };
enum class SpmvKind { bdia, ksparse };
enum class LibraryFormat { bsr, bsr_legacy, csr };

/// Whether a method is a block smoother (block_jacobi, block_gs) rather than a Krylov solver.
inline bool is_smoother(Method m) { return m == Method::block_jacobi || m == Method::block_gs; }

/// The deck spelling of each choice ("block_gs", "point_block_jacobi").
const char* to_string(Method m);
const char* to_string(PreconditionerKind p);

struct SolverSettings {
    Method method = Method::bicgstab;
    PreconditionerKind preconditioner = PreconditionerKind::none;
    std::array<int, 3> block_shape{4, 4, 4};  ///< spatial block (bx, by, bz) in cells
    double omega = 1.0;                       ///< damping of block Jacobi / Gauss-Seidel
    CprOptions cpr;                           ///< solver.cpr: preconditioner cpr's choices
    Backend backend = Backend::automatic;
    GpuKernel gpu_kernel = GpuKernel::in_kernel;
    /// solver.gpu_kernel was in the deck: no size rule (sized_gpu_kernel) overrides it
    bool gpu_kernel_given = false;
    SpmvKind spmv = SpmvKind::bdia;
    /// solver.ksparse: kernel, balance and lambda of the KSPARSE SpMV (spmv ksparse and
    /// matrix decks on the GPU); the Table I parameters come from the tuning cache
    KsparseParams ksparse;
    LibraryFormat library_format = LibraryFormat::bsr;  ///< cuSPARSE SpMV of gpu_kernel library
    double tolerance = 1.0e-8;                          ///< on ||b - GH x|| / ||b||
    int max_iterations = 1000;
};

}  // namespace heptane
