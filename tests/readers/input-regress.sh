#!/bin/sh
# input-regress.sh - input decoding:
#  - the text reader takes what the csv reader takes: a UTF-8 BOM, CR-only
#    and CR LF line ends (also split across its 1 MiB blocks), lines of spaces;
#  - with --format=auto, -d/-c/--header/--no-header imply csv (tsv for a tab)
#    and --dtype/--endian imply raw; .npy/.npz magic still wins;
#  - UTF-16 text with a BOM is decoded, UTF-32 refused by name; .xz, .bz2 and
#    .zst are read like .gz (by their magic bytes, on stdin too), truncated ones
#    refused with the byte offset; a .zip that is no .npz is refused by name.
# Compressed inputs are made here with xz, bzip2 and zstd when those commands
# exist, and skipped (as passing TAP lines marked SKIP) when they do not.
. "$srcdir/tests/setup.sh"

labels() {     # labels REGEX DESCRIPTION: the report's first line (after run)
    head -1 "$d/out" | grep -Eq -e "$1"
    ok $? "$2 (got: $(head -1 "$d/out"))"
}
skip() { n_tests=$((n_tests + 1)); echo "ok $n_tests # SKIP $1"; }

# ---- the one-label-per-line reader --------------------------------------
printf '\357\273\2771\n2\n3\n' >"$d/bom.txt"
run -n 4 "$d/bom.txt"
expect_status 0 "UTF-8 BOM in text"
labels 'text, int64, 3 labels, range 1\.\.3' "UTF-8 BOM in text: the first label is read"

printf '1\r2\r3\r' >"$d/cr.txt"
run -n 4 "$d/cr.txt"
labels 'text, int64, 3 labels, range 1\.\.3' "CR-only line ends in text"
printf '1\r2\r9' >"$d/cr-last.txt"
run -n 4 "$d/cr-last.txt"
labels 'text, int64, 3 labels, range 1\.\.9' "CR-only, no line end after the last label"
expect_status 1 "CR-only: the 9 is found"

printf '1\n  \n\t\n \t \r\n2\n' >"$d/ws.txt"
run -n 4 "$d/ws.txt"
expect_status 0 "lines of spaces and tabs in text"
labels 'text, int64, 2 labels' "lines of spaces and tabs are not rows"

printf '1\r\n\r\n2\r\r\n3\n\r4' >"$d/mixed.txt"
run -n 5 "$d/mixed.txt"
labels 'text, int64, 4 labels, range 1\.\.4' "LF, CR LF and CR mixed, blank lines between"

# over 1 MiB, so line ends fall on the reader's block boundaries
seq 0 299999 | tr '\n' '\r' >"$d/big-cr.txt"
run -n 300000 "$d/big-cr.txt"
labels 'text, int64, 300000 labels, range 0\.\.299999' "2 MB of CR-only lines"
seq 0 299999 | sed 's/$/\r/' >"$d/big-crlf.txt"
run -n 300000 "$d/big-crlf.txt"
labels 'text, int64, 300000 labels, range 0\.\.299999' "2 MB of CR LF lines"
printf 'x\r' >"$d/bad-cr.txt"
seq 1 5 | tr '\n' '\r' >>"$d/bad-cr.txt"
run -n 9 "$d/bad-cr.txt"
expect_out 'value "x", [^:]*: row 0 (line 1)' "CR-only: an unparsable cell is cut at its CR"

# ---- options that imply a format -----------------------------------------
printf 'a;label\nx;1\ny;7\n' >"$d/semi.txt"
run -n 5 -d ';' "$d/semi.txt"
labels 'csv, column "label", int64, 2 labels, range 1\.\.7' "-d ';' on a .txt name implies csv"
run -n 5 -d ';' - <"$d/semi.txt"
labels 'csv, column "label", int64, 2 labels' "-d ';' on standard input implies csv"
printf 'a\t3\nb\t4\n' >"$d/tabs.txt"
run -n 5 -d tab --no-header "$d/tabs.txt"
labels 'tsv, int64, 2 labels, range 3\.\.4' "-d tab implies tsv"
printf 'x 1,3\nx 2,4\n' >"$d/two.txt"
run -n 5 -c 2 "$d/two.txt"
labels 'csv, int64, 2 labels, range 3\.\.4' "-c 2 on a .txt name implies csv"
printf 'label\n3\n4\n' >"$d/one.txt"
run -n 5 --header "$d/one.txt"
labels 'csv, column "label", int64, 2 labels' "--header implies csv"
printf '5\n6\n' >"$d/nohead.labels"
run -n 9 --no-header "$d/nohead.labels"
labels 'csv, int64, 2 labels, range 5\.\.6' "--no-header implies csv"

printf 'a\tlabel\nx\t3\n' >"$d/named.tsv"
run -n 5 -c label "$d/named.tsv"
labels 'tsv, column "label", int64, 1 label' "-c on a .tsv name: still tsv"
run -n 9 --no-header "$d/tabs.txt"
labels 'tsv, int64, 2 labels, range 3\.\.4' "--no-header on tab-separated text: tsv"

