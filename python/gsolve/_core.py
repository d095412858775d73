"""The binding: ctypes over libgsolve's C API (include/gsolve.h), and the Solver around it."""

import ctypes
import os
import sys
import threading

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

__all__ = ["Solver", "solve", "Error", "InputError", "NotConvergedError", "version",
           "set_diagnostic"]

HOST, DEVICE = 0, 1
OK, ERROR, BAD_INPUT, NOT_CONVERGED = 0, 1, 2, 3

# Python-side settings (not keys of the library)
_PY_KEYS = {"raise_not_converged"}


class Error(RuntimeError):
    """A failure reported by the library, with its message."""


class InputError(Error, ValueError):
    """Bad input: a key, a value, a matrix or a vector the library refused."""


class NotConvergedError(Error):
    """The solve ended without reaching its tolerance (raised only with
    params={"raise_not_converged": True}); .info holds the run's numbers."""

    def __init__(self, message, info):
        super().__init__(message)
        self.info = info


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    names = ["libgsolve.so", "libgsolve.dylib", "gsolve.dll"]
    override = os.environ.get("GSOLVE_LIBRARY")  # a build tree's libgsolve.so (development)
    if override:
        return override
    for n in names:
        p = os.path.join(here, n)
        if os.path.exists(p):
            return p
    raise ImportError("gsolve: libgsolve was not found next to the package (%s); "
                      "install it with pip install ./python" % here)


_lib = ctypes.CDLL(_find_library())
_P = ctypes.c_void_p
_I64P = ctypes.POINTER(ctypes.c_int64)
_I32P = ctypes.POINTER(ctypes.c_int32)
_DP = ctypes.POINTER(ctypes.c_double)
_LOG = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)


def _proto(name, res, *args):
    f = getattr(_lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


_version = _proto("gsolve_version", ctypes.c_char_p)
_create = _proto("gsolve_create", ctypes.c_int, ctypes.POINTER(_P))
_destroy = _proto("gsolve_destroy", None, ctypes.POINTER(_P))
_set = _proto("gsolve_set", ctypes.c_int, _P, ctypes.c_char_p, ctypes.c_char_p)
_get_key = _proto("gsolve_get_key", ctypes.c_int, _P, ctypes.c_char_p, ctypes.c_char_p,
                  ctypes.c_size_t)
_set_log = _proto("gsolve_set_log", ctypes.c_int, _P, _LOG, _P)
_set_matrix = _proto("gsolve_set_matrix_csr", ctypes.c_int, _P, ctypes.c_int64, _P, _P, _P,
                     ctypes.c_int)
_set_matrix32 = _proto("gsolve_set_matrix_csr32", ctypes.c_int, _P, ctypes.c_int64, _P, _P, _P,
                       ctypes.c_int)
_set_nullspace = _proto("gsolve_set_nullspace", ctypes.c_int, _P, ctypes.c_int, _P)
_setup = _proto("gsolve_setup", ctypes.c_int, _P)
_update = _proto("gsolve_update_values", ctypes.c_int, _P, _P, ctypes.c_int)
_solve = _proto("gsolve_solve", ctypes.c_int, _P, ctypes.c_int, _P, _P, ctypes.c_int)
_apply = _proto("gsolve_apply", ctypes.c_int, _P, ctypes.c_int, _P, _P, ctypes.c_int)
_get = _proto("gsolve_get", ctypes.c_int, _P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_double))
_get_text = _proto("gsolve_get_text", ctypes.c_char_p, _P, ctypes.c_char_p)
_report = _proto("gsolve_report", ctypes.c_char_p, _P)
_error = _proto("gsolve_error", ctypes.c_char_p, _P)
_set_diag = _proto("gsolve_set_diagnostic", ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)


def version():
    """The library's version and what it was built with."""
    return _version().decode()


def set_diagnostic(name, value):
    """A diagnostic setting of the process (GSOLVE_FAIL_ALLOC, ...; None unsets it)."""
    rc = _set_diag(name.encode(), None if value is None else str(value).encode())
    if rc != OK:
        raise InputError("unknown diagnostic setting %r" % name)


