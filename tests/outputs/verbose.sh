#!/bin/sh
# verbose.sh - -v/--verbose: one line on standard error per
# decision, "labelaudit: PATH: ...", saying which path read each file and why;
# standard output is the same with and without it, and -q silences it.
. "$srcdir/tests/setup.sh"
npy="$srcdir/samples/labels.npy"

printf 'id,label\n1,0\n2,1\n3,2\n' >"$d/plain.csv"
printf 'name,label\n"a, b",0\nc,1\n' >"$d/quoted.csv"
# the quote is on line 6, far past the first 16-byte block
printf 'id,label\n1,0\n2,1\n3,2\n4,0\n"5",1\n6,2\n' >"$d/late.csv"
printf 'id,label\r1,0\r2,1\r' >"$d/cr.csv"
gzip -c "$npy" >"$d/labels.npy.gz"
mkdir "$d/ds" && cp "$d/plain.csv" "$d/ds/a.csv" && cp "$d/plain.csv" "$d/ds/b.csv" &&
    printf 'x\n' >"$d/ds/notes.md"

run -v -j2 -n 3 "$d/plain.csv"
expect_err "^labelaudit: $d/plain.csv: format csv (the file name)\$" "csv: the format and what decided it"
expect_err "^labelaudit: $d/plain.csv: csv: fast path" "plain csv: the fast path"
expect_err "^labelaudit: $d/plain.csv: read and scanned on this thread: its reader takes the threads of -j itself" \
    "csv at -j2: read on the scanning thread, its helper in the reader thread's place"
grep -q "libcsv parses" "$d/err"
ok $((! $?)) "plain csv: no switch to libcsv"
expect_err "^labelaudit: backend cpu (auto: [0-9]* bytes of input in all" "auto: the CPU, and why"

run -v -n 3 "$d/quoted.csv"
expect_err "^labelaudit: $d/quoted.csv: csv: a quote at line 2 (byte 11): libcsv parses from line 1 on" \
    "quoted csv: libcsv, and the line and byte that sent it there"

LABELAUDIT_CSV_BLOCK=16 run -v -n 3 -j1 "$d/late.csv"
expect_err "csv: a quote at line 6 (byte 25): libcsv parses from line [1-6] on, on one thread" \
    "a quote in a later block: its line and byte, one thread with -j1"
expect_err "fast path (quote-free lines parsed in place) on one thread (-j1)" "-j1: the fast path on one thread"

run -v -n 3 "$d/cr.csv"
expect_err "csv: a CR that ends a line alone at line 1 (byte 8)" "a lone CR sends the file to libcsv"

LABELAUDIT_GZIP_ZLIB=1 run -v -n 10 "$d/labels.npy.gz"
expect_err "labels.npy.gz: gzip-compressed (magic bytes): zlib decompresses it" \
    "LABELAUDIT_GZIP_ZLIB=1: zlib inflates gzip"

LABELAUDIT_CSV_SLOW=1 run -v -n 3 "$d/plain.csv"
expect_err "csv: libcsv alone on one thread (LABELAUDIT_CSV_SLOW=1)" "LABELAUDIT_CSV_SLOW=1 is named"

run -v -n 10 "$npy"
expect_err "labels.npy: format npy (magic bytes)\$" ".npy: found by its magic bytes"
expect_err "labels.npy: read in place: [0-9]* values from byte [0-9]*, each thread reading its own share" \
    ".npy: each thread reads its share"

run -v -j3 -n 10 "$d/labels.npy.gz"   # the reader thread, the decompressor and this one
inflater=zlib
"$LABELAUDIT" --version | grep -q "^gzip inflated by: ISA-L" && inflater=ISA-L
expect_err "labels.npy.gz: gzip-compressed (magic bytes): $inflater decompresses it" ".npy.gz: the decompressor"
expect_err "labels.npy.gz: gzip: decompressed ahead on a thread of its own" ".npy.gz: its thread"
expect_err "labels.npy.gz: read and scanned on one thread, few values: no reader thread (compressed" \
    ".npy.gz of 1000 labels: read on the scanning thread, since compressed bytes are not the values"
