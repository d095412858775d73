#!/usr/bin/env python3
"""Propose the thresholds of gsolve's SpMV format rule table (spmv/gs_select.c) from
measurements of every format, so the table can be recalibrated on a new GPU in one command:

    build/bench/bench_select --csv sel.csv --md sel.md [MATRIX ...]
    python3 scripts/calibrate_select.py sel.csv        # or the --md table: sel.md

Input: the CSV that bench_select --csv writes (one row per matrix: features and the seconds of
every format, nan where a format refused), or the markdown table of bench_select --md.

The rule table has this shape (first matching row wins), and the script searches its
thresholds and formats:

    1. structured: block diagonals <= K and 0 <= CDS fill <= F      -> cds
    2. uneven rows: std > C x mean                                  -> X (cusparse, suraa, or off)
    3. long rows: mean >= M                                         -> Y (cmrs, suraa, or off)
    4. default                                                      -> csr

Every candidate value is a midpoint between two measured feature values (or "off"); a format
that refuses the matrix falls back to csr, as gs_select_spmat does. The objective, in order:
no matrix below --floor x the baseline (cuSPARSE on the GPU, csr on the host), the most matrices
within --within of the measured best, the highest geometric mean of best/auto. Among equally
good values the script reports the whole interval and proposes a round number inside it. It
prints the per-matrix outcome of the current table (read from spmv/gs_select.c) and of the
proposal, and the #define lines to paste into spmv/gs_select.c.
"""
import argparse
import csv
import itertools
import math
import os
import re
import sys

FORMATS = ["csr", "cusparse", "cmrs", "suraa", "cds"]
DEFINES = {  # name in spmv/gs_select.c -> parameter here
    "SEL_CDS_MAX_DIAGS": "K",
    "SEL_CDS_MAX_FILL": "F",
    "SEL_CUSPARSE_CV": "C",
    "SEL_CMRS_MIN_MEAN": "M",
}