# ---- array kinds: numpy on the host, CuPy and PyTorch on the device ----

def _kind(a):
    """'numpy', 'cupy', 'torch' or 'torch_cpu' for an array or a sparse matrix."""
    mod = type(a).__module__
    if mod.startswith("cupy") or mod.startswith("cupyx"):
        return "cupy"
    if mod.startswith("torch"):
        return "torch" if a.is_cuda else "torch_cpu"
    return "numpy"


def _ptr(a, kind):
    if kind == "cupy":
        return a.data.ptr
    if kind == "torch":
        return a.data_ptr()
    return a.ctypes.data


def _block_size(A):
    """R for a matrix of square R x R blocks (scipy BSR, PyTorch sparse BSR), else 1"""
    if scipy.sparse.issparse(A) and A.format == "bsr":
        r, c = A.blocksize
        return r if r == c else 1
    if _kind(A) in ("torch", "torch_cpu"):
        import torch
        if A.layout == torch.sparse_bsr:
            r, c = A.values().shape[1:3]
            return int(r) if r == c else 1
    return 1


def _is_int32(a):
    return str(a.dtype) in ("int32", "torch.int32")


def _matrix_arrays(A):
    """(n, rowptr, cols int32, vals float64, kind) of any supported matrix; the arrays
    contiguous, on the host (numpy) or on the device (cupy, torch); rowptr int32 when the
    matrix has it so (scipy's and cupy's usual CSR: passed without a copy), int64 otherwise."""
    kind = _kind(A)
    if kind == "cupy":
        import cupy
        import cupyx.scipy.sparse as csp
        if not csp.issparse(A):
            raise InputError("gsolve: a CuPy matrix must be a cupyx.scipy.sparse matrix")
        C = A.tocsr()
        if C.shape[0] != C.shape[1]:
            raise InputError("gsolve: the matrix is %d x %d; the solvers need a square matrix"
                             % C.shape)
        rp = cupy.ascontiguousarray(C.indptr, dtype=None if _is_int32(C.indptr) else cupy.int64)
        ci = cupy.ascontiguousarray(C.indices, dtype=cupy.int32)
        v = cupy.ascontiguousarray(C.data, dtype=cupy.float64)
        return C.shape[0], rp, ci, v, "cupy"
    if kind in ("torch", "torch_cpu"):
        import torch
        if A.layout != torch.sparse_csr:
            A = A.to_sparse_csr()
        if A.shape[0] != A.shape[1]:
            raise InputError("gsolve: the matrix is %d x %d; the solvers need a square matrix"
                             % tuple(A.shape))
        rp = A.crow_indices()
        rp = (rp if _is_int32(rp) else rp.to(torch.int64)).contiguous()
        ci = A.col_indices().to(torch.int32).contiguous()
        v = A.values().to(torch.float64).contiguous()
        if kind == "torch_cpu":
            return A.shape[0], rp.numpy(), ci.numpy(), v.numpy(), "numpy"
        return A.shape[0], rp, ci, v, "torch"
    if isinstance(A, np.ndarray) or not scipy.sparse.issparse(A):
        A = scipy.sparse.csr_matrix(np.asarray(A, dtype=np.float64))
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise InputError("gsolve: the matrix is %s; the solvers need a square matrix"
                         % " x ".join(str(d) for d in A.shape))
    if not np.issubdtype(A.dtype, np.number) or np.issubdtype(A.dtype, np.complexfloating):
        raise InputError("gsolve: the matrix's values are %s; gsolve solves real systems"
                         % A.dtype)
    C = A.tocsr()
    rp = np.ascontiguousarray(C.indptr, dtype=None if _is_int32(C.indptr) else np.int64)
    ci = np.ascontiguousarray(C.indices, dtype=np.int32)
    v = np.ascontiguousarray(C.data, dtype=np.float64)
    return C.shape[0], rp, ci, v, "numpy"


