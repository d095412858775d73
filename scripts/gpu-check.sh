#!/usr/bin/env bash
# scripts/gpu-check.sh OUTDIR [PART ...]: on the GPU machine (see the README), build gsolve with
# CUDA for sm_90, run the test suite (cpu and gpu labels) and the quickstart, then the standard
# benchmarks, and write logs and tables into OUTDIR. PARTs (default: all of them):
#   test   ctest (cpu and gpu labels) and the quickstart
#   bench  bench_spmv on the standard generated set, every format (OUT/spmv.md)
#   real   bench_spmv on the real matrices repeated on the diagonal to fill the GPU (OUT/spmv_real.md)
#   sweep  CMRS strip heights and kernels, SURAA long-row kernels (OUT/sweep.md)
#   cg     CG to 1e-8 on 3D Poisson 128^3 and 256^3, csr and cusparse (OUT/cg.csv, OUT/cg.log)
#   amg    the AMG tests, then AMG-PCG time to solution on 3D Poisson (configs/amg_poisson_bench.cfg:
#          7-point 64^3, 128^3, 256^3, 27-point 128^3, 3 unknowns per point), 3 runs each, and
#          one run at 128^3 with the level table (OUT/amg.log, OUT/amg-bench/)
# libconfig is not installed there: its .deb files travel in .devdeps/ (apt-get download
# libconfig9 libconfig-dev) and are unpacked into /opt/devdeps.
set -uo pipefail
out=${1:?usage: scripts/gpu-check.sh OUTDIR [test|bench|real|sweep|cg ...]}
shift
parts=${*:-test bench real sweep cg amg}
has() { [[ " $parts " == *" $1 "* ]]; }
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! pkg-config --exists libconfig 2>/dev/null && ls "$here"/.devdeps/*.deb >/dev/null 2>&1; then
    for f in "$here"/.devdeps/*.deb; do dpkg -x "$f" /opt/devdeps; done
    pc=/opt/devdeps/usr/lib/x86_64-linux-gnu/pkgconfig/libconfig.pc
    sed -i 's#^prefix=.*#prefix=/opt/devdeps/usr#' "$pc"
    export PKG_CONFIG_PATH=/opt/devdeps/usr/lib/x86_64-linux-gnu/pkgconfig
fi
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    nvcc --version | tail -2
    echo "commit ${GSOLVE_COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null)}"
    date -u
} > "$out/machine.txt" 2>&1
cmake -S "$here" -B "$here/build-gpu" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGSOLVE_MATRICES="$here/shared/matrices" > "$out/configure.log" 2>&1 \
    && cmake --build "$here/build-gpu" -j 16 > "$out/build.log" 2>&1 \
    || { echo "build failed"; tail -40 "$out/configure.log" "$out/build.log"; exit 1; }
rc=0
bench=$here/build-gpu/bench/bench_spmv
m=$here/shared/matrices
if has test; then
    (cd "$here/build-gpu" && OMP_NUM_THREADS=2 ctest -j 8 --output-on-failure) > "$out/ctest.log" 2>&1
    rc=$?
    "$here/build-gpu/gsolve" "$here/configs/quickstart.cfg" > "$out/quickstart.log" 2>&1
    echo "ctest exit $rc; quickstart exit $?"
    tail -15 "$out/ctest.log"
fi
if has bench; then # SpMV of every format beside cuSPARSE, conversion, CG iteration, upload
    "$bench" --md "$out/spmv.md" > "$out/bench_spmv.log" 2>&1
    cat "$out/spmv.md"
fi
if has real; then # the real matrices, repeated on the diagonal to 0.8-2M rows
    "$bench" --no-cg --md "$out/spmv_real.md" "$m/bcsstk13.mtx*500" "$m/bcsstk25.mtx*100" \
        "$m/2dcyl1.mtx*1000" "$m/isooctane_A.mtx*10000" "$m/ginkgo_multigrid_A6525.mtx*300" \
        "$m/pushpull.mtx*200" "$m/BentPipe2D100.mtx*200" "$m/mhd1280b.mtx*1000" \
        "$m/bips98_606.mtx*200" "$m/zenios.mtx*500" "$m/cryg2500.mtx*800" "$m/ani4.mtx*500" \
        "$m/west2021.mtx*800" "$m/lap3d_20.mtx*250" > "$out/bench_real.log" 2>&1
    cat "$out/spmv_real.md"
fi
if has sweep; then # CMRS strip height h and kernels; SURAA G1 kernels
    "$bench" --no-cg --md "$out/sweep_cmrs.md" --formats \
        cusparse,csr,cmrs:h=4:mod=0,cmrs:h=8:mod=0,cmrs:h=16:mod=0,cmrs:h=8:mod=0:sort=1,cmrs:h=2:mod=1,cmrs:h=4:mod=1,cmrs:h=8:mod=1,cmrs:h=16:mod=1 \
        poisson:27:128 poisson:7:128 poisson:7:64:4 "$m/bcsstk13.mtx*500" "$m/2dcyl1.mtx*1000" \
        > "$out/sweep_cmrs.log" 2>&1
    "$bench" --no-cg --md "$out/sweep_suraa.md" --formats \
        cusparse,csr,suraa,suraa:g1=block,suraa:g1=dynamic powerlaw:0:1000000 powerlaw:0:4000000 \
        "$m/pushpull.mtx*200" "$m/bcsstk13.mtx*500" > "$out/sweep_suraa.log" 2>&1
    cat "$out/sweep_cmrs.md" "$out/sweep_suraa.md"
fi
if has cg; then
    for n in 128 256; do
        for f in csr cusparse; do
            "$here/build-gpu/gsolve" --set problem.generate.type=poisson \
                --set problem.generate.size=$n --set solver.preconditioner=none \
                --set solver.max_iters=5000 --set output.csv="$out/cg.csv" --set spmv.format=$f
        done
    done > "$out/cg.log" 2>&1
    cat "$out/cg.log"
fi
if has amg; then
    (cd "$here/build-gpu" && ctest -R test_amg --output-on-failure) > "$out/amg_test.log" 2>&1
    echo "amg tests exit $?"; grep -E "iterations|checks|Passed|Failed" "$out/amg_test.log"
    "$here/build-gpu/gsolve" "$here/configs/amg_poisson_bench.cfg" \
        --set batch.results="$out/amg-bench" > "$out/amg.log" 2>&1
    "$here/build-gpu/gsolve" "$here/configs/quickstart.cfg" --set solver.preconditioner=amg \
        --set problem.generate.size=128 >> "$out/amg.log" 2>&1
    cat "$out/amg.log"
fi
exit $rc
