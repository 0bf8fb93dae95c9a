#!/bin/sh
# tests/fuzz/run.sh SECONDS [TARGET...] - build the libFuzzer targets with clang
# (ASan + UBSan) and run each for SECONDS, starting from the committed seed
# corpus tests/fuzz/corpus/TARGET. `make fuzz` calls it; FUZZ_SECONDS there.
#
# Environment:
#   SRCDIR    the source tree (default: two folders above this script)
#   BUILDDIR  a configured build folder, for its config.h (default: none, a stub)
#   OUT       where objects, binaries, grown corpora, logs and crashes go
#             (default ./fuzz-out)
#   JOBS      targets run at once (default 1)
#   FUZZ_TARGETS the targets (default: the build's, Makefile.am's FUZZ_REPLAY,
#             from `make fuzz` or `make -C BUILDDIR fuzz-targets`)
#   FUZZ_SKIP targets to leave out (CI: mat, see below)
#   CC        a clang with libFuzzer (default clang)
#   FUZZ_FLAGS extra libFuzzer flags
# Prints one line per target ("TARGET: N runs, cov: C ft: F, corpus K, ok"),
# and exits 1 when any target crashed, hung or ran out of memory; its input
# is then OUT/TARGET-crash-* (or -leak-, -timeout-, -oom-): add it to
# tests/fuzz/regress/TARGET/ with the fix.
set -eu
secs=${1:-60}
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=${SRCDIR:-$(cd "$here/../.." && pwd)}
OUT=${OUT:-$(pwd)/fuzz-out}
JOBS=${JOBS:-1}
CC=${CC:-clang}
FUZZ_FLAGS=${FUZZ_FLAGS:-}
# the targets: those named, else the build's (one list, Makefile.am's FUZZ_REPLAY)
targets=${*:-$(echo ${FUZZ_TARGETS:-} | sed 's|tests/fuzz/replay_||g')}
if [ -z "$targets" ] && [ -n "${BUILDDIR:-}" ] && [ -f "$BUILDDIR/Makefile" ]; then
    targets=$(make -s --no-print-directory -C "$BUILDDIR" fuzz-targets)
fi
[ -n "$targets" ] || {
    echo "run.sh: name the targets, or give BUILDDIR (or run make fuzz): Makefile.am's FUZZ_REPLAY lists them" >&2
    exit 2
}

command -v "$CC" >/dev/null 2>&1 || {
    echo "run.sh: $CC not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2
    exit 2
}
mkdir -p "$OUT/obj" "$OUT/bin" "$OUT/corpus" "$OUT/include"

# ---- build ----------------------------------------------------------------------
if [ -n "${BUILDDIR:-}" ] && [ -f "$BUILDDIR/config.h" ]; then
    cp "$BUILDDIR/config.h" "$OUT/include/config.h"
else
    printf '#define PACKAGE_VERSION "0.0-fuzz"\n' > "$OUT/include/config.h"
fi
cjson_cflags=$(pkg-config --cflags libcjson 2>/dev/null || echo "-I/usr/include/cjson")
cjson_libs=$(pkg-config --libs libcjson 2>/dev/null || echo "-lcjson")
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags="-std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer $san"
cflags="$cflags -I$OUT/include -I$SRCDIR/src -I$SRCDIR/src/read $cjson_cflags"
# the decompressors config.h says were built in (none with the stub)
codec_libs=
for lib in LZMA:-llzma BZIP2:-lbz2 ZSTD:-lzstd; do
    grep -q "define HAVE_${lib%%:*} 1" "$OUT/include/config.h" && codec_libs="$codec_libs ${lib#*:}"
