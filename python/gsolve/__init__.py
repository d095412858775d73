"""gsolve: a GPU sparse linear solver (AMG-preconditioned CG, GMRES, BiCGStab, MINRES) for
scipy, CuPy and PyTorch matrices.

    import gsolve
    s = gsolve.Solver(A, {"solver.type": "cg"})   # A: scipy sparse, CuPy or PyTorch
    x = s.solve(b)                                # numpy in, numpy out; CuPy in, CuPy out
    print(s.info["iterations"], s.info["residual"])

See python/README.md.
"""

from ._core import (Error, InputError, NotConvergedError, Solver, set_diagnostic, solve,
                    version)

__all__ = ["Solver", "solve", "Error", "InputError", "NotConvergedError", "version",
           "set_diagnostic"]
__version__ = "0.1.0"
