"""PETSc BiCGStab with a quick CPR (stage 1: hypre BoomerAMG) on a system heptane exports.

The independent check of heptane's CPR (issue 21, core/precond/cpr.hpp): the same two
stages, with hypre's algebraic multigrid instead of heptane's structured one.
  quasi-IMPES weights   D_m^T w_m = e_0, D_m cell m's K x K diagonal block
  pressure system       P = R A E: R takes w_m^T r_m per cell and the wells as they are,
                        E puts x_p into component 0 of every cell and into the wells
  stage 1               x = E (one BoomerAMG V-cycle on P applied to R r)
  stage 2               z = x + B^{-1} (r - A x), B point-block Jacobi (the cells' K x K
                        diagonal blocks, the well rows' diagonal)
KSP: bcgs, right preconditioning, stop when ||b - A x|| / ||b|| <= rtol (the unpreconditioned
recursive residual, as heptane's BiCGStab), x0 = 0. Runs: CPR with BoomerAMG's defaults, CPR
with strong threshold 0.5 (the usual 3D choice), point-block Jacobi alone. One MPI rank;
Debian's hypre is built with OpenMP: its threads are OMP_NUM_THREADS, 1 when unset (PETSc's
own kernels and this script's numpy stages are serial).

    scripts/install_petsc.sh           # Debian's PETSc + hypre + petsc4py
    build/app/heptane info DECK        # K, cells M (wells: rows - M K)
    build/app/heptane export DECK --matrix A.mtx --rhs b.mtx
    /usr/bin/python3 scripts/petsc_cpr.py A.mtx b.mtx --block-size K --cells M [--check]

Unknowns: cell m's K at rows m K .. m K + K - 1 (component 0: pressure), then the wells'.
--check builds P a second way (PETSc's R A E product) and compares (small systems).
"""
import argparse
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # hypre's threads, read when it loads
import numpy as np  # noqa: E402
from petsc4py import PETSc  # noqa: E402
from mtx_io import read_mtx  # noqa: E402


def aij(rows, cols, vals, shape):
    """A PETSc AIJ matrix from COO triplets (duplicates summed)."""
    key = rows * shape[1] + cols
    key, inv = np.unique(key, return_inverse=True)
    vals = np.bincount(inv, weights=vals, minlength=len(key))
    r, c = key // shape[1], key % shape[1]
    indptr = np.concatenate(([0], np.cumsum(np.bincount(r, minlength=shape[0]))))
    return PETSc.Mat().createAIJ(shape, csr=(indptr.astype(PETSc.IntType),
                                             c.astype(PETSc.IntType), vals), comm=PETSc.COMM_SELF)


