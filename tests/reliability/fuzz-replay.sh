#!/bin/sh
# fuzz-replay.sh - replay every fuzz seed and every input a fuzzer ever crashed
# on (tests/fuzz/corpus/TARGET, tests/fuzz/regress/TARGET) through the fuzz
# targets built without libFuzzer (tests/fuzz/replay_TARGET). Under the
# sanitizer build, a regression is an ASan/UBSan report and a failed test.
. "$srcdir/tests/setup.sh"
replay() {    # replay TARGET: its seeds and past crashes
    t=$1
    bin="$builddir/tests/fuzz/replay_$t"
    for dir in corpus regress; do
        for f in "$srcdir/tests/fuzz/$dir/$t"/*; do
            [ -f "$f" ] || continue
            "$bin" "$f" >"$d/out" 2>"$d/err"
            st=$?
            ok $st "$t: $dir/$(basename "$f")"
            [ $st -eq 0 ] || sed 's/^/# /' "$d/err" | head -20
        done
    done
}
# the targets this build has: Makefile.am's FUZZ_REPLAY (make check passes it)
[ -n "${FUZZ_TARGETS:-}" ]
ok $? "make check names the fuzz targets (FUZZ_TARGETS, Makefile.am's FUZZ_REPLAY)"
for bin in ${FUZZ_TARGETS:-}; do
    replay "${bin#tests/fuzz/replay_}"
done
# every target in tests/fuzz/ is in that list (where its library was found)
for f in "$srcdir"/tests/fuzz/fuzz_*.c; do
    t=$(basename "$f" .c)
    t=${t#fuzz_}
    [ "$t" = common ] && continue      # fuzz_common.c: the harness they share
    grep -q "tests/fuzz/replay_$t\b" "$srcdir/Makefile.am"
    ok $? "Makefile.am's FUZZ_REPLAY lists $t"
done
finish
