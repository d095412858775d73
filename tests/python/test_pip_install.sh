#!/bin/sh
# test_pip_install.sh PYTHON SOURCE WORK: pip install SOURCE/python into a new virtual
# environment (the system's numpy and scipy visible; the host build of libgsolve, to keep the
# test short), then the README's Python example, whose solution is checked.
set -eu
py=$1 src=$2 work=$3
rm -rf "$work"
if ! "$py" -m venv --system-site-packages "$work/venv"; then
    echo "python_pip_install: $py cannot make a virtual environment (Debian: python3-venv): skipped"
    exit 77
fi
"$work/venv/bin/python" -m pip install --quiet --no-build-isolation --no-deps \
    -C cmake.define.GSOLVE_CUDA=OFF -C build-dir="$work/build" "$src/python"
cd "$work"
"$work/venv/bin/python" - <<'PY'
import numpy as np, scipy.sparse as sp, gsolve
n = 200
T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
A = (sp.kron(sp.eye(n), T) + sp.kron(T, sp.eye(n))).tocsr()
b = np.ones(A.shape[0])
s = gsolve.Solver(A)
x = s.solve(b)
r = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
print("gsolve", gsolve.version(), "installed at", gsolve.__file__)
print("iterations", s.info["iterations"], "residual", r)
assert s.info["converged"] and r < 1e-8
PY
