#!/usr/bin/env python3
"""bench/mpi/scaling_table.py OUT GPUS...: the table of bench/mpi/scaling.sh's points in OUT
(each point's median process of setup + solve, its communication shares, the efficiency against
the first GPU count), then the issue's targets (3D Poisson) where the points are there: 4 GPUs
at least 2.5x faster than 1 on 256^3 (strong; the speed-up on 2 and 8 shown too), weak
efficiency at 16.8M rows a GPU at least 0.85 on 4 GPUs and 0.80 on 8 (2 shown), and faster
than hypre (OUT/hypre.md) at every Poisson point. First, where OUT/machine.txt is there, the
date, commit and GPUs of the run."""
import csv, os, re, statistics, sys
out, gpus = sys.argv[1], [int(g) for g in sys.argv[2:]]
def point(name, g):
    p = os.path.join(out, "%s_%d.csv" % (name, g))
    rs = list(csv.DictReader(open(p))) if os.path.exists(p) else []
    if not rs: return None
    rs.sort(key=lambda r: float(r["setup_s"]) + float(r["solve_s"]))
    return rs[len(rs) // 2]
def share(p):
    rs = list(csv.DictReader(open(p))) if os.path.exists(p) else []
    if not rs or not float(rs[0]["solve_s"]): return "-"
    return "%.0f%%" % (100 * float(rs[0].get("comm_solve_s") or 0) / float(rs[0]["solve_s"]))
def mapping_ms(name, g):
    # the ranks line's start-up mapping of the GPUs (the log holds the point's last process)
    p = os.path.join(out, "%s_%d.log" % (name, g))
    if g < 2 or not os.path.exists(p): return "-"
    m = re.search(r"address space at the start \(([0-9.]+) ms", open(p, errors="replace").read())
    return m.group(1) if m else "-"
mp = os.path.join(out, "machine.txt") # scaling.sh's: date, commit, the GPUs (nvidia-smi -L)
if os.path.exists(mp):
    ls = [l.strip() for l in open(mp) if l.strip()]
    gl = [l[5:] for l in ls if l.startswith("gpu: ")]
    names = sorted(set(re.sub(r" \(UUID: .*\)$", "", re.sub(r"^GPU \d+: ", "", g)) for g in gl))
    kv = dict(l.split(": ", 1) for l in ls if ": " in l and not l.startswith("gpu: "))
    uuid = re.search(r"UUID: ([^)]*)", gl[0]) if gl else None
    print("Ran %s, commit %s; %d GPUs on the node: %s (GPU 0's UUID %s)\n" % (
        kv.get("date", "?"), kv.get("commit", "?"), len(gl), " / ".join(names) or "none seen",
        uuid.group(1) if uuid else "-"))
print("| case | GPUs | rows | iterations | setup s | solve s | total s | comm share of setup | host MPI share of solve | comm share of solve, handshake run | efficiency | GPUs mapped at start-up, ms (not in setup) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for kind in ("strong", "weak"):
    for t in ("poisson", "jumps", "convdiff"):
        base = None
        for g in gpus:
            m = point("%s_%s" % (kind, t), g)
            if not m:
                print("| %s %s | %d | failed | | | | | | | | | |" % (kind, t, g)); continue
            tot = float(m["setup_s"]) + float(m["solve_s"])
            if base is None: base = tot * (g if kind == "strong" else 1)
            eff = base / (tot * g) if kind == "strong" else base / tot
            sh = float(m.get("comm_solve_s") or 0) / float(m["solve_s"]) if float(m["solve_s"]) else 0
            hs = share(os.path.join(out, "%s_%s_%d_hs.csv" % (kind, t, g))) if g > 1 else "-"
            ss = float(m.get("comm_setup_s") or 0) / float(m["setup_s"]) if float(m["setup_s"]) else 0
            print("| %s %s | %d | %s | %s | %.3f | %.3f | %.3f | %.0f%% | %.0f%% | %s | %.2f | %s |" % (
                  kind, t, g, m["rows"], m["iterations"], float(m["setup_s"]), float(m["solve_s"]),
                  tot, 100 * ss, 100 * sh, hs, eff, mapping_ms("%s_%s" % (kind, t), g)))

# the targets, 3D Poisson, from the medians above and hypre's rows (OUT/hypre.md)
def total(kind, g):
    m = point("%s_poisson" % kind, g)
    return float(m["setup_s"]) + float(m["solve_s"]) if m else None
def hypre_totals():
    p, t = os.path.join(out, "hypre.md"), {}
    for line in open(p) if os.path.exists(p) else []:
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) == 6 and c[0].startswith("hypre ") and c[2].isdigit():
            try:
                t[(c[0].split()[1], int(c[1]))] = float(c[5])
            except ValueError:
                pass
    return t
rows = []
s1, w1 = total("strong", 1), total("weak", 1)
for g, need in ((2, None), (4, 2.5), (8, None)):
    sg = total("strong", g)
    if s1 and sg:
        rows.append("| strong: 256^3 on %d GPUs%s | %.4f / %.4f s = %.3fx | %s |" % (
            g, " at least %.1fx faster than on 1" % need if need else ": speed-up over 1 (no target)",
            s1, sg, s1 / sg, ("yes" if s1 / sg >= need else "no") if need else "-"))
for g, need in ((2, None), (4, 0.85), (8, 0.80)):
    wg = total("weak", g)
    if w1 and wg:
        rows.append("| weak: efficiency on %d GPUs%s | %.4f / %.4f s = %.3f | %s |" % (
            g, " at least %.2f" % need if need else " (no target)", w1, wg, w1 / wg,
            ("yes" if w1 / wg >= need else "no") if need else "-"))
ht = hypre_totals()
pts = [(k, g, total(k, g), ht.get((k, g))) for k in ("strong", "weak") for g in gpus]
pts = [p for p in pts if p[2] and p[3]]
if pts:
    faster = sum(1 for p in pts if p[2] < p[3])
    rows.append("| faster than hypre at every point | %d of %d (%s) | %s |" % (
        faster, len(pts), ", ".join("%s %d: %.2fx" % (k, g, h / t) for k, g, t, h in pts),
        "yes" if faster == len(pts) else "no"))
if rows:
    print("\n| target (3D Poisson, medians) | measured | met? |\n| --- | --- | --- |")
    print("\n".join(rows))