done
# the mask readers' libraries, and the image headers' (read/image_size.c), where found
for lib in SPNG:png:-lspng TIFF:tiff:-ltiff NIFTI:nifti:-lniftiio+-lznz JPEG:jpeg:-ljpeg \
           WEBP:webp:-lwebp; do
    grep -q "define HAVE_${lib%%:*} 1" "$OUT/include/config.h" || continue
    rest=${lib#*:}
    codec_libs="$codec_libs $(echo "${rest#*:}" | tr + ' ')"
done
cflags="$cflags -I/usr/include/nifti"     # nifti_clib's headers (no pkg-config file)
# the HDF5 and .mat readers' libraries, where config.h has them
for lib in HDF5:hdf5 MATIO:matio; do
    grep -q "define HAVE_${lib%%:*} 1" "$OUT/include/config.h" || continue
    cflags="$cflags $(pkg-config --cflags "${lib#*:}")"
    codec_libs="$codec_libs $(pkg-config --libs "${lib#*:}")"
done
# the HDF5 reader inflates gzip chunks through libdeflate where config.h has it
if grep -q "define HAVE_LIBDEFLATE 1" "$OUT/include/config.h"; then
    codec_libs="$codec_libs $(pkg-config --libs libdeflate)"
fi
# gzip is inflated through ISA-L where config.h has it
if grep -q "define HAVE_ISAL 1" "$OUT/include/config.h"; then
    codec_libs="$codec_libs $(pkg-config --libs libisal)"
fi
# the WebDataset reader's libarchive, where config.h has it
if grep -q "define HAVE_LIBARCHIVE 1" "$OUT/include/config.h"; then
    codec_libs="$codec_libs $(pkg-config --libs libarchive)"
fi
# Parquet and Arrow: read_arrow.cc (C++), where config.h says Apache Arrow was found
arrow_cxx=
if grep -q "define HAVE_ARROW 1" "$OUT/include/config.h"; then
    arrow_cxx=$(sed -n 's/^#define LA_ARROW_CPPFLAGS "\(.*\)"$/\1/p' "$OUT/include/config.h")
    codec_libs="$codec_libs $(sed -n 's/^#define LA_ARROW_LIBS "\(.*\)"$/\1/p' "$OUT/include/config.h")"
fi
# yajl (coco, jsonl, tokenizer.json) and libyaml (data.yaml), where config.h has them
grep -q "define HAVE_YAJL 1" "$OUT/include/config.h" && codec_libs="$codec_libs -lyajl"
grep -q "define HAVE_YAML 1" "$OUT/include/config.h" && codec_libs="$codec_libs -lyaml"
# FUZZ_SKIP: targets left out of this run (CI's short sweep leaves out mat:
# libmatio allocates what a damaged file's header claims before read_mat.c can
# look, in paths our size check does not reach; make fuzz still runs it)
for skip in ${FUZZ_SKIP:-}; do
    targets=$(printf '%s\n' $targets | grep -vx "$skip" | tr '\n' ' ')
done

echo "== building fuzz targets in $OUT with $CC"
objs=
: > "$OUT/compile.cmds"
for f in "$SRCDIR"/src/*.c "$SRCDIR"/src/read/*.c "$SRCDIR/tests/fuzz/fuzz_common.c"; do
    case $f in */main.c) continue ;; esac
    # a mask reader only where config.h says its library was found
    case $f in */read_png.c|*/read_tiff.c|*/read_nifti.c|*/nifti_geometry.c|*/read_hdf5.c|*/read_mat.c|*/read_wds.c)
        lib=$(basename "$f" .c | sed 's/read_png/SPNG/; s/read_tiff/TIFF/; s/read_nifti/NIFTI/;
                                      s/nifti_geometry/NIFTI/;
                                      s/read_hdf5/HDF5/; s/read_mat/MATIO/; s/read_wds/LIBARCHIVE/')
        grep -q "define HAVE_$lib 1" "$OUT/include/config.h" || continue ;;
    esac
    o="$OUT/obj/$(basename "$f" .c).o"
    objs="$objs $o"
    newer_h=
    [ -f "$o" ] && newer_h=$(find "$SRCDIR/src" "$SRCDIR/tests/fuzz" -name '*.h' -newer "$o")
    if [ ! -f "$o" ] || [ "$f" -nt "$o" ] || [ -n "$newer_h" ]; then
        echo "$CC $cflags -fsanitize=fuzzer-no-link -c -o $o $f" >> "$OUT/compile.cmds"
    fi
done
if [ -n "$arrow_cxx" ]; then
    # (no vptr check: the C link has no C++ UBSan runtime)
    for f in "$SRCDIR/src/read/read_arrow.cc" "$SRCDIR/src/read/arrow_columns.cc"; do
        o="$OUT/obj/$(basename "$f" .cc).o"
        objs="$objs $o"
        if [ ! -f "$o" ] || [ "$f" -nt "$o" ]; then
            echo "${CXX:-clang++} -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer $san -fno-sanitize=vptr $arrow_cxx -I$OUT/include -I$SRCDIR/src -I$SRCDIR/src/read $cjson_cflags -fsanitize=fuzzer-no-link -c -o $o $f" >> "$OUT/compile.cmds"
        fi
    done
fi
tr '\n' '\0' < "$OUT/compile.cmds" | xargs -0 -r -P 2 -n 1 sh -c || {
    echo "run.sh: compile failed" >&2
    exit 2
}
for t in $targets; do
    $CC $cflags -fsanitize=fuzzer -o "$OUT/bin/fuzz_$t" "$SRCDIR/tests/fuzz/fuzz_$t.c" $objs \
        -lcsv $cjson_libs -lz $codec_libs -lm -lpthread
done

# ---- run --------------------------------------------------------------------------
run_one() {
    t=$1
    mkdir -p "$OUT/corpus/$t"
    seeds="$SRCDIR/tests/fuzz/corpus/$t"
    regress="$SRCDIR/tests/fuzz/regress/$t"
    dict=
    [ -f "$SRCDIR/tests/fuzz/dict/$t.dict" ] && dict="-dict=$SRCDIR/tests/fuzz/dict/$t.dict"
    extra=
    [ -d "$regress" ] && extra=$regress
    # malloc_limit_mb: no single allocation may follow a size the input claims;
    # lsan.supp: leaks inside linked libraries (libmatio), named there
    if LSAN_OPTIONS="suppressions=$SRCDIR/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
            "$OUT/bin/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
            -malloc_limit_mb=512 -print_final_stats=1 -artifact_prefix="$OUT/$t-" $dict \
            $FUZZ_FLAGS "$OUT/corpus/$t" "$seeds" $extra >"$OUT/$t.log" 2>&1; then
        status=ok
    else
        status="FAILED (see $OUT/$t.log)"
        ls "$OUT/$t-"* 2>/dev/null | sed 's/^/  /'
    fi
    last=$(grep -E '^#[0-9]+.*(cov|DONE)' "$OUT/$t.log" | tail -1)
    runs=$(grep -E '^stat::number_of_executed_units' "$OUT/$t.log" | awk '{print $2}')
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p')
    echo "$t: ${runs:-?} runs, cov: ${cov:-?} ft: ${ft:-?}, corpus ${corp:-?}, $status"
    [ "$status" = ok ]
}

echo "== running each target for ${secs}s ($JOBS at a time)"
fail=0
running=0
pids=
for t in $targets; do
    run_one "$t" > "$OUT/$t.summary" 2>&1 &
    pids="$pids $!"
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        for p in $pids; do wait "$p" || fail=1; done
        pids=
        running=0
    fi
done
for p in $pids; do wait "$p" || fail=1; done
for t in $targets; do cat "$OUT/$t.summary"; done
exit $fail
