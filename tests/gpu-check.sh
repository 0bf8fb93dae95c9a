#!/bin/sh
# gpu-check.sh - everything a GPU machine should check, in one run (a few minutes;
# each step has its own time limit so the whole stays under 8 minutes).
#
#   1. the GPU and driver (nvidia-smi); static cudart 13 needs driver >= 580
#   2. libcsv and cJSON: used as installed, else unpacked from .debs/*.deb with
#      dpkg -x into a private prefix (the device machine has no package registry).
#      Fetch them beforehand on a machine that has one, in the source tree:
#        mkdir -p .debs && cd .debs &&
#        apt-get download libcsv3 libcsv-dev libcjson1 libcjson-dev
#      (GPU_CHECK_USE_DEBS=1 uses them even when the libraries are installed)
#   3. ./configure --with-cuda && make (from a labelaudit-*.tar.gz made by
#      `make dist` when one is in the tree or named by $GPU_CHECK_TARBALL, so the
#      machine needs no autotools; else in this tree, running autoreconf if needed)
#   4. make check (the unit tests, test_scan_backends included, then cli tests)
#   5. tests/gpu.sh: cpu and gpu --json reports identical for every dtype (a SKIP
#      counts as a failure here: this script is for machines with a GPU)
#   6. bench/gpu_bench: the host's staging copy on 1-8 threads, the backend
#      checked against the CPU on the GPU, then GB/s of
#      the kernel alone and end to end against the PCIe and HBM bandwidth measured
#      on the spot, and the input size where the GPU starts to beat the CPU.
#   7. the labelaudit binary on .npy files of 64 MiB to 4 GiB, cpu against gpu:
#      wall times, what auto picks, and identical reports (GPU_CHECK_E2E_MIB="64"
#      for a quick run).
#
# Usage: sh tests/gpu-check.sh   (from the source tree). Exit 0 when all passed.
set -u
LC_ALL=C
export LC_ALL
cd "$(dirname "$0")/.." || exit 99
src=$(pwd)
start=$(date +%s)
failed=""
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 4)
work=${TMPDIR:-/tmp}/la-gpu-check.$$
mkdir -p "$work" || exit 99

step() { printf '\n==== %s  [%ss]\n' "$*" "$(($(date +%s) - start))"; }
# limit SECONDS NAME CMD...: run CMD with a time limit; record NAME on failure
limit() {
    secs=$1 name=$2
    shift 2
    timeout "$secs" "$@"
    rc=$?
    [ "$rc" -eq 124 ] && echo "gpu-check: $name: timed out after ${secs}s"
    [ "$rc" -ne 0 ] && failed="$failed $name(rc=$rc)"
    return "$rc"
}

step "1. GPU and driver"
if command -v nvidia-smi > /dev/null 2>&1; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max \
        --format=csv
else
    echo "nvidia-smi not found"
fi
cuda_root=${CUDA_ROOT:-/usr/local/cuda}
if [ -x "$cuda_root/bin/nvcc" ]; then
    "$cuda_root/bin/nvcc" --version | tail -1
else
    echo "gpu-check: no nvcc in $cuda_root/bin (set CUDA_ROOT)"
    exit 1
fi

step "2. libcsv and cJSON"
deps_ok() {
    printf '#include <csv.h>\n#include <cjson/cJSON.h>\nint main(void) { return 0; }\n' \
        > "$work/deps.c"
    ${CC:-cc} ${CPPFLAGS:-} "$work/deps.c" ${LDFLAGS:-} -lcsv -lcjson -o "$work/deps" 2> /dev/null
}
if [ -z "${GPU_CHECK_USE_DEBS:-}" ] && deps_ok; then
    echo "installed"