# int32 0 1 2 9, little-endian, under a name that says nothing
printf '\000\000\000\000\001\000\000\000\002\000\000\000\011\000\000\000' >"$d/labels.i32"
run -n 5 --dtype int32 "$d/labels.i32"
labels 'raw, int32, 4 labels, range 0\.\.9' "--dtype implies raw"
run -n 5 --dtype int32 - <"$d/labels.i32"
labels 'raw, int32, 4 labels, range 0\.\.9' "--dtype implies raw on standard input"
printf '\000\001\000\002\000\011' >"$d/labels.txt"
run -n 5 --dtype int16 --endian=big "$d/labels.txt"
labels 'raw, int16, 3 labels, range 1\.\.9' "--dtype and --endian=big beat a .txt name"
run -n 5 --dtype int32 "$srcdir/tests/malformed/npz-zip64-ok.npz"
labels 'npz, int64, 5 labels' "--dtype: an .npz's magic still wins"
run -n 5 --format=text -d ';' "$d/semi.txt"
labels 'text' "an explicit --format wins over what -d implies"
# both kinds at once: each file is detected as before
printf '1;2\n3;4\n' >"$d/both.csv"
run -n 5 -d ';' --dtype int32 "$d/both.csv" "$d/labels.i32"
expect_out 'both.csv: csv, int64, 2 labels' "-d and --dtype together: the .csv is csv"

# ---- UTF-16, compressors, zip ----------------------------------------
# "1\r\n2\r\n7\r\n" as PowerShell 5.1's `>` writes it: UTF-16LE with a BOM
printf '\377\3761\000\r\000\n\0002\000\r\000\n\0007\000\r\000\n\000' >"$d/ps.txt"
run -n 5 "$d/ps.txt"
labels 'text, int64, 3 labels, range 1\.\.7' "UTF-16LE text with a BOM is decoded"
expect_status 1 "UTF-16LE: the 7 is found"
run -n 5 - <"$d/ps.txt"
labels 'text, int64, 3 labels, range 1\.\.7' "UTF-16LE text on standard input"
printf '\377\376a\000,\000l\000a\000b\000e\000l\000\n\000x\000,\0003\000\n\000' >"$d/ps.csv"
run -n 5 "$d/ps.csv"
labels 'csv, column "label", int64, 1 label, range 3\.\.3' "UTF-16LE csv"
printf '\376\377\0001\000\n\0002\000\n' >"$d/be.txt"
run -n 5 "$d/be.txt"
labels 'text, int64, 2 labels, range 1\.\.2' "UTF-16BE text with a BOM is decoded"
printf '\377\3761\000\n\000\000\330\n\000' >"$d/lone.txt"
run -n 5 "$d/lone.txt"
expect_status 3 "UTF-16 with an unpaired surrogate"
expect_err "lone.txt: byte 6: invalid UTF-16 text" "UTF-16 unpaired surrogate: named, with its byte"
printf '\377\3761\000\n\0003' >"$d/odd.txt"
run -n 5 "$d/odd.txt"
expect_status 3 "UTF-16 cut inside a character"
expect_err "odd.txt: byte 6: UTF-16 text ends inside a character" "UTF-16 cut: named"
printf '\377\376\000\0001\000\000\000' >"$d/u32.txt"
run -n 5 "$d/u32.txt"
expect_status 3 "UTF-32 text"
expect_err "u32.txt: UTF-32 text: re-save it as UTF-8" "UTF-32 text: refused by name"
run -n 5 --dtype uint8 "$d/ps.txt"
labels 'raw, uint8, 20 labels' "--dtype: UTF-16-looking bytes of a raw file stay bytes"

# a zip archive that is not an npz
printf 'PK\003\004\024\000\000\000\000\000\000\000\000\000\000\000\000\000\004\000\000\000\004\000\000\000\010\000\000\000labels.c1\n2\n' >"$d/y.zip"
run "$d/y.zip"
expect_status 3 ".zip"
expect_err "y.zip: not a label file (looks like a zip archive): unzip it first" ".zip: refused by name"
run - <"$d/y.zip"
expect_err "^labelaudit: -: not a label file (looks like a zip archive): unzip it first" \
    ".zip on standard input: refused by name"
run --format=csv "$d/y.zip"
expect_status 3 "--format=csv does not parse a zip as text"
run --format=npz "$d/y.zip"
expect_err "y.zip: " "--format=npz reads a .zip as an npz"
run -n 10 - <"$srcdir/tests/malformed/npz-zip64-ok.npz"
labels 'npz, int64, 5 labels' "an npz on standard input is still an npz"