# 1.6 MB of int64 labels: enough for a reader thread to decode ahead of the scan
"$builddir/bench/gen" npy-int64 "$d/big.npy" 200000 10 >/dev/null
gzip "$d/big.npy"
run -v -n 10 "$d/big.npy.gz"
expect_err "big.npy.gz: a reader thread copies chunks into a ring of 3 (compressed" \
    ".npy.gz of 200000 labels: a reader thread, since compressed bytes are not the values"

run -v -n 10 --format=text "$d/plain.csv"
expect_err "plain.csv: format text (--format)" "--format decides"
run -v -n 10 --dtype=uint8 "$d/plain.csv"
expect_err "plain.csv: format raw (--dtype or --endian imply raw)" "an option implies the format"

run -v -n 3 --backend=cpu -j 2 "$d/plain.csv"
expect_err "^labelaudit: backend cpu (--backend=cpu), -j 2\$" "--backend=cpu"

run -v -n 3 "$d/ds"
expect_err "^labelaudit: $d/ds: dataset of 3 files (0 skipped)" "a folder: its files"
run -v -n 3 --glob='*.csv' -j1 "$d/ds"
expect_err "^labelaudit: $d/ds: dataset of 2 files (1 skipped), audited one at a time" "a folder: the count and the skipped"
expect_err "^labelaudit: $d/ds/notes.md: skipped: does not match --glob" "a skipped file and why"
expect_err "auto: an input is not a regular file" "auto: a folder keeps to the CPU"

# auto counts what each reader's open() offers to read in place: a sparse
# safetensors file of 2^27 int64 labels (1 GiB, no disk) is such a run, and a
# csv of as many bytes (all NULs: refused) is not
st_json='{"labels":{"dtype":"I64","shape":[134217728],"data_offsets":[0,1073741824]}}'
while [ $(( (${#st_json} + 8) % 8 )) -ne 0 ]; do st_json="$st_json "; done
len=${#st_json}
printf "$(printf '\\%03o' $((len % 256)) $((len / 256)) 0 0 0 0 0 0)%s" "$st_json" \
    >"$d/big.safetensors"
truncate -s $((8 + len + 1073741824)) "$d/big.safetensors" && cp --sparse=always \
    "$d/big.safetensors" "$d/big-nul.csv" && dd if=/dev/zero of="$d/big-nul.csv" bs=64 count=1 \
    conv=notrunc 2>/dev/null
run -v -n 3 -j 1 "$d/big.safetensors"
expect_err "^labelaudit: backend [cg]pu (auto[^)]* MiB read in place (0 MiB floats), -j 1" \
    "auto: a safetensors tensor counts as read in place"
run -v -n 3 -j 1 "$d/big-nul.csv"
expect_err "^labelaudit: backend cpu (auto: 0 MiB of the 1.02e+03 MiB read in place" \
    "auto: a file no reader reads in place counts as parsed"
rm -f "$d/big.safetensors" "$d/big-nul.csv"

# -q wins; stdout never changes
for f in "$d/plain.csv" "$d/quoted.csv" "$npy" "$d/labels.npy.gz" "$d/ds"; do
    run -v -q -n 10 "$f"
    [ ! -s "$d/err" ] && [ ! -s "$d/out" ]
    ok $? "-v -q prints nothing for $(basename "$f")"
    for mode in "" --json; do
        "$LABELAUDIT" -n 10 $mode "$f" >"$d/plain.out" 2>/dev/null
        "$LABELAUDIT" -v -n 10 $mode "$f" >"$d/verbose.out" 2>"$d/verbose.err"
        cmp -s "$d/plain.out" "$d/verbose.out" && [ -s "$d/verbose.err" ]
        ok $? "-v $mode leaves stdout alone for $(basename "$f")"
    done
done
run --verbose -n 3 "$d/plain.csv"
expect_err "csv: fast path" "--verbose is -v"

finish