# markdown headers of bench_select --md -> the CSV's names (times there in microseconds)
MD_COLUMNS = {
    "matrix": "matrix", "rows": "rows", "nnz": "nnz", "mean": "mean", "std": "std",
    "max": "max", "diags": "ndiags", "b": "block", "K": "nblockdiags", "fill": "cds_fill",
    "cusparse us": "t_cusparse", "csr us": "t_csr", "cmrs us": "t_cmrs", "suraa us": "t_suraa",
    "cds us": "t_cds",
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
                    r[key] = c
                    if key.startswith("t_"):
                        r[key] = str(num(c) * 1e-6)
            rows.append(r)
    return rows


def load(path):
    raw = read_md(path) if path.endswith(".md") else read_csv(path)
    out = []
    for r in raw:
        m = {
            "name": r["matrix"],
            "rows": num(r.get("rows")),
            "mean": num(r["mean"]),
            "std": num(r["std"]),
            "K": num(r["nblockdiags"]),
            "fill": num(r["cds_fill"]),
            "t": {f: num(r.get("t_" + f)) for f in FORMATS},
        }
        if math.isnan(m["t"]["csr"]):
            continue
        out.append(m)
    return out


def current_table(source):
    """The thresholds #defined in spmv/gs_select.c (None where absent)."""
    p = {"K": 128, "F": 0.25, "C": 1.0, "M": 12.0, "X": "cusparse", "Y": "cmrs"}
    try:
        text = open(source).read()
    except OSError:
        return p
    for name, key in DEFINES.items():
        m = re.search(r"#define\s+%s\s+([0-9.eE+-]+)" % name, text)
        if m:
            p[key] = float(m.group(1))
    return p


def choose(m, p, device):
    """The format the table with parameters p picks for matrix m, after the csr fallback."""
    if 0 <= m["K"] <= p["K"] and 0 <= m["fill"] <= p["F"]:
        f = "cds"
    elif p["X"] != "off" and m["std"] > p["C"] * m["mean"]:
        f = p["X"]
    elif p["Y"] != "off" and m["mean"] >= p["M"]:
        f = p["Y"]
    else:
        f = "csr"
    if f == "cusparse" and not device:
        f = "csr"
    if math.isnan(m["t"][f]):
        f = "csr"  # refused: gs_select_spmat falls back
    return f


def evaluate(ms, p, device, within, floor):
    base = "cusparse" if device else "csr"
    n_in, n_low, logsum, picks = 0, 0, 0.0, []
    for m in ms:
        f = choose(m, p, device)
        ta = m["t"][f]
        tb = min(t for t in m["t"].values() if not math.isnan(t))
        ratio = tb / ta
        speed = m["t"][base] / ta
        n_in += ratio >= 1.0 / (1.0 + within)
        n_low += speed < floor
        logsum += math.log(ratio)
        picks.append((f, ratio, speed))
    return (-n_low, n_in, logsum / max(len(ms), 1)), picks


def midpoints(values, extra):
    v = sorted(set(x for x in values if not math.isnan(x)))
    mids = [(a + b) / 2 for a, b in zip(v, v[1:])]
    if v:
        mids += [v[0] - 1e-9, v[-1] * 1.0001 + 1e-9]
    return sorted(set(mids + extra))


def nice(lo, hi, open_lo=False):
    """A round number in [lo, hi) ((lo, hi] when open_lo; hi may be inf): the fewest
    significant digits."""
    if (lo < 0 or (lo == 0 and not open_lo)) and 0 < hi:
        return 0.0
    top = hi if not math.isinf(hi) else lo
    for digits in range(1, 8):
        step = 10.0 ** (math.floor(math.log10(max(abs(lo), abs(top)))) - digits + 1)
        k = math.floor(lo / step + 1e-9) + 1 if open_lo else math.ceil(lo / step - 1e-9)
        x = float("%.*g" % (digits + 1, k * step))
        if (lo < x <= hi) if open_lo else (lo <= x < hi):
            return x
    return lo


def feature_values(ms, key):
    """The measured values a threshold is compared with."""
    if key == "K":
        return sorted(set(m["K"] for m in ms if m["K"] >= 0))
    if key == "F":
        return sorted(set(m["fill"] for m in ms if m["fill"] >= 0))
    if key == "C":
        return sorted(set(m["std"] / m["mean"] for m in ms if m["mean"] > 0))
    return sorted(set(m["mean"] for m in ms))


def interval(ms, key, good):
    """Thresholds deciding like the good candidates: [lo, hi) for K, F, C (x <= T, cv > T),
    (lo, hi] for M (mean >= T)."""
    v = feature_values(ms, key)
    glo, ghi = min(good), max(good)
    if key == "M":
        lo = max([x for x in v if x < glo], default=-math.inf)
        hi = min([x for x in v if x >= ghi], default=math.inf)
    else:
        lo = max([x for x in v if x <= glo], default=-math.inf)
        hi = min([x for x in v if x > ghi], default=math.inf)
    return lo, hi


def inside(key, x, lo, hi):
    return lo < x <= hi if key == "M" else lo <= x < hi


def search(ms, device, within, floor, max_fill, cur):
    def near(cands, key):  # ties keep the value nearest the table in force
        return sorted(cands, key=lambda c: abs(c - cur[key]))

    Ks = near([k for k in midpoints(feature_values(ms, "K"), [cur["K"]]) if 0 <= k <= 128], "K")
    Fs = near([f for f in midpoints(feature_values(ms, "F"), [min(cur["F"], max_fill)])
               if 0 <= f <= max_fill], "F")
    Cs = near(midpoints(feature_values(ms, "C"), [cur["C"]]), "C")
    Ms = near(midpoints(feature_values(ms, "M"), [cur["M"]]), "M")
    Xs = [x for x in ("cusparse", "suraa", "off") if device or x != "cusparse"]
    Ys = ["cmrs", "suraa", "off"]
    Xs.sort(key=lambda x: x != cur["X"])
    Ys.sort(key=lambda y: y != cur["Y"])
    best, best_p = None, None
    for K, F, C, M, X, Y in itertools.product(Ks, Fs, Cs, Ms, Xs, Ys):
        p = {"K": K, "F": F, "C": C, "M": M, "X": X, "Y": Y}
        score, _ = evaluate(ms, p, device, within, floor)
        if best is None or score > best:
            best, best_p = score, p
    ranges = {}
    for key, cands in (("K", Ks), ("F", Fs), ("C", Cs), ("M", Ms)):
        good = [c for c in cands
                if evaluate(ms, dict(best_p, **{key: c}), device, within, floor)[0] == best]
        ranges[key] = interval(ms, key, [best_p[key]] + [c for c in good if c == best_p[key]])
        # widen over the neighbouring good candidates
        srt = sorted(cands)
        i = srt.index(best_p[key])
        lo_i, hi_i = i, i
        while lo_i > 0 and srt[lo_i - 1] in good:
            lo_i -= 1
        while hi_i + 1 < len(srt) and srt[hi_i + 1] in good:
            hi_i += 1
        ranges[key] = interval(ms, key, srt[lo_i:hi_i + 1])
    return best, best_p, ranges


def show(ms, p, device, within, floor, title):
    base = "cusparse" if device else "csr"
    score, picks = evaluate(ms, p, device, within, floor)
    print("\n%s: K <= %g, fill <= %g, std > %g x mean -> %s, mean >= %g -> %s" % (
        title, p["K"], p["F"], p["C"], p["X"], p["M"], p["Y"]))
    print("| matrix | auto | best | best/auto | auto vs %s |" % base)
    print("| --- | --- | --- | --- | --- |")
    for m, (f, ratio, speed) in zip(ms, picks):
        tb = min((t, k) for k, t in m["t"].items() if not math.isnan(t))[1]
        print("| %s | %s | %s | %.2f | %.2f |" % (m["name"], f, tb, ratio, speed))
    n = len(ms)
    print("within %.0f%% of the best: %d of %d (%.0f%%); below %.2f x %s: %d; geometric mean "
          "best/auto %.3f" % (100 * within, score[1], n, 100.0 * score[1] / max(n, 1), floor,
                              base, -score[0], math.exp(score[2])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("table", help="bench_select --csv file (or its --md table, *.md)")
    ap.add_argument("--within", type=float, default=0.10, help="'near the best' (0.10: 10%%)")
    ap.add_argument("--floor", type=float, default=0.95,
                    help="auto must not be slower than this x the baseline")
    ap.add_argument("--max-fill", type=float, default=0.25,
                    help="spmv.cds_max_fill: CDS refuses beyond it")
    ap.add_argument("--host", action="store_true",
                    help="the table was measured on the host (no cuSPARSE); default: from the data")
    ap.add_argument("--source", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "..", "spmv", "gs_select.c"),
                    help="spmv/gs_select.c, for the thresholds in force")
    a = ap.parse_args()
    ms = load(a.table)
    if not ms:
        sys.exit("calibrate_select: no matrix rows in %s" % a.table)
    device = not a.host and any(not math.isnan(m["t"]["cusparse"]) for m in ms)
    print("%d matrices from %s, measured on the %s" % (len(ms), a.table,
                                                       "GPU" if device else "host"))
    cur = current_table(a.source)
    if not device:  # rows 2 and 3 of the table in force are GPU rows
        cur["X"], cur["Y"] = "off", "off"
    show(ms, cur, device, a.within, a.floor, "Current table (%s)" % os.path.relpath(a.source))
    best, p, ranges = search(ms, device, a.within, a.floor, a.max_fill, cur)
    prop = dict(p)
    for key in ("K", "F", "C", "M"):  # the value in force if it decides alike, else a round one
        lo, hi = ranges[key]
        x = cur[key] if inside(key, cur[key], lo, hi) else nice(max(lo, 0.0), hi, key == "M")
        if key == "K":
            x = float(min(128, max(math.floor(x), 0)))
        if key == "F":
            x = min(x, a.max_fill)
        if evaluate(ms, dict(prop, **{key: x}), device, a.within, a.floor)[0] == best:
            prop[key] = x
    show(ms, prop, device, a.within, a.floor, "Proposed table")
    print("\nThresholds deciding alike (others fixed): " + ", ".join(
        ("%s in (%.4g, %.4g]" if k == "M" else "%s in [%.4g, %.4g)") % (k, ranges[k][0],
                                                                        ranges[k][1])
        for k in ("K", "F", "C", "M")))
    print("\nFor spmv/gs_select.c (row 2's format: %s, row 3's: %s%s):" % (
        prop["X"], prop["Y"], "; 'off' means drop that row" if "off" in (prop["X"], prop["Y"])
        else ""))
    print("#define SEL_CDS_MAX_DIAGS %d" % int(prop["K"]))
    print("#define SEL_CDS_MAX_FILL %g" % prop["F"])
    print("#define SEL_CUSPARSE_CV %g" % prop["C"])
    print("#define SEL_CMRS_MIN_MEAN %g" % prop["M"])


if __name__ == "__main__":
    main()
