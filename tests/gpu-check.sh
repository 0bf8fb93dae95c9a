#!/bin/sh
# gpu-check.sh - everything a GPU machine should check, in one run (about 5 minutes
# on an H200 with 16 cores; each step has its own time limit).
#
#   0. sh tests/gpu-check.sh --prepare, on a machine with autotools and a package
#      registry, before the device: runs autoreconf and packs what it generated
#      into .gpu-carry.tar, and fetches libcsv and cJSON into .debs/. Carry both
#      to the GPU machine (they are git-ignored): it needs neither autotools nor
#      a registry then.
#   1. the GPU and driver (nvidia-smi); static cudart 13 needs driver >= 580
#   2. libcsv and cJSON: used as installed, else unpacked from .debs/*.deb with
#      dpkg -x into a private prefix (GPU_CHECK_USE_DEBS=1 uses them even when
#      the libraries are installed)
#   3. ./configure --with-cuda && make, always of this tree (a fix in src/ is what
#      is tested), for this GPU's architecture only (-arch=native: quicker)
#   4. make check (the unit tests, test_scan_backends included, then cli tests)
#   5. tests/reliability/gpu.sh: cpu and gpu --json reports identical for every dtype (a SKIP
#      counts as a failure here: this script is for machines with a GPU); its TAP
#      plan must match the lines run, so a log cut short fails
#   6. bench/gpu_bench: the backend checked against the CPU on the GPU (all
#      of its checks must have run and passed, and no chunk overflowed), then
#      GB/s of the kernel alone, end to end, uint8 masks with 0.1% and 2% bad,
#      and the input size where the GPU starts to beat the CPU.
#   7. the input matrix (tests/cuda/gpu_inputs.c), cpu against gpu: exit status,
#      --json and --indices-out identical, and no chunk meant for the GPU
#      overflowed to the CPU (LABELAUDIT_GPU_REPORT): every dtype at 200 MiB with
#      bad values on sub-chunk and window edges, .npy with an odd header,
#      big-endian, Fortran order, .npy.gz, .npz, 2^31 + 2^20 + 7 uint8 values,
#      2^20 and 2^20 + 1 bad values in a window, -n 8192 and 8193, several files
#      of different dtypes in one run, -j 1 and -j 3. Then the faults, on the
#      GPU: LABELAUDIT_GPU_FAULT (a CUDA call reported failed) with auto (the CPU
#      takes over, same report) and with --backend=gpu (exit 3, the call named),
#      and LABELAUDIT_GPU_BAD_CAP (a small bad-entry buffer: the chunks overflow
#      to the threaded CPU scan, same report).
#   8. compute-sanitizer memcheck, racecheck, synccheck and initcheck on small
#      audits through the GPU backend (both kernels, the read-back in pieces).
#   9. the labelaudit binary on a 1 GiB .npy file, cpu against gpu:
#      wall times, what auto picks, and identical reports (GPU_CHECK_E2E_MIB="64"
#      for a quick run; "64 256 1024 4096" for the whole curve).
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

if [ "${1:-}" = "--prepare" ]; then
    autoreconf -fi || exit 1
    tar -cf .gpu-carry.tar configure Makefile.in aclocal.m4 config.h.in build-aux 2> /dev/null ||
        tar -cf .gpu-carry.tar configure Makefile.in aclocal.m4 config.h.in || exit 1
    mkdir -p .debs && (cd .debs && apt-get download libcsv3 libcsv-dev libcjson1 libcjson-dev liblzma-dev libbz2-dev libzstd-dev)
    echo "gpu-check: carry .gpu-carry.tar and .debs to the GPU machine"
    exit 0
fi

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
tree=$src
if [ ! -x "$tree/configure" ] && [ -f "$tree/.gpu-carry.tar" ]; then
    (cd "$tree" && tar -xf .gpu-carry.tar) && echo "configure from .gpu-carry.tar"
fi
if [ ! -x "$tree/configure" ]; then
    (cd "$tree" && autoreconf -fi) ||
        { echo "gpu-check: no configure and no autoreconf (see --prepare above)"; exit 1; }
