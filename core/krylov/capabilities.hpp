#pragma once
/// @file One capabilities check (issue 16, item 3): which solver settings run, on which
/// backend, for which kind of deck, and why not. The deck reader asks it once for the rules
/// that hold everywhere, `heptane run` once more for the GPU's, and gpu::make_solver guards
/// itself with it; nothing else spells a rule.
#include <string>

#include "core/krylov/solver_settings.hpp"

namespace heptane {

/// What a deck describes: a grid model (GH system) or a MatrixMarket matrix (BSR).
enum class DeckKind { grid, matrix };

/// The answer: ok, or the deck key at fault and the reason (with what to use instead).
struct Support {
    bool ok = true;
    std::string key;     ///< e.g. "solver.preconditioner"
    std::string reason;  ///< the message the user sees after "file:line: key: "
    explicit operator bool() const { return ok; }
};

/// Whether `s` runs for a deck of `kind` whose system has K x K blocks (K: 0 when unknown, for
/// a matrix deck) on `where`: Backend::cpu asks for the rules that hold on every backend
/// (a smoother or a preconditioner needs a grid deck, a smoother takes no preconditioner, a
/// matrix deck's GPU solver is multi_kernel with KSPARSE, KSPARSE runs with multi_kernel);
/// Backend::gpu adds the GPU's (the GPU QMR, the library baseline and KSPARSE take no
/// preconditioner; the in-kernel solver fuses point-block Jacobi only, for K a power of
/// two). The first failing rule, in that order, is the answer.
Support support(const SolverSettings& s, int K, Backend where, DeckKind kind);

/// Systems from this many rows on run faster with the multi-kernel solver (H100,
/// docs/BENCHMARKS.md "The crossover after decision 54"): K >= 8 at any method, QMR, then
/// BiCGStab with or without point-block Jacobi.
constexpr long long kMultiKernelRowsLargeK = 750'000;
constexpr long long kMultiKernelRowsQmr = 1'000'000;
constexpr long long kMultiKernelRows = 1'500'000;

/// The GPU kernel for a system of `rows` with K x K blocks: s.gpu_kernel when the deck named
/// it or it is not the in-kernel solver, else the in-kernel solver unless the multi-kernel one
/// was measured faster at that size (the persistent kernel wins where launches and host
/// round trips dominate; on large systems its register-bound occupancy and idle SMs lose to
/// the separate bandwidth-bound kernels).
GpuKernel sized_gpu_kernel(const SolverSettings& s, int K, long long rows);

}  // namespace heptane
