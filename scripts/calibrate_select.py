#!/usr/bin/env python3
"""Propose the thresholds of gsolve's SpMV format rule table (spmv/select/gs_select.c) from
measurements of every format, so the table can be recalibrated on a new GPU in one command:

    build/bench/bench_select --csv sel.csv --md sel.md [MATRIX ...]
    python3 scripts/calibrate_select.py sel.csv        # or the --md table: sel.md

Input: the CSV that bench_select --csv writes (one row per matrix: features and the seconds of
every format, nan where a format refused), or the markdown table of bench_select --md. A table
measured with --backend host (no cuSPARSE column) calibrates the host rows.

The rows of one location (first matching row wins), whose thresholds and formats the script
searches:

    1. uneven rows: std > C x mean, rows < U and nnz >= N           -> XS (suraa)
    1b. uneven rows: std > C x mean, max <= UM x mean, nnz >= N     -> cmrs (GPU only)
    2. uneven rows: std > C x mean                                  -> XL (GPU cusparse, host suraa)
    3. small: rows < R                                              -> csr
    3b. short uneven rows: mean < SM, std > SC x mean, nnz >= N     -> suraa (GPU only)
    4. structured: block diagonals <= K, 0 <= CDS fill <= F
       (and block size 1 when B1)                                   -> cds
    5. long rows: mean >= M                                         -> Y (GPU cmrs, host suraa)
    6. default                                                      -> csr

A candidate value is a midpoint between two measured feature values; a format that refuses a
matrix falls back to csr, as gs_select_spmat does. The objective, in order: no matrix below
--floor x cuSPARSE (GPU tables only), the most matrices within
--within of the measured best, the highest geometric mean of best/auto. The search is a
coordinate descent from the table in force (read from spmv/select/gs_select.c), once per choice of the
formats XS, XL and Y; ties keep the value in force, or else take the roundest number that decides
alike. It prints each matrix's outcome under the table in force and under the proposal, and the
#define lines to paste into spmv/select/gs_select.c.

N is not searched: it keeps row 1's conversion within the cost limit. Wherever the table in
force picked row 1's format, the run's cost of the features and the conversion is known (in
SpMVs of that format); N is proposed just above the largest nnz whose cost passed
--max-cost x --cost-margin (the one in force when none did). It only rises from the value in
force: to find it afresh, set N to 0 in spmv/select/gs_select.c, rebuild and rerun the benchmark. The
cost limit is the GPU's: a host table keeps the N in force.
"""
import argparse
import csv
import math
import os
import re
import sys

FORMATS = ["csr", "cusparse", "cmrs", "suraa", "cds"]
PARAMS = ["C", "U", "N", "UM", "R", "SC", "SM", "K", "F", "B1", "M"]
DEFINES = {"C": "UNEVEN_CV", "U": "UNEVEN_ROWS", "N": "UNEVEN_MIN_NNZ", "R": "SMALL_ROWS",
           "UM": "UNEVEN_MAX_RATIO", "SC": "SHORT_UNEVEN_CV", "SM": "SHORT_MEAN",
           "K": "CDS_MAX_DIAGS", "F": "CDS_MAX_FILL", "B1": "CDS_BLOCK1", "M": "LONG_MEAN"}
INTEGER = ("U", "N", "R", "K", "B1")
FORMAT_XS = {True: "suraa", False: "suraa"}    # row 1's format in the table, GPU / host
FORMAT_XL = {True: "cusparse", False: "suraa"}  # row 2's
FORMAT_Y = {True: "cmrs", False: "suraa"}       # row 5's
OPEN_LOW = ("M", "R", "U", "SM")  # thresholds compared as rows < T, mean >= T, mean < T

# markdown headers of bench_select --md -> the CSV's names (times there in microseconds)
MD_COLUMNS = {
    "matrix": "matrix", "rows": "rows", "nnz": "nnz", "mean": "mean", "std": "std",
    "max": "max", "diags": "ndiags", "b": "block", "K": "nblockdiags", "fill": "cds_fill",
    "cusparse us": "t_cusparse", "csr us": "t_csr", "cmrs us": "t_cmrs", "suraa us": "t_suraa",
    "cds us": "t_cds", "auto": "auto", "features+conversion / auto SpMV": "cost",
}


def num(s):
    s = (s or "").strip()
    if s in ("", "-", "nan", "-nan"):
        return float("nan")
    return float(s)


def read_csv(path):
    with open(path, newline="") as f:
        return [dict(r) for r in csv.DictReader(f)]