fi
build=$work/build
mkdir -p "$build"
cd "$build" || exit 1
# xz, bzip2 and zstd are required unless configured out: leave out those the
# device machine lacks (their -dev packages may be carried in .debs too)
codecs=
for c in lzma.h:lzma bzlib.h:bzip2 zstd.h:zstd; do
    echo "#include <${c%%:*}>" | ${CC:-cc} ${CPPFLAGS:-} -E - > /dev/null 2>&1 ||
        codecs="$codecs --without-${c#*:}"
done
limit 120 configure "$tree/configure" --with-cuda="$cuda_root" $codecs > configure.out 2>&1 ||
    { tail -30 configure.out; cat config.log | tail -40; exit 1; }
grep -E "CUDA backend|sanitizers" configure.out
t0=$(date +%s)
limit 240 make make -j"$jobs" CUDA_ARCH=-arch=native > make.out 2>&1 ||
    { tail -40 make.out; exit 1; }
echo "make: $(($(date +%s) - t0))s"
ldd ./labelaudit | grep -iE "cuda|cudart" && failed="$failed links-shared-cudart"
./labelaudit --version | head -3

step "4. make check"
limit 150 check make -j"$jobs" CUDA_ARCH=-arch=native check > check.out 2>&1
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
    ${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -I"$tree/src" -I"$tree/src/read" -I. ${CPPFLAGS:-} \
        "$tree/tests/unit/test_scan_backends.c" src/libla.a ${LDFLAGS:-} $cuda_libs $libs -lm \
        -o test_scan_backends || failed="$failed test_scan_backends-build"
    [ -x test_scan_backends ] &&
        limit 150 test_scan_backends ./test_scan_backends > tsb.out 2>&1
    touch tsb.out
    grep -E "^(not ok|#|1\.\.)" tsb.out | head -20
    echo "test_scan_backends: $(grep -c '^ok' tsb.out) ok, $(grep -c '^ok.*# SKIP' tsb.out) skipped"
    grep -q "^not ok" tsb.out && failed="$failed test_scan_backends"
fi

step "5. tests/reliability/gpu.sh"
if [ -f tests/reliability/gpu.log ]; then   # make check ran it already
    cp tests/reliability/gpu.log gpush.out
else
    limit 150 gpu.sh env LABELAUDIT="$build/labelaudit" srcdir="$tree" \
        sh "$tree/tests/reliability/gpu.sh" > gpush.out 2>&1
fi
grep -E "^(not ok|1\.\.|#)" gpush.out | head -30
echo "gpu.sh: $(grep -c '^ok' gpush.out) ok"
grep -q "^1\.\.0 # SKIP" gpush.out && failed="$failed gpu.sh-skipped-on-a-GPU-machine"
grep -q "^not ok" gpush.out && failed="$failed gpu.sh"
# the plan must be there and match: a log cut short fails
plan=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' gpush.out | head -1)
[ -n "$plan" ] && [ "$plan" -eq "$(grep -cE '^(not )?ok' gpush.out)" ] ||
    failed="$failed gpu.sh-plan"

step "6. bench/gpu_bench"
# built by make check (check_PROGRAMS) from this tree
limit 120 bench-build make CUDA_ARCH=-arch=native bench/gpu_bench > bench-build.out 2>&1 &&
    cp bench/gpu_bench gpu_bench || tail -20 bench-build.out
limit 60 copy-bench ./gpu_bench --copy
# one TAP line per comparison: the failures and figures show, the rest is in $OUT
limit 150 bench ./gpu_bench > bench.out 2>&1
grep -v "^ok " bench.out
# every check ran and passed (the summary line is the last of them), the masks
# gave the CPU's stats, and no chunk meant for the GPU overflowed to the CPU
runs=$(sed -n 's/^# gpu check: \([0-9]*\) of \([0-9]*\) runs.*/\1 \2/p' bench.out)
set -- $runs
[ $# -eq 2 ] && [ "$1" -eq "$2" ] && [ "$2" -eq "$(grep -cE '^(not )?ok' bench.out)" ] ||
    failed="$failed bench-checks"
grep -q "STATS DIFFER" bench.out && failed="$failed bench-masks"
grep -q "overflowed to the CPU: 0 " bench.out || failed="$failed bench-overflow"

step "7. the input matrix, cpu against gpu; faults on the GPU"
inputs=$work/inputs
mkdir -p "$inputs"
${CC:-cc} -std=c11 -O2 "$tree/tests/cuda/gpu_inputs.c" -lz -o gpu_inputs &&
    limit 120 gen-inputs ./gpu_inputs "$inputs" || failed="$failed gpu-inputs"
n=0
# same NAME ARGS...: --backend=cpu and gpu: exit status, --json (less "backend")
# and --indices-out identical, and no GPU chunk overflowed. TAP.
same() {
    name=$1
    shift
    for be in cpu gpu; do
        rm -f "$work/idx.$be"
        LABELAUDIT_GPU_REPORT=1 timeout 120 ./labelaudit --backend=$be --json \
            --indices-out="$work/idx.$be" "$@" > "$work/out.$be" 2> "$work/err.$be"
        echo $? > "$work/rc.$be"
        sed 's/"backend":[[:space:]]*"[a-z]*",\{0,1\}[[:space:]]*//' "$work/out.$be" \
            > "$work/json.$be"
        [ -f "$work/idx.$be" ] || echo "(none)" > "$work/idx.$be"
    done
    why=""
    cmp -s "$work/rc.cpu" "$work/rc.gpu" || why="$why exit $(cat "$work/rc.cpu")/$(cat "$work/rc.gpu")"
    cmp -s "$work/json.cpu" "$work/json.gpu" || why="$why json"
    cmp -s "$work/idx.cpu" "$work/idx.gpu" || why="$why indices"
    grep -q " 0 overflowed" "$work/err.gpu" || why="$why overflow($(grep -h gpu: "$work/err.gpu"))"
    n=$((n + 1))
    if [ -z "$why" ]; then
        echo "ok $n - $name (exit $(cat "$work/rc.cpu"))"
    else
        echo "not ok $n - $name:$why"
        failed="$failed matrix:$name"
    fi
}
for dt in bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 float32 float64; do
    same "$dt 200 MiB, bad on edges" -n 10 --format=raw --dtype=$dt "$inputs/dt-$dt.raw"
done
for f in odd.npy be.npy fortran.npy gz.npy.gz labels.npz; do
    same "$f" -n 10 "$inputs/$f"
done
same "uint8, 2^31 + 2^20 + 7 values" -n 21 --format=raw --dtype=uint8 "$inputs/big.u8"
same "uint8, 2^20 and 2^20 + 1 bad in a window" -n 10 --format=raw --dtype=uint8 "$inputs/cap.u8"
same "int16, -n 8192" -n 8192 --format=raw --dtype=int16 "$inputs/hist.i16"
same "int16, -n 8193" -n 8193 --format=raw --dtype=int16 "$inputs/hist.i16"
same "several files and dtypes in one run" -n 10 "$inputs/odd.npy" "$inputs/be.npy" \
    "$inputs/fortran.npy" "$inputs/gz.npy.gz" "$inputs/labels.npz"
same "-j 1" -j 1 -n 10 --format=raw --dtype=int32 "$inputs/dt-int32.raw"
same "-j 3" -j 3 -n 10 --format=raw --dtype=float32 "$inputs/dt-float32.raw"

# faults: auto picks the GPU for 2 GiB of uint8 read in place at -j 4
big="-n 21 --format=raw --dtype=uint8 $inputs/big.u8"
./labelaudit --backend=cpu --json $big 2> /dev/null |
    sed 's/"backend":[[:space:]]*"[a-z]*",\{0,1\}[[:space:]]*//' > "$work/fault.cpu"
LABELAUDIT_GPU_FAULT=40 ./labelaudit -j 4 --json $big > "$work/fault.out" 2> "$work/fault.err"
sed 's/"backend":[[:space:]]*"[a-z]*",\{0,1\}[[:space:]]*//' "$work/fault.out" > "$work/fault.auto"
n=$((n + 1))
if grep -q "injected by LABELAUDIT_GPU_FAULT" "$work/fault.err" &&
    cmp -s "$work/fault.cpu" "$work/fault.auto"; then
    echo "ok $n - auto, a CUDA call failing mid-file: the CPU takes over, same report"
else
    echo "not ok $n - auto with LABELAUDIT_GPU_FAULT: $(head -2 "$work/fault.err")"
    failed="$failed fault-auto"
fi
LABELAUDIT_GPU_FAULT=40 ./labelaudit --backend=gpu -q $big 2> "$work/fault.err"
rc=$?
n=$((n + 1))
if [ "$rc" -eq 3 ] && grep -q "injected by LABELAUDIT_GPU_FAULT" "$work/fault.err"; then
    echo "ok $n - --backend=gpu, a CUDA call failing: exit 3, the call named"
else
    echo "not ok $n - --backend=gpu with LABELAUDIT_GPU_FAULT: exit $rc, $(head -2 "$work/fault.err")"
    failed="$failed fault-gpu"
fi
LABELAUDIT_GPU_BAD_CAP=1000 LABELAUDIT_GPU_REPORT=1 ./labelaudit --backend=gpu --json -n 10 \
    --format=raw --dtype=uint8 "$inputs/cap.u8" 2> "$work/cap.err" |
    sed 's/"backend":[[:space:]]*"[a-z]*",\{0,1\}[[:space:]]*//' > "$work/cap.gpu"
./labelaudit --backend=cpu --json -n 10 --format=raw --dtype=uint8 "$inputs/cap.u8" 2> /dev/null |
    sed 's/"backend":[[:space:]]*"[a-z]*",\{0,1\}[[:space:]]*//' > "$work/cap.cpu"
n=$((n + 1))
if cmp -s "$work/cap.cpu" "$work/cap.gpu" && ! grep -q " 0 overflowed" "$work/cap.err"; then
    echo "ok $n - a bad-entry buffer of 1000: chunks overflow to the threaded CPU scan, same report"
else
    echo "not ok $n - LABELAUDIT_GPU_BAD_CAP=1000: $(cat "$work/cap.err")"
    failed="$failed bad-cap"
fi
echo "1..$n"

step "8. compute-sanitizer"
san=$cuda_root/bin/compute-sanitizer
# small inputs: the sanitizers slow kernels down a hundredfold. int32: two
# sub-chunks, the last one partial; uint8: 2^17 bad entries to compact.
head -c $((5 << 20)) "$inputs/dt-int32.raw" > "$work/small.int32"
head -c $((6 << 20)) "$inputs/cap.u8" > "$work/small.uint8"
if [ -x "$san" ]; then
    for run in "memcheck int32" "memcheck uint8" "initcheck int32" "initcheck uint8" \
        "racecheck uint8" "synccheck uint8"; do
        set -- $run
        timeout 90 "$san" --tool "$1" --error-exitcode 9 ./labelaudit --backend=gpu -q -n 10 \
            --format=raw --dtype="$2" "$work/small.$2" > "san.$1.$2.out" 2>&1
        rc=$?
        # 1 is the audit's "findings"; 9 is a sanitizer report, 124 its time limit
        echo "$1 $2: exit $rc; $(grep -c '^=========  *[A-Z]' "san.$1.$2.out") report lines"
        [ "$rc" -eq 1 ] || failed="$failed sanitizer-$1-$2(rc=$rc)"
    done
else
    echo "gpu-check: no compute-sanitizer in $cuda_root/bin"
    failed="$failed no-compute-sanitizer"
fi
rm -rf "$inputs"

step "9. the tool itself: --backend=cpu vs gpu on int64 .npy files in the page cache"
# What --backend=auto's rule (LA_GPU_MIN_BYTES, LA_GPU_INT_THREADS in src/scan.h)
# should be:
# whole runs of the binary, CUDA start-up included, best of three; the two
# --json reports must be identical but for "backend".
ms_of() { # ms_of CMD...: run it, print its wall time in ms
    t0=$(date +%s%N)
    "$@" > /dev/null 2>&1
    echo $((($(date +%s%N) - t0) / 1000000))
}
printf '%8s %10s %10s %8s %s\n' MiB "cpu ms" "gpu ms" auto reports
for mib in ${GPU_CHECK_E2E_MIB:-1024}; do
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
        bench.out san.*.out "$OUT"/ 2> /dev/null
fi
cd "$src" && rm -rf "$work"
if [ -n "$failed" ]; then
    echo "gpu-check: FAILED:$failed"
    exit 1
fi
echo "gpu-check: all passed"
exit 0