run --version
expect_out '^Decompression: gzip' "--version lists the decompressors"
expect_out '^Formats: csv tsv text npy npz raw' "--version lists the formats from the table"
run --format=xls x
expect_status 2 "--format=xls"
expect_err "invalid --format 'xls' (expected auto, csv, tsv, text, npy, npz, raw" \
    "--format: the expected names come from the table"
run --version
if ! grep -q '^Formats: [^(]* parquet' "$d/out"; then    # built without Arrow (tests/readers/arrow.sh reads them)
expect_out '^Formats: .*(not built: .*parquet arrow' "--version: no Parquet or Arrow reader yet"
run --format=parquet x.parquet
expect_status 2 "--format=parquet in a build without Arrow"
expect_err "^labelaudit: --format=parquet: this labelaudit was built without Apache Arrow" \
    "--format=parquet: says what is missing"
else
expect_out '^Parquet and Arrow read by: Apache Arrow (' "--version: where Apache Arrow came from"
fi

# ---- binary input is never parsed as text (malformed.sh has the kinds) ----------
# int32 labels -1 -1 -1 3 open with what an Arrow stream's continuation marker is
printf '\377\377\377\377\377\377\377\377\377\377\377\377\003\000\000\000' >"$d/minus.bin"
run -n 5 --ignore-index=none --dtype int32 "$d/minus.bin"
labels 'raw, int32, 4 labels, range -1\.\.3' "raw -1s are not an Arrow stream"
printf '\377\377\377\377\020\000\000\000\014\000\000\000\000\000\006\000' >"$d/minus2.bin"
run -n 5 --ignore-index=none --dtype int32 "$d/minus2.bin"
labels 'raw, int32, 4 labels' "raw -1 then a small length: still no Arrow stream"
printf 'PAR1,label\nx,1\n' >"$d/par1.csv"
run -n 5 "$d/par1.csv"
labels 'csv, column "label", int64, 1 label' "a CSV whose first cell is PAR1 is a CSV"
printf 'name,label\n\303\251t\303\251,1\n' >"$d/utf8.csv"
run -n 5 "$d/utf8.csv"
labels 'csv, column "label", int64, 1 label' "UTF-8 text with non-ASCII bytes is text"
printf '\000\0001\n' | gzip -c >"$d/nul.txt.gz"
run -n 5 "$d/nul.txt.gz"
expect_err "nul.txt.gz: not a label file (looks like binary data: a NUL byte at byte 0)" \
    "gzip: the decompressed bytes are judged"
run -n 5 --format=text "$srcdir/tests/malformed/npz-zip64-ok.npz"
expect_err "not a label file (looks like npz data, by its magic bytes): leave --format out" \
    "--format=text on an .npz: refused, with the fix"

seq 0 2999 >"$d/s.txt"
printf '9\n' >>"$d/s.txt"
check_codec() {    # check_codec COMMAND EXT NAME
    cmd=$1 ext=$2 name=$3
    if ! command -v "$cmd" >/dev/null 2>&1; then
        skip "$cmd not installed"
        return
    fi
    if ! grep -q "^Decompression:.* $name" "$d/out.version"; then
        "$cmd" -c <"$d/s.txt" >"$d/s.txt.$ext"
        run "$d/s.txt.$ext"
        expect_err "built without" "$name left out of the build: refused by name"
        return
    fi
    "$cmd" -c <"$d/s.txt" >"$d/s.txt.$ext"
    run -n 3000 "$d/s.txt.$ext"
    labels 'text, int64, 3001 labels, range 0\.\.2999' "$ext by name"
    run -n 3000 --json - <"$d/s.txt.$ext"
    expect_json '.files[0].count' 3001 "$ext on standard input"
    expect_json '.files[0].format' text "$ext on standard input: the content's format"
    cat "$d/s.txt.$ext" "$d/s.txt.$ext" >"$d/two.$ext"
    run -n 3000 "$d/two.$ext"
    labels 'text, int64, 6002 labels' "$ext: two concatenated streams"
    "$cmd" -c <"$d/semi.txt" >"$d/semi.csv.$ext"
    run -n 5 -d ';' "$d/semi.csv.$ext"
    labels 'csv, column "label", int64, 2 labels' "$ext: the name below .$ext gives the format"
    size=$(wc -c <"$d/s.txt.$ext")
    head -c $((size / 2)) "$d/s.txt.$ext" >"$d/cut.$ext"
    run -n 3000 "$d/cut.$ext"
    expect_status 3 "$ext truncated"
    expect_err "cut.$ext: byte [0-9]*: $name data ends early (truncated file)" "$ext truncated: named"
    { cat "$d/s.txt.$ext"; printf 'trailing garbage, not a stream\n'; } >"$d/junk.$ext"
    run -n 3000 "$d/junk.$ext"
    expect_status 3 "$ext followed by garbage"
}
"$LABELAUDIT" --version >"$d/out.version"
check_codec xz xz xz
check_codec bzip2 bz2 bzip2
check_codec zstd zst zstd
finish
