#pragma once
/// @file The proxy application's problem definition (issue 18; docs/PROXY.md, "Problem,
/// version 1"): one two-phase (K = 2) GH system that scales with the machine. A structured
/// reservoir of SPE10 model 2 cells (20 x 10 x 2 ft, 85 layers) whose permeability is
/// lognormal with the statistics of the SPE10 model 2 field, wells in a repeated five-spot
/// pattern, the SPE10 fluids, the Jacobian of the first Newton step of a 1-day time step.
/// The same size and seed give the same system on every machine.
#include <cstdint>

#include "wells/generator.hpp"

namespace heptane::proxy {

/// The version of the definition; any change to what follows is a new version.
constexpr int kProblemVersion = 1;

/// ln k_x of SPE10 model 2 (all 1,122,000 cells of spe_perm.dat, k_x > 0 everywhere):
/// mean 2.3111 (geometric mean 10.085 mD), standard deviation 3.5121; k_z / k_x geometric
/// mean 6.881e-4 (docs/PROXY.md gives the command that measured them).
constexpr double kGeometricMeanPermeability = 10.085;  // mD
constexpr double kSigmaLnPermeability = 3.5121;
constexpr double kVerticalRatio = 6.881e-4;
constexpr std::uint64_t kSeed = 2001;  ///< the official seed (SPE10 was published in 2001)

/// Layers (SPE10 model 2's) and the five-spot pattern's side in columns.
constexpr int kLayers = 85;
constexpr int kPattern = 20;

struct ProblemSize {
    int nx = kPattern;
    int ny = kPattern;
    int nz = kLayers;
    long long cells() const { return static_cast<long long>(nx) * ny * nz; }
};

/// The model of the defined problem at `size` (InputError for a size that holds no whole
/// pattern: nx, ny >= kPattern, nz >= 1). Wells, all perforated through every layer:
/// producers at the pattern corners (i, j multiples of kPattern inside the grid) at 4,000 psi
/// BHP, injectors at the pattern centres (kPattern / 2 + multiples of kPattern) injecting
/// 0.1% of a pattern's pore volume a day.
wells::ModelSpec problem_model(const ProblemSize& size, std::uint64_t seed = kSeed);

/// Device bytes per cell of the timed phase for K x K blocks: Bdia (7 K^2 doubles),
/// BiCGStab's ten vectors (10 K doubles) and the point-block Jacobi inverses (K^2 doubles);
/// the wells' share is below 0.1%. K = 2: 416.
double bytes_per_cell(int K = 2);

/// The largest size with `nz` layers and nx = ny a multiple of kPattern whose
/// bytes_per_cell(K) x cells fit in `bytes`; at least one pattern.
ProblemSize size_for_bytes(double bytes, int K = 2, int nz = kLayers);

/// The secondary variants' block sizes (docs/PROXY.md, "Secondary figures").
constexpr int kVariantBlockSizes[] = {3, 4, 8};
/// Their diagonal dominance: every diagonal entry 1.01 times its row's off-diagonal sum.
constexpr double kVariantDiagonalDominance = 1.01;

/// A secondary variant's model: the defined problem's grid, wells and seed with the synthetic
/// model's K x K blocks (uniform(-1, 1) entries, b uniform(-1, 1)).
wells::ModelSpec variant_model(const ProblemSize& size, int K, std::uint64_t seed = kSeed);

/// A secondary variant's system: variant_model's, with every off-diagonal entry made negative
/// and then the diagonal set to kVariantDiagonalDominance times its row's off-diagonal sum. A
/// K-component diffusion-like M-matrix: random signs make Jacobi-preconditioned Krylov
/// converge in a few iterations, this takes hundreds and more with the grid, like the
/// two-phase pressure equation.
wells::Model variant_system(const ProblemSize& size, int K, std::uint64_t seed = kSeed);

}  // namespace heptane::proxy