def read_md(path):
    rows, header = [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("|"):
                header = None if not line else header
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells and cells[0] == "matrix" and "mean" in cells and "csr us" in cells:
                header = cells
                continue
            if header is None or cells[0].startswith("---") or len(cells) != len(header):
                continue
            r = {}
            for h, c in zip(header, cells):
                if h in MD_COLUMNS:
                    key = MD_COLUMNS[h]
                    r[key] = str(num(c) * 1e-6) if key.startswith("t_") else c
            rows.append(r)
    return rows


def load(path):
    raw = read_md(path) if path.endswith(".md") else read_csv(path)
    out = []
    for r in raw:
        m = {"name": r["matrix"], "rows": num(r["rows"]), "nnz": num(r.get("nnz")),
             "mean": num(r["mean"]),
             "std": num(r["std"]), "block": num(r.get("block", "1")),
             "K": num(r["nblockdiags"]), "fill": num(r["cds_fill"]),
             "t": {f: num(r.get("t_" + f)) for f in FORMATS}}
        m["cv"] = m["std"] / m["mean"] if m["mean"] > 0 else 0.0
        m["max"] = num(r.get("max", "nan"))
        m["maxratio"] = m["max"] / m["mean"] if m["mean"] > 0 else 0.0
        m["auto"] = (r.get("auto") or "").strip()
        if "cost" in r:  # the --md table: features + conversion in SpMVs of the auto format
            m["cost"] = num(r["cost"])
        elif m["auto"] in FORMATS and "feature_s" in r:
            m["cost"] = (num(r["feature_s"]) + num(r["convert_s"])) / m["t"][m["auto"]]
        else:
            m["cost"] = float("nan")
        if not math.isnan(m["t"]["csr"]):
            out.append(m)
    return out


def table_in_force(source, device):
    """The #defines of the location's rows in spmv/select/gs_select.c."""
    p = {"C": 1.0, "U": 0.0, "N": 0.0, "UM": 0.0, "R": 0.0, "SC": 0.0, "SM": 0.0, "K": 128.0,
         "F": 0.25,
         "B1": 0.0, "M": 12.0,
         "XS": FORMAT_XS[device], "XL": FORMAT_XL[device], "Y": FORMAT_Y[device]}
    prefix = "GPU_" if device else "HOST_"
    try:
        text = open(source).read()
    except OSError:
        print("(%s not found: a default table stands in for the one in force)" % source)
        return p
    for key, name in DEFINES.items():
        m = re.search(r"#define\s+%s%s\s+([0-9.eE+-]+)" % (prefix, name), text)
        if m:
            p[key] = float(m.group(1))
    return p


def choose(m, p, device):
    """The format the table with parameters p picks for matrix m, after the csr fallback."""
    uneven = m["cv"] > p["C"]
    if uneven and p["XS"] != "off" and m["rows"] < p["U"] and not m["nnz"] < p["N"]:
        f = p["XS"]
    elif uneven and device and m["maxratio"] <= p["UM"] and not m["nnz"] < p["N"]:
        f = "cmrs"
    elif uneven and p["XL"] != "off":
        f = p["XL"]
    elif m["rows"] < p["R"]:
        f = "csr"
    elif device and m["mean"] < p["SM"] and m["cv"] > p["SC"] and not m["nnz"] < p["N"]:
        f = "suraa"
    elif (0 <= m["K"] <= p["K"] and 0 <= m["fill"] <= p["F"]
          and (not p["B1"] or m["block"] == 1)):
        f = "cds"
    elif p["Y"] != "off" and m["mean"] >= p["M"]:
        f = p["Y"]
    else:
        f = "csr"
    if f == "cusparse" and not device:
        f = "csr"
    if math.isnan(m["t"][f]):
        f = "csr"  # refused: gs_select_spmat falls back
    return f


NOISE = 0.03  # best/auto above 1 - NOISE counts as 1 in the tie-break (timing noise)


def evaluate(ms, p, device, within, floor):
    base = "cusparse" if device else "csr"
    n_in, n_low, logsum, picks = 0, 0, 0.0, []
    for m in ms:
        f = choose(m, p, device)
        ta = m["t"][f]
        tb = min(t for t in m["t"].values() if not math.isnan(t))
        ratio, speed = tb / ta, m["t"][base] / ta
        n_in += ratio >= 1.0 / (1.0 + within)
        n_low += speed < floor
        logsum += math.log(ratio) if ratio < 1.0 - NOISE else 0.0
        picks.append((f, ratio, speed))
    return (-n_low, n_in, round(logsum / max(len(ms), 1), 9)), picks


def observed(ms, key):
    """The measured values threshold `key` is compared with."""
    pick = {"R": "rows", "U": "rows", "K": "K", "F": "fill", "C": "cv", "M": "mean",
            "SC": "cv", "SM": "mean", "UM": "maxratio"}[key]
    return sorted(set(m[pick] for m in ms if not (key in "KF" and m[pick] < 0)))


def candidates(ms, key, cur, max_fill):
    if key == "B1":
        return [0.0, 1.0]
    v = observed(ms, key)
    c = [(a + b) / 2 for a, b in zip(v, v[1:])]
    if v:
        c += [v[0] / 2 if v[0] > 0 else v[0] - 1, v[-1] * 2 + 1]
    c = sorted(set(c + [cur]))
    if key == "K":
        c = [x for x in c if 0 <= x <= 128]
    if key == "F":
        c = [x for x in c if 0 <= x <= max_fill]
    if key in ("R", "U"):
        c = [x for x in c if x >= 0] + [0.0]
    return sorted(set(c))


def interval(ms, key, x):
    """Thresholds deciding like x: [lo, hi) for R, C (x < T, cv > T) and K, F (v <= T),
    (lo, hi] for M (mean >= T)."""
    v = observed(ms, key)
    if key in OPEN_LOW:  # rows < R, mean >= M: alike for T in (below x, at or above x]
        return (max([r for r in v if r < x], default=-math.inf),
                min([r for r in v if r >= x], default=math.inf))
    return (max([r for r in v if r <= x], default=-math.inf),
            min([r for r in v if r > x], default=math.inf))


def inside(key, x, lo, hi):
    return lo < x <= hi if key in OPEN_LOW else lo <= x < hi


def nice(key, lo, hi):
    """The roundest number deciding alike, in (lo, hi] for M and R, [lo, hi) otherwise."""
    open_lo = key in OPEN_LOW
    if inside(key, 0.0, lo, hi):
        return 0.0
    lo = max(lo, 0.0)
    top = hi if not math.isinf(hi) else max(lo, 1.0)
    for digits in range(1, 8):
        step = 10.0 ** (math.floor(math.log10(max(abs(lo), abs(top), 1e-12))) - digits + 1)
        k = math.floor(lo / step + 1e-9) + 1 if open_lo else math.ceil(lo / step - 1e-9)
        x = float("%.*g" % (digits + 1, k * step))
        if inside(key, x, lo, hi):
            return x
    return lo


def descend(ms, p, device, within, floor, max_fill, start):
    """Coordinate descent over the numeric parameters from p (ties keep the current value)."""
    p = dict(p)
    best, _ = evaluate(ms, p, device, within, floor)
    for _ in range(6):
        moved = False
        for key in PARAMS:
            if key == "N":  # the cost limit's, not searched
                continue
            for c in sorted(candidates(ms, key, p[key], max_fill), key=lambda c: abs(c - start[key])):
                q = dict(p, **{key: c})
                score, _ = evaluate(ms, q, device, within, floor)
                if score > best:
                    best, p, moved = score, q, True
        if not moved:
            break
    return best, p


def show(ms, p, device, within, floor, title):
    base = "cusparse" if device else "csr"
    score, picks = evaluate(ms, p, device, within, floor)
    print("\n%s: cv > %g -> %s below %g rows from %g entries, else cmrs (GPU) when max <= %g x "
          "mean, else %s; rows < %g -> csr; "
          "mean < %g, cv > %g -> suraa (GPU); K <= %g, fill <= %g%s -> cds; mean >= %g -> %s"
          % (title, p["C"], p["XS"], p["U"], p["N"], p["UM"], p["XL"], p["R"], p["SM"], p["SC"],
             p["K"], p["F"],
             " at b = 1" if p["B1"] else "", p["M"], p["Y"]))
    print("| matrix | auto | best | best/auto | auto vs %s |" % base)
    print("| --- | --- | --- | --- | --- |")
    for m, (f, ratio, speed) in zip(ms, picks):
        tb = min((t, k) for k, t in m["t"].items() if not math.isnan(t))[1]
        print("| %s | %s | %s | %.2f | %.2f |" % (m["name"], f, tb, ratio, speed))
    n = len(ms)
    print("within %.0f%% of the best: %d of %d (%.0f%%); below %.2f x %s: %d; geometric mean "
          "best/auto %.3f" % (100 * within, score[1], n, 100.0 * score[1] / max(n, 1), floor,
                              base, -score[0], math.exp(score[2])))
    return score


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("table", help="bench_select --csv file (or its --md table, *.md)")
    ap.add_argument("--within", type=float, default=0.10, help="'near the best' (0.10: 10%%)")
    ap.add_argument("--floor", type=float, default=None,
                    help="auto must not be slower than this x cuSPARSE (default 0.95 on the GPU, "
                    "none on the host)")
    ap.add_argument("--max-fill", type=float, default=0.25,
                    help="spmv.cds_max_fill: CDS refuses beyond it")
    ap.add_argument("--max-cost", type=float, default=10.0,
                    help="features + conversion, in SpMVs of the format picked, at most")
    ap.add_argument("--cost-margin", type=float, default=0.9,
                    help="N keeps row 1's cost within this share of --max-cost")
    ap.add_argument("--host", action="store_true",
                    help="calibrate the host rows (default: the GPU's when cuSPARSE was timed)")
    ap.add_argument("--source", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "..", "spmv", "gs_select.c"),
                    help="spmv/select/gs_select.c, for the thresholds in force")
    a = ap.parse_args()
    ms = load(a.table)
    if not ms:
        sys.exit("calibrate_select: no matrix rows in %s" % a.table)
    device = not a.host and any(not math.isnan(m["t"]["cusparse"]) for m in ms)
    print("%d matrices from %s, measured on the %s" % (len(ms), a.table,
                                                       "GPU" if device else "host"))
    if a.floor is None:
        a.floor = 0.95 if device else 0.0
    cur = table_in_force(a.source, device)
    show(ms, cur, device, a.within, a.floor, "Table in force (%s)" % os.path.relpath(a.source))
    start = dict(cur)
    over = [m for m in ms if m["auto"] == cur["XS"] and m["cost"] > a.max_cost * a.cost_margin]
    for m in ms:
        if m["auto"] == cur["XS"] and not math.isnan(m["cost"]):
            print("%s cost %.1f SpMVs at %d entries (%s)" % (
                cur["XS"], m["cost"], m["nnz"], m["name"]))
    if over and device:  # N just above the largest such nnz (three significant digits, up);
        # the 10-SpMV cost limit is the GPU's (the host table keeps the N in force)
        top = max(m["nnz"] for m in over) + 1
        scale = 10 ** max(int(math.log10(top)) - 2, 0)
        start = dict(cur, N=max(cur["N"], math.ceil(top / scale) * scale))
    best, prop = None, None
    for XS in (FORMAT_XS[device], "off"):
        for XL in (FORMAT_XL[device], "off"):
            for Y in (FORMAT_Y[device], "off"):
                score, p = descend(ms, dict(start, XS=XS, XL=XL, Y=Y), device, a.within,
                                   a.floor, a.max_fill, start)
                if best is None or score > best:
                    best, prop = score, p
    for key in ("C", "U", "R", "K", "F", "M"):  # the value in force if it decides alike, else round
        lo, hi = interval(ms, key, prop[key])
        x = cur[key] if inside(key, cur[key], lo, hi) else nice(key, lo, hi)
        if key == "K":
            x = float(min(128, max(math.floor(x), 0)))
        if key == "F":
            x = min(x, a.max_fill)
        if evaluate(ms, dict(prop, **{key: x}), device, a.within, a.floor)[0] == best:
            prop[key] = x
    show(ms, prop, device, a.within, a.floor, "Proposed table")
    print("\nThresholds deciding alike (others as proposed): " + ", ".join(
        ("%s in (%.4g, %.4g]" if k in OPEN_LOW else "%s in [%.4g, %.4g)") %
        ((k,) + interval(ms, k, prop[k])) for k in ("C", "U", "R", "K", "F", "M")))
    prefix = "GPU_" if device else "HOST_"
    off = [k for k in ("XS", "XL", "Y") if prop[k] == "off"]
    print("\nFor spmv/select/gs_select.c%s:" % (
        "" if not off else " (rows %s are off: their thresholds set out of reach)" % off))
    if prop["XS"] == "off":
        prop["U"] = 0
    if prop["XL"] == "off" and prop["XS"] == "off":
        prop["C"] = 1e30
    if prop["Y"] == "off":
        prop["M"] = 1e30
    for key in PARAMS:
        v = min(prop[key], 2147483647) if key in INTEGER else prop[key]
        print("#define %s%s %s" % (prefix, DEFINES[key], "%d" % v if key in INTEGER else "%g" % v))
    if prop["XL"] == "off" and prop["XS"] != "off":
        print("(row 2 off: uneven matrices from %d rows fall through to the rows below)"
              % prop["U"])


if __name__ == "__main__":
    main()
