"""bench/python/bench_pyamg.py [SCALE] [REPS]: gsolve's Python package beside PyAMG on the host,
on PyAMG's gallery problems: time to solution (setup + solve, wall, medians of REPS after a
warm-up) and iterations, AMG-CG to rtol 1e-8, b = ones (the same b for both).
PyAMG: smoothed_aggregation_solver(A, B).solve(b, tol=1e-8, accel="cg");
gsolve: Solver(A, near_nullspace=B).solve(b) with default settings (run.backend = "host").
A as the gallery makes it (elasticity: BSR with 2 x 2 blocks, which gsolve takes as its AMG's
nodes); PyAMG also runs on A's CSR form there, and the faster of its two runs is taken.
SCALE multiplies the grid sizes (1: about 1M unknowns in 2D, 0.25M in 3D)."""
import sys

import numpy as np
import pyamg

import gsolve
from bench_overhead import timed


def problems(scale):
    n2 = int(1000 * scale)
    n3 = int(64 * scale)
    ne = int(400 * scale)
    yield "poisson2d-%d" % n2, pyamg.gallery.poisson((n2, n2), format="csr"), None
    yield "poisson3d-%d" % n3, pyamg.gallery.poisson((n3, n3, n3), format="csr"), None
    A, B = pyamg.gallery.linear_elasticity((ne, ne), format="bsr")
    yield "elasticity2d-%d" % ne, A, B
    st = pyamg.gallery.diffusion_stencil_2d(epsilon=0.001, theta=np.pi / 8, type="FE")
    yield "rotated-aniso2d-%d" % n2, pyamg.gallery.stencil_grid(st, (n2, n2), format="csr"), None


def main():
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print("| problem | rows | PyAMG its | PyAMG s | gsolve its | gsolve s | PyAMG / gsolve time |"
          " gsolve residual |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, A, B in problems(scale):
        b = np.ones(A.shape[0])

        def run_pyamg(M):
            res = []
            ml = pyamg.smoothed_aggregation_solver(M, B=B)
            ml.solve(b, tol=1e-8, accel="cg", residuals=res)
            return len(res) - 1

        def run_gsolve():
            with gsolve.Solver(A, {"run.backend": "host"}, near_nullspace=B) as s:
                x = s.solve(b)
                return s.info["iterations"], np.linalg.norm(b - A @ x) / np.linalg.norm(b)

        its_p, t_p = timed(lambda: run_pyamg(A), reps)
        if A.format != "csr":
            its_c, t_c = timed(lambda: run_pyamg(A.tocsr()), reps)
            if t_c < t_p:
                its_p, t_p = its_c, t_c
        (its_g, res_g), t_g = timed(run_gsolve, reps)
        print("| %s | %d | %d | %.3f | %d | %.3f | %.2f | %.1e |"
              % (name, A.shape[0], its_p, t_p, its_g, t_g, t_p / t_g, res_g))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
