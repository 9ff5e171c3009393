// Inactive cells (issue 20): a model whose Eclipse ACTNUM switches off every cell around a box
// against the same model with those cells removed by hand (the box as a smaller grid). The
// active cells' equations must be the same bits, the inactive ones identity rows with nothing
// coupled to them, and every CPU solver and preconditioner must give the smaller grid's
// solution with exact zeros in the inactive cells. Also: the synthetic generator's identity
// rows and a well perforating an inactive cell.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/errors.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {
namespace {

using ::testing::HasSubstr;

using Folder = test::TempFolder;

TEST(InactiveCells, ActiveEquationsAreTheSmallerGridsBitForBit) {
    const Folder dir;
    const test::ActnumPair p = test::actnum_pair(dir.path());
    const GHMatrix& A = p.with_actnum.system.matrix;
    const GHMatrix& S = p.removed.system.matrix;
    const std::vector<double>& b = p.with_actnum.system.rhs;
    const std::vector<double>& c = p.removed.system.rhs;
    ASSERT_EQ(p.with_actnum.rock.num_active(), p.removed.grid.num_cells());
    ASSERT_EQ(p.removed.rock.num_active(), p.removed.grid.num_cells());
    // The active cells: each block of each diagonal, and the right-hand side.
    for (index_t s = 0; s < S.num_cells(); ++s) {
        const index_t m = p.big_cell(s);
        ASSERT_TRUE(p.with_actnum.rock.is_active(m));
        for (int d = 0; d < kStencilSize; ++d)
            for (int r = 0; r < 2; ++r)
                for (int k = 0; k < 2; ++k)
                    ASSERT_EQ(A.at(d, m, r, k), S.at(d, s, r, k)) << s << " " << d;
        for (int r = 0; r < 2; ++r) ASSERT_EQ(b[2 * m + r], c[2 * s + r]) << s;
    }
    EXPECT_EQ(A.wells().w_vals, S.wells().w_vals);
    EXPECT_EQ(A.wells().wt_vals, S.wells().wt_vals);
    EXPECT_EQ(A.wells().d, S.wells().d);
    EXPECT_EQ(std::vector<double>(b.end() - 2, b.end()), std::vector<double>(c.end() - 2, c.end()));
    // The inactive cells: identity, zero right-hand side, no coupling either way.
    index_t inactive = 0;
    const auto off = A.offsets();
    for (index_t m = 0; m < A.num_cells(); ++m) {
        if (p.with_actnum.rock.is_active(m)) continue;
        ++inactive;
        for (int d = 0; d < kStencilSize; ++d) {
            for (int r = 0; r < 2; ++r)
                for (int k = 0; k < 2; ++k)
                    ASSERT_EQ(A.at(d, m, r, k), d == kCenter && r == k ? 1.0 : 0.0) << m;
            if (d == kCenter || !A.has_neighbour(m, d)) continue;
            for (int r = 0; r < 2; ++r)
                for (int k = 0; k < 2; ++k)
                    ASSERT_EQ(A.at(kStencilSize - 1 - d, m + off[d], r, k), 0.0) << m << " " << d;
        }
        ASSERT_EQ(b[2 * m], 0.0);
        ASSERT_EQ(b[2 * m + 1], 0.0);
    }
    EXPECT_EQ(inactive, A.num_cells() - S.num_cells());
}

struct SolverCase {
    const char* name;
    Method method;
    PreconditionerKind preconditioner;
};

class InactiveCellsSolve : public ::testing::TestWithParam<SolverCase> {};

// Every CPU solver: the inactive cells stay exactly 0 and the active cells are the smaller
// grid's solution (both solved to 1e-11; they agree to what that tolerance allows).
TEST_P(InactiveCellsSolve, GivesTheSmallerGridsSolution) {
    const SolverCase& sc = GetParam();
    const Folder dir;
    const test::ActnumPair p = test::actnum_pair(dir.path());
    SolverSettings s;
    s.method = sc.method;
    s.preconditioner = sc.preconditioner;
    s.block_shape = {2, 2, 2};
    s.omega = 1.0;
    SolveOptions o;
    o.tolerance = 1e-11;
    o.max_iterations = 20000;
    const auto solve = [&](const wells::Model& m) {
        std::vector<double> x(m.system.rhs.size(), 0.0);
        const SolveResult r = make_cpu_solver(s, m.system.matrix)->solve(m.system.rhs, x, o);
        EXPECT_EQ(r.status, SolveStatus::converged) << r.detail;
        EXPECT_LE(r.true_relative_residual, 2e-11);
        return x;
    };
    const std::vector<double> x = solve(p.with_actnum), y = solve(p.removed);
    const index_t M = p.with_actnum.grid.num_cells();
    for (index_t m = 0; m < M; ++m) {
        if (p.with_actnum.rock.is_active(m)) continue;
        ASSERT_EQ(x[2 * m], 0.0) << m;
        ASSERT_EQ(x[2 * m + 1], 0.0) << m;
    }
    std::vector<double> active(y.size());
    for (index_t s_cell = 0; s_cell < p.removed.grid.num_cells(); ++s_cell) {
        const index_t m = p.big_cell(s_cell);
        active[2 * s_cell] = x[2 * m];
        active[2 * s_cell + 1] = x[2 * m + 1];
    }
    for (std::size_t w = 0; w < 2; ++w) active[y.size() - 2 + w] = x[x.size() - 2 + w];
    EXPECT_TRUE(test::vectors_near(y, active, 1e-7 * test::max_abs(y)));
}

INSTANTIATE_TEST_SUITE_P(
    EveryCpuSolver, InactiveCellsSolve,
    ::testing::Values(
        SolverCase{"bicgstab", Method::bicgstab, PreconditionerKind::none},
        SolverCase{"qmr", Method::qmr, PreconditionerKind::none},
        SolverCase{"bicgstab_point", Method::bicgstab, PreconditionerKind::point_block_jacobi},
        SolverCase{"bicgstab_line", Method::bicgstab, PreconditionerKind::line_jacobi},
        SolverCase{"qmr_blocks", Method::qmr, PreconditionerKind::block_jacobi},
        SolverCase{"block_gs", Method::block_gs, PreconditionerKind::none}),
    [](const ::testing::TestParamInfo<SolverCase>& i) { return std::string(i.param.name); });

// The synthetic generator gives inactive cells the same identity rows (its random blocks would
// couple them otherwise).
TEST(InactiveCells, SyntheticModelIsolatesThem) {
    const Folder dir;
    const std::string file = dir.path() + "/actnum.grdecl";
    {
        std::ofstream out(file);
        out << "ACTNUM\n 1 0 1 1 0 1 1 1 /\n";  // (1, 0, 0) and (0, 0, 1) inactive
    }
    wells::ModelSpec spec;
    spec.grid.nx = 2;
    spec.grid.ny = 2;
    spec.grid.nz = 2;
    spec.model = wells::FluidModel::synthetic;
    spec.synthetic.components = 3;
    spec.eclipse.files = {file};
    spec.eclipse.has_cell_size =
        true;  // the file gives no geometry: spec.grid's sizes are the deck's
    spec.permeability.value = {100.0, 100.0, 100.0};  // the deck's defaults
    spec.porosity.value = {0.2, 0.0, 0.0};
    spec.permeability.defaulted = spec.porosity.defaulted = true;
    const wells::Model m = wells::generate(spec, true);
    const GHMatrix& A = m.system.matrix;
    for (const index_t dead : {m.grid.cell(1, 0, 0), m.grid.cell(0, 0, 1)}) {
        ASSERT_FALSE(m.rock.is_active(dead));
        for (int c = 0; c < 3; ++c) EXPECT_EQ(m.system.rhs[3 * dead + c], 0.0);
        std::vector<double> e(A.rows(), 0.0), y(A.rows(), 0.0);
        e[3 * dead + 1] = 1.0;  // column: only the identity's own entry
        spmv(A, e.data(), y.data());
        for (index_t r = 0; r < A.rows(); ++r) EXPECT_EQ(y[r], r == 3 * dead + 1 ? 1.0 : 0.0);
    }
}

TEST(InactiveCells, AWellMayNotPerforateOne) {
    const Folder dir;
    test::ActnumPair p = test::actnum_pair(dir.path());
    wells::ModelSpec spec = test::two_phase_spec(7, 6, 5, {test::make_well("W", 1, 1, 3, 4)});
    spec.eclipse.files = {dir.path() + "/with_actnum.grdecl"};
    spec.permeability.defaulted = spec.porosity.defaulted = true;
    const InputError e = [&] {
        try {
            wells::generate(spec, true);
        } catch (const InputError& error) {
            return error;
        }
        return InputError("", "no error");
    }();
    EXPECT_EQ(e.key(), "wells[0].perforations");
    EXPECT_THAT(e.detail(),
                HasSubstr("well 'W' perforates cell (i, j, k) = (1, 1, 4), which is inactive"));
}

}  // namespace
}  // namespace heptane
