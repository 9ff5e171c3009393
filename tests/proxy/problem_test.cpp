// The proxy problem's definition (docs/PROXY.md, version 1): reproducible from its seed (the
// same system twice in a process, and the fingerprint stored here on any machine), the
// SPE10 model 2 permeability statistics, the repeated five-spot, and the sizing.
#include "proxy/problem.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "core/matrix/formats.hpp"

namespace heptane::proxy {
namespace {

/// Version 1 at 20 x 20 x 4 with kSeed, measured on the development machine (x86-64,
/// glibc 2.36, g++ 12) on 2026-11-24.
constexpr double kFingerprintRhs = -329.06379498569459;
constexpr double kFingerprintValues = 10188.41552027678;

/// Fingerprint of a system: the sums of its right-hand side and of its stored values.
struct Fingerprint {
    double rhs = 0.0, values = 0.0;
};

Fingerprint fingerprint(const wells::Model& m) {
    Fingerprint f;
    for (double b : m.system.rhs) f.rhs += b;
    for (double v : m.system.matrix.bdia()) f.values += std::abs(v);
    for (double v : m.system.matrix.wells().w_vals) f.values += std::abs(v);
    for (double v : m.system.matrix.wells().wt_vals) f.values += std::abs(v);
    return f;
}

TEST(ProxyProblem, TheSameSeedGivesTheSameSystem) {
    const ProblemSize size{20, 20, 4};
    const wells::Model a = wells::generate(problem_model(size));
    const wells::Model b = wells::generate(problem_model(size));
    EXPECT_EQ(a.system.rhs, b.system.rhs);
    EXPECT_EQ(a.system.matrix.bdia(), b.system.matrix.bdia());
    const wells::Model c = wells::generate(problem_model(size, kSeed + 1));
    EXPECT_NE(a.system.matrix.bdia(), c.system.matrix.bdia());
    // On every machine: the fingerprint of version 1 at 20 x 20 x 4 with the official seed
    // (measured with this code; the bound leaves room for another libm's last bits).
    const Fingerprint f = fingerprint(a);
    EXPECT_NEAR(f.rhs, kFingerprintRhs, 1e-10 * std::abs(kFingerprintRhs));
    EXPECT_NEAR(f.values, kFingerprintValues, 1e-10 * kFingerprintValues);
}

TEST(ProxyProblem, PermeabilityHasTheSpe10Statistics) {
    const wells::ModelSpec spec = problem_model({40, 40, kLayers});
    const grid::RockFields rock = grid::build_rock(spec.grid, spec.permeability, spec.porosity);
    const double n = static_cast<double>(rock.kx.size());
    double mean = 0.0, square = 0.0, ratio = 0.0;
    for (std::size_t m = 0; m < rock.kx.size(); ++m) {
        const double l = std::log(rock.kx[m] / units::kMilliDarcy);
        mean += l;
        square += l * l;
        ratio += std::log(rock.kz[m] / rock.kx[m]);
    }
    mean /= n;
    const double sigma = std::sqrt(square / n - mean * mean);
    // 136,000 independent cells: the sample mean is within 4 standard errors
    // (4 x 3.51 / sqrt(n) = 0.038) and the sample sigma within 4 x sigma / sqrt(2 n) = 0.027.
    EXPECT_NEAR(mean, std::log(kGeometricMeanPermeability),
                4.0 * kSigmaLnPermeability / std::sqrt(n));
    EXPECT_NEAR(sigma, kSigmaLnPermeability, 4.0 * kSigmaLnPermeability / std::sqrt(2.0 * n));
    EXPECT_NEAR(std::exp(ratio / n), kVerticalRatio, 1e-9);
}

TEST(ProxyProblem, WellsFormARepeatedFiveSpot) {
    const wells::ModelSpec spec = problem_model({40, 60, 5});
    int producers = 0, injectors = 0;
    for (const wells::WellSpec& w : spec.wells) {
        EXPECT_EQ(w.k_first, 0);
        EXPECT_EQ(w.k_last, 4);
        if (w.type == wells::WellType::producer) {
            ++producers;
            EXPECT_EQ(w.i % kPattern, 0);
            EXPECT_EQ(w.j % kPattern, 0);
            EXPECT_EQ(w.control, wells::ControlKind::bhp);
        } else {
            ++injectors;
            EXPECT_EQ(w.i % kPattern, kPattern / 2);
            EXPECT_EQ(w.j % kPattern, kPattern / 2);
            EXPECT_EQ(w.control, wells::ControlKind::rate);
        }
    }
    EXPECT_EQ(producers, 2 * 3);  // i in {0, 20}, j in {0, 20, 40}
    EXPECT_EQ(injectors, 2 * 3);  // i in {10, 30}, j in {10, 30, 50}
    EXPECT_THROW(problem_model({19, 40, 5}), InputError);
}

TEST(ProxyProblem, SizeFitsTheBytesInWholePatterns) {
    for (double gb : {0.01, 1.0, 40.0, 70.0}) {
        const double bytes = gb * 1e9;
        const ProblemSize s = size_for_bytes(bytes);
        EXPECT_EQ(s.nz, kLayers);
        EXPECT_EQ(s.nx, s.ny);
        EXPECT_EQ(s.nx % kPattern, 0);
        if (s.nx > kPattern) {
            EXPECT_LE(s.cells() * bytes_per_cell(), bytes) << gb << " GB";
        }
        const double next = static_cast<double>(s.nx + kPattern) * (s.nx + kPattern) * kLayers;
        EXPECT_GT(next * bytes_per_cell(), bytes) << gb << " GB: a larger square would fit";
    }
    EXPECT_EQ(size_for_bytes(0.0).nx, kPattern);  // at least one pattern
}

TEST(ProxyProblem, VariantsAreDiagonallyDominantMMatrices) {
    for (int K : kVariantBlockSizes) {
        const ProblemSize size{20, 20, 3};
        const wells::Model m = variant_system(size, K);
        EXPECT_EQ(m.system.matrix.block_size(), K);
        EXPECT_EQ(variant_system(size, K).system.matrix.bdia(), m.system.matrix.bdia());
        // Row by row (through the CSR form): off-diagonals <= 0, the diagonal 1.01 times
        // their absolute sum.
        const Csr A = to_csr(m.system.matrix);
        int negative = 0;
        for (std::int32_t i = 0; i < A.rows; ++i) {
            double diagonal = 0.0, off = 0.0;
            for (std::int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
                if (A.col[p] == i) {
                    diagonal = A.val[p];
                } else {
                    ASSERT_LE(A.val[p], 0.0) << "K " << K << " row " << i;
                    off += std::abs(A.val[p]);
                    negative += A.val[p] < 0.0;
                }
            }
            ASSERT_NEAR(diagonal, kVariantDiagonalDominance * off, 1e-12 * diagonal)
                << "K " << K << " row " << i;
        }
        EXPECT_GT(negative, A.rows);  // the couplings are there, not zeroed
    }
}

}  // namespace
}  // namespace heptane::proxy
