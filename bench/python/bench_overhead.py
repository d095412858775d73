"""bench/python/bench_overhead.py N [REPS] [BACKEND]: the Python package's overhead, beside
bench_api (the same solve through the C API): 3D Poisson 7-point N^3 (scipy CSR, rows sorted),
b = ones, AMG-CG to rtol 1e-8; per repeat the wall time of Solver(A) + solve(b), after one
warm-up; medians. Run with PYTHONPATH=python (and GSOLVE_LIBRARY=build/libgsolve.so for a build
tree), then compare with build/bench/bench_api N REPS BACKEND."""
import sys
import time

import numpy as np
import scipy.sparse as sp

import gsolve


def poisson3d(N):
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(N, N), format="csr")
    I = sp.eye(N, format="csr")
    A = sp.kron(sp.kron(I, I), T) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(T, I), I)
    A = A.tocsr()
    A.sort_indices()
    return A


def timed(fn, reps, sync=None):
    """(fn's last result, the median wall time of reps runs after a warm-up); sync (the
    device's synchronisation, for GPU work) runs before and after each"""
    out, t = None, []
    for r in range(-1, reps):
        if sync:
            sync()
        t0 = time.perf_counter()
        out = fn()
        if sync:
            sync()
        if r >= 0:
            t.append(time.perf_counter() - t0)
    return out, float(np.median(t))


def main():
    N = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    backend = sys.argv[3] if len(sys.argv) > 3 else "auto"
    A = poisson3d(N)
    b = np.ones(A.shape[0])
    wall, setup, solve, its = [], [], [], 0
    for r in range(-1, reps):
        t0 = time.perf_counter()
        with gsolve.Solver(A, {"run.backend": backend}) as s:
            s.solve(b)
            t1 = time.perf_counter()
            info = s.info
        if r >= 0:
            wall.append(t1 - t0)
            setup.append(info["setup_s"])
            solve.append(info["solve_s"])
            its = info["iterations"]
    print("bench_overhead N=%d rows=%d backend=%s reps=%d iterations=%d wall_s=%.4f setup_s=%.4f "
          "solve_s=%.4f" % (N, A.shape[0], backend, reps, its, np.median(wall), np.median(setup),
                            np.median(solve)))


if __name__ == "__main__":
    main()