class Cpr:
    """The PCSHELL context: stage 1 (when amg is given) and stage 2, as in cpr.hpp."""

    def __init__(self, A, rows, cols, vals, K, M, amg_options=None):
        self.A, self.K, self.M, self.n = A, K, M, A.getSize()[0]
        MK = M * K
        cell = (rows < MK) & (cols < MK) & (rows // K == cols // K)
        self.D = np.zeros((M, K, K))
        self.D[rows[cell] // K, rows[cell] % K, cols[cell] % K] = vals[cell]
        self.Dinv = np.linalg.inv(self.D)                   # stage 2: B^{-1}, cells
        wdiag = np.zeros(self.n - MK)
        well = (rows >= MK) & (rows == cols)
        wdiag[rows[well] - MK] = vals[well]
        self.wdinv = 1.0 / wdiag                            # stage 2: B^{-1}, wells
        # quasi-IMPES: w_m = D_m^{-T} e_0, i.e. row 0 of D_m^{-1}
        self.w = self.Dinv[:, 0, :].copy()
        self.amg = None
        if amg_options is None:
            return
        self.P = pressure_matrix(rows, cols, vals, self.w, K, M, self.n)
        prefix = "amg%d_" % id(self)
        opts = PETSc.Options()
        for key, value in amg_options.items():
            opts[prefix + key] = value
        self.amg = PETSc.PC().create(comm=PETSc.COMM_SELF)
        self.amg.setOptionsPrefix(prefix)
        self.amg.setType("hypre")
        self.amg.setHYPREType("boomeramg")
        self.amg.setOperators(self.P)
        self.amg.setFromOptions()
        self.amg.setUp()
        self.rp, self.xp = self.P.createVecs()
        self.s = A.createVecLeft()

    def stage2(self, r):
        K, MK = self.K, self.M * self.K
        z = np.empty_like(r)
        z[:MK] = np.einsum("mij,mj->mi", self.Dinv, r[:MK].reshape(-1, K)).ravel()
        z[MK:] = self.wdinv * r[MK:]
        return z

    def apply(self, pc, r, z):
        rr = r.getArray(readonly=True)
        if self.amg is None:
            z.setArray(self.stage2(rr))
            return
        K, M, MK = self.K, self.M, self.M * self.K
        rp = self.rp.getArray()
        rp[:M] = np.einsum("mk,mk->m", self.w, rr[:MK].reshape(M, K))  # R r
        rp[M:] = rr[MK:]
        self.amg.apply(self.rp, self.xp)                    # one V-cycle, x_p(0) = 0
        xp = self.xp.getArray(readonly=True)
        x = np.zeros(self.n)
        x[:MK:K] = xp[:M]                                   # E x_p
        x[MK:] = xp[M:]
        z.setArray(x)
        self.A.mult(z, self.s)                              # s = r - A x
        z.setArray(x + self.stage2(rr - self.s.getArray(readonly=True)))


def pressure_matrix(rows, cols, vals, w, K, M, n):
    """P(m, n) = w_m^T A_mn e_0 (cell rows weighted, well rows as they are; pressure and well
    columns kept), built entry by entry from A's triplets."""
    MK = M * K
    keep = (cols >= MK) | (cols % K == 0)
    r, c, v = rows[keep], cols[keep], vals[keep]
    cellrow = r < MK
    weight = np.where(cellrow, w.ravel()[np.minimum(r, MK - 1)], 1.0)
    pr = np.where(cellrow, r // K, r - MK + M)
    pc = np.where(c < MK, c // K, c - MK + M)
    return aij(pr, pc, weight * v, (M + n - MK, M + n - MK))


def pressure_matrix_rae(A, w, K, M, n):
    """The same P as the product R A E of explicit restriction and prolongation matrices."""
    MK, Np = M * K, M + n - M * K
    m = np.arange(M)
    R = aij(np.concatenate((np.repeat(m, K), np.arange(M, Np))),
            np.arange(n), np.concatenate((w.ravel(), np.ones(n - MK))), (Np, n))
    E = aij(np.concatenate((m * K, np.arange(MK, n))), np.arange(Np), np.ones(Np), (n, Np))
    return R.matMult(A.matMult(E))


def solve(A, b, ctx, rtol, maxit):
    ksp = PETSc.KSP().create(comm=PETSc.COMM_SELF)
    ksp.setOperators(A)
    ksp.setType("bcgs")
    ksp.setPCSide(PETSc.PC.Side.RIGHT)
    ksp.setNormType(PETSc.KSP.NormType.UNPRECONDITIONED)
    ksp.setTolerances(rtol=rtol, atol=0.0, max_it=maxit)
    ksp.setInitialGuessNonzero(False)
    ksp.getPC().setType("python")
    ksp.getPC().setPythonContext(ctx)
    ksp.setUp()
    x = A.createVecRight()
    t = time.perf_counter()
    ksp.solve(b, x)
    t_solve = time.perf_counter() - t
    r = b.duplicate()
    A.mult(x, r)
    r.aypx(-1.0, b)                                          # r = b - A x
    return ksp.getIterationNumber(), r.norm() / b.norm(), t_solve, ksp.getConvergedReason()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("matrix"), ap.add_argument("rhs")
    ap.add_argument("--block-size", type=int, required=True, help="K (heptane info)")
    ap.add_argument("--cells", type=int, required=True, help="M (heptane info)")
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--max-it", type=int, default=2000)
    ap.add_argument("--check", action="store_true", help="check P against R A E")
    a = ap.parse_args()

    t = time.perf_counter()
    n, _, rows, cols, vals = read_mtx(a.matrix)
    A = aij(rows, cols, vals, (n, n))
    b = PETSc.Vec().createWithArray(read_mtx(a.rhs), comm=PETSc.COMM_SELF)
    K, M = a.block_size, a.cells
    print(f"{a.matrix}: {n:,} unknowns = {M:,} cells x K = {K} + {n - M * K} wells, "
          f"{len(vals):,} nonzeros, read in {time.perf_counter() - t:.1f} s")
    hv = PETSc.Sys.getVersion()
    threads = os.environ["OMP_NUM_THREADS"]
    print(f"PETSc {hv[0]}.{hv[1]}.{hv[2]} (petsc4py), MPI ranks: {PETSc.COMM_WORLD.getSize()} "
          f"(serial), hypre OpenMP threads: {threads}, PETSc and numpy: 1")

    runs = [("PETSc CPR, BoomerAMG defaults", {}),
            ("PETSc CPR, BoomerAMG strong threshold 0.5",
             {"pc_hypre_boomeramg_strong_threshold": 0.5}),
            ("PETSc point-block Jacobi (stage 2 only)", None)]
    for name, amg in runs:
        t = time.perf_counter()
        ctx = Cpr(A, rows, cols, vals, K, M, amg)
        t_setup = time.perf_counter() - t
        if a.check and amg is not None:
            e = np.abs(np.einsum("mk,mkj->mj", ctx.w, ctx.D) - np.eye(K)[0]).max()
            Q = pressure_matrix_rae(A, ctx.w, K, M, n)
            Q.axpy(-1.0, ctx.P, structure=PETSc.Mat.Structure.DIFFERENT_NONZERO_PATTERN)
            print(f"  check: max |w^T D - e_0^T| = {e:.1e}, ||P - R A E||_F / ||P||_F = "
                  f"{Q.norm(PETSc.NormType.FROBENIUS) / ctx.P.norm(PETSc.NormType.FROBENIUS):.1e}"
                  f" (P: {ctx.P.getSize()[0]:,} rows, {ctx.P.getInfo()['nz_used']:.0f} nonzeros)")
        its, res, t_solve, reason = solve(A, b, ctx, a.rtol, a.max_it)
        print(f"{name}: {its} iterations, true ||b - A x|| / ||b|| = {res:.2e} (reason {reason}),"
              f" setup {t_setup:.3f} s, solve {t_solve:.3f} s")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
