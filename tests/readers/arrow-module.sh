#!/bin/sh
# arrow-module.sh - the Parquet/Arrow reader is a module, labelaudit-arrow.so,
# loaded on the first such file (src/read/arrow_module.h): the binary links
# no libarrow and no C++ runtime, the module is found beside the binary or in
# ../lib/labelaudit from it, a missing or broken module refuses only the
# Parquet and Arrow files (by name, with how to fix it), and Arrow's own
# thread pools stay within -j.
. "$srcdir/tests/setup.sh"
a="$data/arrow"
csv="$srcdir/samples/stray-10.csv"

if ! "$LABELAUDIT" --version | grep -q '^Formats: [^(]* parquet'; then
    finish    # built without Arrow: arrow.sh checks the refusals
    exit
fi
module=$(dirname "$LABELAUDIT")/labelaudit-arrow.so

# ---- the binary depends on neither libarrow nor libstdc++
ldd "$LABELAUDIT" >"$d/ldd"
! grep -q 'libarrow\|libparquet' "$d/ldd"
ok $? "ldd: the binary needs no libarrow or libparquet"
readelf -d "$LABELAUDIT" | grep NEEDED >"$d/needed"
! grep -q 'libstdc++' "$d/needed"
ok $? "the binary needs no libstdc++ (readelf -d)"
# (a sanitizer runtime brings its own libstdc++: there only the direct needs count)
if ! grep -q 'libasan\|libubsan\|libtsan' "$d/needed"; then
    ! grep -q 'libstdc++' "$d/ldd"
    ok $? "ldd: nor through any library it loads"
fi
readelf -d "$module" | grep NEEDED | grep -q 'libarrow'
ok $? "the module is what needs libarrow"

# ---- found beside the binary, and in ../lib/labelaudit from it
mkdir -p "$d/beside" "$d/prefix/bin" "$d/prefix/lib/labelaudit"
cp "$LABELAUDIT" "$module" "$d/beside/"
cp "$LABELAUDIT" "$d/prefix/bin/"
cp "$module" "$d/prefix/lib/labelaudit/"
(unset LABELAUDIT_ARROW_MODULE; "$d/beside/labelaudit" -n 3 "$a/pq-list.parquet") >"$d/out" 2>&1
grep -q 'pq-list.parquet: parquet' "$d/out"
ok $? "a copy of the binary finds the module beside it"
(unset LABELAUDIT_ARROW_MODULE; "$d/prefix/bin/labelaudit" -n 3 "$a/pq-list.parquet") >"$d/out" 2>&1
grep -q 'pq-list.parquet: parquet' "$d/out"
ok $? "an installed binary finds it in ../lib/labelaudit"

# ---- a missing module refuses those files only, by name; the CSV is still read
LABELAUDIT_ARROW_MODULE="$d/none.so" "$d/prefix/bin/labelaudit" -n 10 "$a/pq-list.parquet" "$csv" \
    >"$d/out" 2>"$d/err"
echo $? >"$d/status"
[ "$(cat "$d/status")" = 3 ]
ok $? "no module: exit 3"
expect_err "pq-list.parquet: .*Parquet/Arrow module labelaudit-arrow.so is missing .*reinstall labelaudit" \
    "no module: the file, what is missing and what to do"
expect_out "stray-10.csv: csv" "no module: the CSV beside it is still audited"
# ... and one that is not a module (or needs a libarrow that is not there)
echo "not a shared object" >"$d/broken.so"
LABELAUDIT_ARROW_MODULE="$d/broken.so" "$LABELAUDIT" -n 10 "$a/ipc-file-none.feather" "$csv" \
    >"$d/out" 2>"$d/err"
[ $? = 3 ]
ok $? "a broken module: exit 3"
expect_err "ipc-file-none.feather: .*cannot load the Parquet/Arrow module (.*broken.so" \
    "a broken module: the loader's own words, naming it"
expect_out "stray-10.csv: csv" "a broken module: the CSV is still audited"

# ---- Arrow's threads come from -j: at -j1 no pool thread is left running
for f in ipc-file-none.feather ipc-stream-zstd.arrow pq-list.parquet; do
    LABELAUDIT_THREAD_PEAK=1 "$LABELAUDIT" -j1 --json -n 10 "$a/$f" >/dev/null 2>"$d/err"
    peak=$(sed -n 's/^labelaudit: threads: peak \([0-9]*\), budget [0-9]*$/\1/p' "$d/err")
    [ "$peak" = 1 ]
    ok $? "$f at -j1: one thread alive, Arrow's pools included (peak ${peak:-not said})"
done
finish