elif ls "$src"/.debs/*.deb > /dev/null 2>&1; then
    prefix=$work/prefix
    for deb in "$src"/.debs/*.deb; do
        dpkg -x "$deb" "$prefix" || exit 1
    done
    libdir=$(dirname "$(find "$prefix" -name 'libcsv.so*' | head -1)")
    # the .pc files name /usr: point them at the prefix
    for pc in "$libdir"/pkgconfig/*.pc; do
        [ -f "$pc" ] && sed -i "s|^prefix=.*|prefix=$prefix/usr|" "$pc"
    done
    CPPFLAGS="-I$prefix/usr/include ${CPPFLAGS:-}"
    LDFLAGS="-L$libdir -Wl,-rpath,$libdir ${LDFLAGS:-}"
    PKG_CONFIG_PATH="$libdir/pkgconfig"
    LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export CPPFLAGS LDFLAGS PKG_CONFIG_PATH LD_LIBRARY_PATH
    deps_ok && echo "unpacked from .debs into $prefix" || {
        echo "gpu-check: .debs did not provide libcsv and cJSON"
        exit 1
    }
else
    echo "gpu-check: libcsv/cJSON missing and no .debs/ (see the header of this script)"
    exit 1
fi

step "3. configure --with-cuda and make"
tarball=${GPU_CHECK_TARBALL:-$(ls "$src"/labelaudit-*.tar.gz 2> /dev/null | head -1)}
if [ -n "$tarball" ]; then
    tar -xzf "$tarball" -C "$work" || exit 1
    tree=$(ls -d "$work"/labelaudit-*/ | head -1)
    # the tarball may predate these scripts: take this tree's versions
    cp "$src"/tests/gpu.sh "$tree/tests/" 2> /dev/null
    cp "$src"/tests/unit/test_scan_backends.c "$tree/tests/unit/" 2> /dev/null
    mkdir -p "$tree/bench" && cp "$src"/bench/*.cu "$tree/bench/" 2> /dev/null
    echo "building from $tarball"
else
    tree=$src
    if [ ! -x "$tree/configure" ]; then
        (cd "$tree" && autoreconf -fi) || { echo "gpu-check: no configure, no autoreconf"; exit 1; }
    fi
fi
build=$work/build
mkdir -p "$build"
cd "$build" || exit 1
limit 120 configure "$tree/configure" --with-cuda="$cuda_root" > configure.out 2>&1 ||
    { tail -30 configure.out; cat config.log | tail -40; exit 1; }
grep -E "CUDA backend|sanitizers" configure.out
t0=$(date +%s)
limit 240 make make -j"$jobs" > make.out 2>&1 || { tail -40 make.out; exit 1; }
echo "make: $(($(date +%s) - t0))s"
ldd ./labelaudit | grep -iE "cuda|cudart" && failed="$failed links-shared-cudart"
./labelaudit --version | head -3

step "4. make check"
limit 150 check make -j"$jobs" check > check.out 2>&1
grep -E "^# (TOTAL|PASS|SKIP|FAIL|ERROR)" check.out
grep -E "^(FAIL|ERROR|XPASS):" check.out
if [ -f tests/unit/test_scan_backends.log ]; then
    grep -E "^(not ok|#)" tests/unit/test_scan_backends.log | head -20
    echo "test_scan_backends: $(grep -c '^ok' tests/unit/test_scan_backends.log) ok," \
        "$(grep -c '^ok.*# SKIP' tests/unit/test_scan_backends.log) of them skipped"
else
    # not registered in Makefile.am yet: build and run it by hand
    echo "test_scan_backends not in make check; running it directly"
    cuda_libs=$(sed -n 's/^CUDA_LIBS = //p' Makefile)
    libs=$(sed -n 's/^LIBS = //p' Makefile)
    ${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -I"$tree/src" -I. ${CPPFLAGS:-} \
        "$tree/tests/unit/test_scan_backends.c" src/libla.a ${LDFLAGS:-} $cuda_libs $libs -lm \
        -o test_scan_backends || failed="$failed test_scan_backends-build"
    [ -x test_scan_backends ] &&
        limit 150 test_scan_backends ./test_scan_backends > tsb.out 2>&1
    touch tsb.out
    grep -E "^(not ok|#|1\.\.)" tsb.out | head -20
    echo "test_scan_backends: $(grep -c '^ok' tsb.out) ok, $(grep -c '^ok.*# SKIP' tsb.out) skipped"
    grep -q "^not ok" tsb.out && failed="$failed test_scan_backends"
fi

step "5. tests/gpu.sh"
if [ -f tests/gpu.log ]; then   # make check ran it already
    cp tests/gpu.log gpush.out
else
    limit 150 gpu.sh env LABELAUDIT="$build/labelaudit" srcdir="$tree" \
        sh "$tree/tests/gpu.sh" > gpush.out 2>&1
fi
grep -E "^(not ok|1\.\.|#)" gpush.out | head -30
echo "gpu.sh: $(grep -c '^ok' gpush.out) ok"
grep -q "^1\.\.0 # SKIP" gpush.out && failed="$failed gpu.sh-skipped-on-a-GPU-machine"
grep -q "^not ok" gpush.out && failed="$failed gpu.sh"

step "6. bench/gpu_bench"
for f in stats scan_cpu pool util dtype; do
    ${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -I"$tree/src" -I. -c "$tree/src/$f.c" -o "$f.bench.o" ||
        failed="$failed bench-build"
done
"$cuda_root/bin/nvcc" -O3 -std=c++17 -arch=native -D_GNU_SOURCE -I"$tree/src" -I. \
    "$tree/bench/gpu_bench.cu" stats.bench.o scan_cpu.bench.o pool.bench.o util.bench.o dtype.bench.o -lpthread -o gpu_bench ||
    failed="$failed bench-build"
limit 60 copy-bench ./gpu_bench --copy
# one TAP line per comparison: the failures and figures show, the rest is in $OUT
limit 150 bench ./gpu_bench > bench.out 2>&1
grep -v "^ok " bench.out

step "7. the tool itself: --backend=cpu vs gpu on int64 .npy files in the page cache"
# What --backend=auto's threshold (LA_GPU_MIN_BYTES in src/scan.h) should be:
# whole runs of the binary, CUDA start-up included, best of three; the two
# --json reports must be identical but for "backend".
ms_of() { # ms_of CMD...: run it, print its wall time in ms
    t0=$(date +%s%N)
    "$@" > /dev/null 2>&1
    echo $((($(date +%s%N) - t0) / 1000000))
}
printf '%8s %10s %10s %8s %s\n' MiB "cpu ms" "gpu ms" auto reports
for mib in ${GPU_CHECK_E2E_MIB:-64 256 1024 4096}; do
    f=$work/e2e-$mib.npy
    limit 60 "gen-$mib" ./bench/gen npy-int64 "$f" $((mib * 131072)) 1000 > /dev/null || break
    cat "$f" > /dev/null
    for be in cpu gpu; do
        best=999999999
        for rep in 1 2 3; do
            t=$(ms_of ./labelaudit --backend=$be -n 1000 -q "$f")
            [ "$t" -lt "$best" ] && best=$t
        done
        eval "t_$be=$best"
        ./labelaudit --backend=$be -n 1000 --json "$f" 2> /dev/null |
            sed 's/"backend":[[:space:]]*"[a-z]*",\{0,1\}[[:space:]]*//' > "e2e.$be.json"
    done
    auto=$(./labelaudit -n 1000 --json "$f" 2> /dev/null |
        sed -n 's/.*"backend":[[:space:]]*"\([a-z]*\)".*/\1/p' | head -1)
    same=identical
    cmp -s e2e.cpu.json e2e.gpu.json || { same=DIFFER; failed="$failed e2e-$mib"; }
    printf '%8s %10s %10s %8s %s\n' "$mib" "$t_cpu" "$t_gpu" "$auto" "$same"
    rm -f "$f"
done

step "done"
# keep the logs where the caller can read them ($OUT on the device machine)
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
    cp configure.out make.out check.out config.log test-suite.log tsb.out gpush.out \
        bench.out "$OUT"/ 2> /dev/null
fi
cd "$src" && rm -rf "$work"
if [ -n "$failed" ]; then
    echo "gpu-check: FAILED:$failed"
    exit 1
fi
echo "gpu-check: all passed"
exit 0
