"""bench/python/bench_cupy.py N [REPS]: gsolve's Python package on the GPU beside
cupyx.scipy.sparse.linalg.cg without a preconditioner, on 3D Poisson 7-point N^3 (CuPy CSR on
the device, b = ones on the device, rtol 1e-8). Per repeat the wall time to solution with the
device synchronised: Solver(A).solve(b) (context, setup and solve) for gsolve, cg(A, b) for
CuPy; medians of REPS after a warm-up; iterations and true residuals."""
import sys

import cupy
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as cla

import gsolve
from bench_overhead import poisson3d, timed


def main():
    N = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    A = csp.csr_matrix(poisson3d(N))
    b = cupy.ones(A.shape[0])
    nb = float(cupy.linalg.norm(b))

    def cg():
        try:
            return cla.cg(A, b, rtol=1e-8, maxiter=20000)[0]
        except TypeError:  # CuPy versions whose cg names it tol
            return cla.cg(A, b, tol=1e-8, maxiter=20000)[0]

    its = [0]

    def count(xk):
        its[0] += 1

    try:
        cla.cg(A, b, rtol=1e-8, maxiter=20000, callback=count)
    except TypeError:
        cla.cg(A, b, tol=1e-8, maxiter=20000, callback=count)
    x_c, t_c = timed(cg, reps, cupy.cuda.Device().synchronize)
    info = {}

    def gs():
        with gsolve.Solver(A) as s:
            x = s.solve(b)
            info.update(s.info)
            return x

    x_g, t_g = timed(gs, reps, cupy.cuda.Device().synchronize)
    r_c = float(cupy.linalg.norm(b - A @ x_c)) / nb
    r_g = float(cupy.linalg.norm(b - A @ x_g)) / nb
    print("| solver | rows | iterations | wall s | true residual |")
    print("|---|---:|---:|---:|---:|")
    print("| cupyx cg, no preconditioner | %d | %d | %.4f | %.1e |" % (A.shape[0], its[0], t_c, r_c))
    print("| gsolve Solver(A).solve(b) | %d | %d | %.4f | %.1e |" % (A.shape[0], info["iterations"],
                                                                   t_g, r_g))
    print("cupyx / gsolve wall: %.2f (gsolve setup_s %.4f solve_s %.4f)"
          % (t_c / t_g, info["setup_s"], info["solve_s"]))


if __name__ == "__main__":
    main()