def _same(a, b, kind):
    if a.shape != b.shape:
        return False
    if kind == "cupy":
        import cupy
        return bool(cupy.array_equal(a, b))
    if kind == "torch":
        import torch
        return bool(torch.equal(a, b))
    return bool(np.array_equal(a, b))


class Solver:
    """A linear solver for A x = b with its setup (the AMG hierarchy) made once.

    A: a scipy sparse matrix or array (CSR, CSC, COO, BSR, ...), a dense numpy array, a
    cupyx.scipy.sparse matrix or a PyTorch sparse CSR tensor (on the GPU: used there).
    params: a dict of configuration keys ({"solver.type": "gmres", "amg.theta": 0.2});
    `gsolve --help-config` lists them. Unless params says otherwise the preconditioner is AMG.
    near_nullspace: n x k array (rigid-body modes of elasticity) for smoothed aggregation.
    params["raise_not_converged"] = True makes a solve that does not converge raise
    NotConvergedError (otherwise info["converged"] says so).
    """

    def __init__(self, A, params=None, near_nullspace=None):
        self._h = _P()
        self._lock = threading.Lock()
        self._raise = False
        self._log_cb = None
        self.info = {}
        rc = _create(ctypes.byref(self._h))
        if rc != OK or not self._h:
            raise Error("gsolve: the context could not be made (out of memory)")
        params = dict(params or {})
        params.setdefault("solver.preconditioner", "amg")
        self._params = params
        for k, v in params.items():
            self.set(k, v)
        self._set_matrix(A)
        if near_nullspace is not None:
            self._set_nullspace(near_nullspace)
        self._check(_setup(self._h))
        self.info = self._info(setup_only=True)

    # ---- context ----

    def close(self):
        """Free the library's memory now (also done when the Solver is collected)."""
        if getattr(self, "_h", None):
            _destroy(ctypes.byref(self._h))
            self._h = _P()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _live(self):
        if not self._h:
            raise Error("gsolve: this Solver was closed")

    def _message(self):
        return _error(self._h).decode(errors="replace") if self._h else "closed"

    def _check(self, rc):
        if rc == OK:
            return
        msg = self._message()
        if rc == BAD_INPUT:
            raise InputError(msg)
        raise Error(msg)

    # ---- settings ----

    def set(self, key, value):
        """Set one configuration key (checked by the library; the setup is made again at the
        next solve)."""
        self._live()
        if key in _PY_KEYS:
            self._raise = bool(value)
            return
        if isinstance(value, bool):
            value = "1" if value else "0"
        elif isinstance(value, (list, tuple)):
            value = ",".join(str(x) for x in value)
        self._check(_set(self._h, str(key).encode(), str(value).encode()))

    def get(self, key):
        """The current value of a configuration key, as text."""
        self._live()
        buf = ctypes.create_string_buffer(4096)
        self._check(_get_key(self._h, str(key).encode(), buf, len(buf)))
        return buf.value.decode()

    def set_log(self, fn):
        """fn(level, message) receives the library's warnings and traces (None: dropped)."""
        self._live()
        if fn is None:
            self._log_cb = None
            self._check(_set_log(self._h, _LOG(), None))
            return
        self._log_cb = _LOG(lambda user, level, msg: fn(level, msg.decode(errors="replace")))
        self._check(_set_log(self._h, self._log_cb, None))

    # ---- the matrix ----

    def _set_matrix(self, A):
        bs = _block_size(A)
        if bs > 1 and "amg.block_size" not in self._params:
            self.set("amg.block_size", bs)  # a BSR matrix's blocks: the AMG's nodes
        n, rp, ci, v, kind = _matrix_arrays(A)
        where = HOST if kind == "numpy" else DEVICE
        if where == DEVICE:
            self.set("run.backend", "cuda")
        self._n, self._kind = n, kind
        self._pattern = (rp, ci)
        fn = _set_matrix32 if _is_int32(rp) else _set_matrix
        self._check(fn(self._h, n, _ptr(rp, kind), _ptr(ci, kind), _ptr(v, kind), where))

    def _set_nullspace(self, B):
        if _kind(B) == "cupy":
            B = B.get()
        elif _kind(B) in ("torch", "torch_cpu"):
            B = B.detach().cpu().numpy()
        B = np.asarray(B, dtype=np.float64)
        if B.ndim == 1:
            B = B[:, None]
        if B.ndim != 2 or B.shape[0] != self._n:
            raise InputError("gsolve: near_nullspace must be %d x k, not %s"
                             % (self._n, "x".join(str(d) for d in B.shape)))
        cols = np.asfortranarray(B)
        self._check(_set_nullspace(self._h, cols.shape[1], cols.ctypes.data))

    def update(self, A_new):
        """New values for the matrix of the same pattern, set up again keeping what the key
        amg.reuse says (by default the AMG's prolongators while the iterations stay within 1.25x
        of those after the last full setup); info["setup"] says "full" or "prolongator"."""
        self._live()
        n, rp, ci, v, kind = _matrix_arrays(A_new)
        if n != self._n or kind != self._kind or not (_same(rp, self._pattern[0], kind) and
                                                      _same(ci, self._pattern[1], kind)):
            raise InputError("gsolve: update needs a matrix of the same pattern (%d rows, the "
                             "same row pointers and column indices, the same kind of array)"
                             % self._n)
        with self._lock:
            self._check(_update(self._h, _ptr(v, kind), HOST if kind == "numpy" else DEVICE))
            self._check(_setup(self._h))
        self.info = self._info(setup_only=True)

    # ---- vectors ----

    def _columns(self, b, name):
        """(columns n x k Fortran-ordered array of the matrix's kind, k, shape) of b"""
        kind = self._kind
        bk = _kind(b)
        if kind == "numpy":
            if bk != "numpy" and bk != "torch_cpu":
                raise InputError("gsolve: %s is a device array; the matrix was given on the "
                                 "host" % name)
            arr = np.asarray(b.numpy() if bk == "torch_cpu" else b)
            if arr.dtype.kind not in "fiub" :
                raise InputError("gsolve: %s has values of type %s" % (name, arr.dtype))
            shape = arr.shape
            if arr.ndim not in (1, 2) or arr.shape[0] != self._n:
                raise InputError("gsolve: %s has shape %s; expected (%d,) or (%d, k)"
                                 % (name, shape, self._n, self._n))
            # the caller's array as it is when it is already float64 in columns (the library
            # only reads b); a copy otherwise
            cols = np.asfortranarray(arr, dtype=np.float64)
            return cols, (1 if arr.ndim == 1 else arr.shape[1]), shape
        if bk != kind:
            raise InputError("gsolve: %s is a %s array; the matrix was given as %s"
                             % (name, bk, kind))
        shape = tuple(b.shape)
        if len(shape) not in (1, 2) or shape[0] != self._n:
            raise InputError("gsolve: %s has shape %s; expected (%d,) or (%d, k)"
                             % (name, shape, self._n, self._n))
        if kind == "cupy":
            import cupy
            cols = cupy.array(b, dtype=cupy.float64, order="F", copy=True)
        else:
            import torch
            t = b.to(torch.float64)
            cols = (t.t().contiguous().t() if t.dim() == 2 else t.contiguous()).clone()
        return cols, (1 if len(shape) == 1 else shape[1]), shape

    def _zeros_like(self, cols):
        if self._kind == "cupy":
            import cupy
            return cupy.zeros_like(cols, order="F")
        if self._kind == "torch":
            import torch
            return torch.zeros_like(cols)
        return np.zeros_like(cols, order="F")

    # ---- solving ----

    def solve(self, b, x0=None):
        """x with A x = b: b of shape (n,) or (n, k) (k right-hand sides, one setup); x0 the
        initial guess (default 0). numpy in, numpy out; CuPy or PyTorch on the GPU in, the same
        type on the same device out. self.info holds the run's numbers."""
        self._live()
        bc, k, shape = self._columns(b, "b")
        if x0 is None:
            xc = self._zeros_like(bc)
        else:
            xc = self._columns(x0, "x0")[0]
            if xc is x0 or (self._kind == "numpy" and np.shares_memory(xc, x0)):
                xc = xc.copy(order="F")  # the solution goes into a new array, x0 stays
        if x0 is not None and tuple(xc.shape) != tuple(bc.shape):
            raise InputError("gsolve: x0 has shape %s; b has %s" % (tuple(x0.shape), shape))
        where = HOST if self._kind == "numpy" else DEVICE
        with self._lock:
            rc = _solve(self._h, k, _ptr(bc, self._kind), _ptr(xc, self._kind), where)
            if rc not in (OK, NOT_CONVERGED):
                self._check(rc)
            self.info = self._info(k=k)
        if rc == NOT_CONVERGED and self._raise:
            raise NotConvergedError(self._message(), self.info)
        return xc.reshape(shape) if len(shape) == 1 else xc

    def aspreconditioner(self):
        """A LinearOperator applying one cycle of the preconditioner (AMG by default), for
        scipy.sparse.linalg's methods (cupyx.scipy.sparse.linalg's for a CuPy matrix)."""
        self._live()
        n = self._n

        def matvec(r):
            rc, k, shape = self._columns(r, "r")
            z = self._zeros_like(rc)
            where = HOST if self._kind == "numpy" else DEVICE
            with self._lock:
                self._check(_apply(self._h, k, _ptr(rc, self._kind), _ptr(z, self._kind), where))
            return z.reshape(shape) if len(shape) == 1 else z

        if self._kind == "cupy":
            import cupyx.scipy.sparse.linalg as cla
            return cla.LinearOperator((n, n), matvec=matvec, dtype="float64")
        return scipy.sparse.linalg.LinearOperator((n, n), matvec=matvec, matmat=matvec,
                                                  dtype=np.float64)

    # ---- results ----

    def _num(self, name):
        v = ctypes.c_double()
        rc = _get(self._h, name.encode(), ctypes.byref(v))
        return v.value if rc == OK else None

    def _text(self, name):
        t = _get_text(self._h, name.encode())
        return t.decode() if t is not None else None

    def _info(self, k=0, setup_only=False):
        levels = int(self._num("levels") or 1)
        table = []
        for lv in range(levels):
            table.append({"rows": int(self._num("level_rows:%d" % lv) or 0),
                          "nnz": int(self._num("level_nnz:%d" % lv) or 0),
                          "format": self._text("level_format:%d" % lv) or ""})
        info = {"setup_s": self._num("setup_s"), "levels": levels,
                "operator_complexity": self._num("operator_complexity"),
                "grid_complexity": self._num("grid_complexity"),
                "level_table": table, "backend": self._text("backend"),
                "device": self._text("device"), "format": self._text("format"),
                "amg_method": self._text("amg_method"),
                "preconditioner": self._text("preconditioner"), "solver": self._text("solver"),
                "setup": self._text("setup"), "reused": self._text("reused")}
        if setup_only:
            return info
        info.update({"iterations": int(self._num("iterations")),
                     "residual": self._num("residual"),
                     "converged": bool(self._num("converged")),
                     "reason": self._text("reason"), "reason_text": self._text("reason_text"),
                     "solve_s": self._num("solve_s")})
        if k > 1:
            info["columns"] = [{"iterations": int(self._num("iterations:%d" % j)),
                                "residual": self._num("residual:%d" % j),
                                "converged": bool(self._num("converged:%d" % j))}
                               for j in range(k)]
        return info

    def report(self):
        """The last solve's summary as text (the gsolve program's console summary)."""
        self._live()
        return _report(self._h).decode(errors="replace")


def solve(A, b, params=None, x0=None):
    """x with A x = b in one call (Solver(A, params).solve(b, x0))."""
    with Solver(A, params) as s:
        return s.solve(b, x0)
