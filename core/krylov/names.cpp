// The table of names (core/krylov/names.hpp). A new choice is one row here plus its implementation.
#include "core/krylov/names.hpp"

namespace heptane {

template <>
const std::vector<NameRow<Method>>& name_table<Method>() {
    static const std::vector<NameRow<Method>> t{
        {Method::bicgstab, "bicgstab", nullptr,
         "BiCGStab (seed 002 Algorithm 1), right-preconditioned"},
        {Method::qmr, "qmr", nullptr, "QMR (Freund-Nachtigal, Templates Fig. 2.8) with A^T"},
        {Method::block_jacobi, "block_jacobi", nullptr,
         "damped block Jacobi sweeps over spatial blocks (seed 003 Algorithm 3)"},
        {Method::block_gs, "block_gs", nullptr,
         "block Gauss-Seidel sweeps over spatial blocks (seed 003 Algorithm 1; chaotic on the "
         "GPU)"},
    };
    return t;
}

template <>
const std::vector<NameRow<PreconditionerKind>>& name_table<PreconditionerKind>() {
    static const std::vector<NameRow<PreconditionerKind>> t{
        {PreconditionerKind::none, "none", nullptr, "no preconditioner (M = I)"},
        {PreconditionerKind::point_block_jacobi, "point_block_jacobi", nullptr,
         "each cell's K x K diagonal block inverted"},
        {PreconditionerKind::line_jacobi, "line_jacobi", nullptr,
         "each vertical column's block-tridiagonal matrix solved (block Thomas)"},
        {PreconditionerKind::block_jacobi, "block_jacobi", nullptr,
         "spatial blocks of solver.block_shape cells inverted exactly"},
        {PreconditionerKind::cpr, "cpr", nullptr,
         "two stages: the quasi-IMPES pressure system by a structured-multigrid cycle, then "
         "point-block Jacobi (solver.cpr)"},
    };
    return t;
}

template <>
const std::vector<NameRow<Backend>>& name_table<Backend>() {
    static const std::vector<NameRow<Backend>> t{
        {Backend::automatic, "auto", nullptr,
         "the GPU when one is present and takes the deck's solver, else the CPU"},
        {Backend::cpu, "cpu", nullptr, "the CPU reference (OpenMP)"},
        {Backend::gpu, "gpu", nullptr, "the CUDA backend (an error when it cannot run the deck)"},
    };
    return t;
}

template <>
const std::vector<NameRow<GpuKernel>>& name_table<GpuKernel>() {
    static const std::vector<NameRow<GpuKernel>> t{
        {GpuKernel::in_kernel, "in_kernel", nullptr,
         "one persistent cooperative kernel per solve (seed 002 sections 6.3-6.4)"},
        {GpuKernel::multi_kernel, "multi_kernel", nullptr,
         "own SpMV and fused vector kernels, one iteration replayed as a CUDA graph"},
        {GpuKernel::library, "library", nullptr, "cuSPARSE SpMV and cuBLAS (the papers' baseline)"},
    };
    return t;
}

template <>
const std::vector<NameRow<SpmvKind>>& name_table<SpmvKind>() {
    static const std::vector<NameRow<SpmvKind>> t{
        {SpmvKind::bdia, "bdia", nullptr, "the 7 block diagonals and the compact well arrays"},
        {SpmvKind::ksparse, "ksparse", nullptr,
         "KSPARSE kernels on the BSR form (seed 001; multi_kernel only)"},
    };
    return t;
}

template <>
const std::vector<NameRow<LibraryFormat>>& name_table<LibraryFormat>() {
    static const std::vector<NameRow<LibraryFormat>> t{
        {LibraryFormat::bsr, "bsr", "cusparse_bsr", "cusparseSpMV on BSR with K x K blocks"},
        {LibraryFormat::bsr_legacy, "bsr_legacy", "cusparse_bsrmv",
         "the legacy cusparseDbsrmv on the same BSR"},
        {LibraryFormat::csr, "csr", "cusparse_csr",
         "cusparseSpMV on scalar CSR (needed for K = 1)"},
    };
    return t;
}

template <>
const std::vector<NameRow<KsparseKernel>>& name_table<KsparseKernel>() {
    static const std::vector<NameRow<KsparseKernel>> t{
        {KsparseKernel::automatic, "auto", "automatic",
         "the tuned or default kernel for the block size"},
        {KsparseKernel::k1, "k1", nullptr, "bs 1-5: a truncated warp reads several blocks at once"},
        {KsparseKernel::k2, "k2", nullptr, "bs 2-128: thread arrays of bs x N_tg threads"},
        {KsparseKernel::k3, "k3", nullptr, "bs >= 2: several thread blocks per block row"},
        {KsparseKernel::k4, "k4", nullptr,
         "bs 8, 16, 32: a warp streams a chunk of lambda blocks, long rows split"},
    };
    return t;
}

template <>
const std::vector<NameRow<KsparseBalance>>& name_table<KsparseBalance>() {
    static const std::vector<NameRow<KsparseBalance>> t{
        {KsparseBalance::automatic, "auto", "automatic",
         "split long rows when the row-length histogram says it pays"},
        {KsparseBalance::off, "off", nullptr, "never split rows"},
        {KsparseBalance::on, "on", nullptr, "split rows longer than lambda (seed 001 section 5.5)"},
    };
    return t;
}

template <>
const std::vector<NameRow<CprWeights>>& name_table<CprWeights>() {
    static const std::vector<NameRow<CprWeights>> t{
        {CprWeights::quasi_impes, "quasi_impes", nullptr,
         "D^T w = e_0 for each cell's diagonal block D, scaled to max |w| = 1"},
        {CprWeights::true_impes, "true_impes", nullptr,
         "the same with D the accumulation term's part of the diagonal block (two-phase "
         "Jacobians only)"},
    };
    return t;
}

template <>
const std::vector<NameRow<MgCycle>>& name_table<MgCycle>() {
    static const std::vector<NameRow<MgCycle>> t{
        {MgCycle::v, "v", nullptr, "each coarse problem solved by one cycle of the level below"},
        {MgCycle::w, "w", nullptr, "each coarse problem solved by two cycles of the level below"},
    };
    return t;
}

template <>
const std::vector<NameRow<MgSmoother>>& name_table<MgSmoother>() {
    static const std::vector<NameRow<MgSmoother>> t{
        {MgSmoother::line_jacobi, "line_jacobi", nullptr,
         "every vertical column solved from the same residual (damped, omega 0.8)"},
        {MgSmoother::line_gs, "line_gs", nullptr,
         "red-black line Gauss-Seidel: the columns with i + j even, then the odd ones"},
    };
    return t;
}

namespace {

template <class E>
const char* label_of(E e) {
    const NameRow<E>& row = name_row(e);
    return row.label != nullptr ? row.label : row.name;
}

}  // namespace

const char* to_string(Method m) { return label_of(m); }
const char* to_string(PreconditionerKind p) { return label_of(p); }
const char* to_string(Backend b) { return label_of(b); }
const char* to_string(GpuKernel k) { return label_of(k); }
const char* to_string(SpmvKind s) { return label_of(s); }
const char* to_string(LibraryFormat f) { return label_of(f); }
const char* to_string(KsparseKernel k) { return label_of(k); }
const char* to_string(KsparseBalance b) { return label_of(b); }

}  // namespace heptane
