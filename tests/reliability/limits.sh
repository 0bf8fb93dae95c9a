#!/bin/sh
# limits.sh - hostile sizes: each is a clear error (exit 3) or is read in
# bounded memory, and nothing allocates what a file claims before the file
# shows it holds it. Peak RSS is measured with /usr/bin/time -v where it exists.
#
# The gzip bomb here inflates to 1 GiB (its file is about 1 MiB, built on the
# fly from concatenated gzip members); LIMITS_HEAVY=1 (make fuzz) makes it
# 10 GiB.
. "$srcdir/tests/setup.sh"
m="$srcdir/tests/malformed"

# Peak RSS ceiling: ASan's shadow and quarantine need more than the program.
if grep -q __asan_init "$LABELAUDIT" 2>/dev/null; then max_kb=786432; else max_kb=262144; fi
if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then have_time=1; else have_time=; fi

# timed ARGS... : run with stdin as given; $rc, $d/out, $d/err, and $kb (peak RSS, or empty)
timed() {
    if [ -n "$have_time" ]; then
        /usr/bin/time -v -o "$d/time" "$LABELAUDIT" "$@" >"$d/out" 2>"$d/err"
        rc=$?
        kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$d/time")
    else
        "$LABELAUDIT" "$@" >"$d/out" 2>"$d/err"
        rc=$?
        kb=
    fi
}

expect_rss() {      # expect_rss DESCRIPTION
    if [ -z "$have_time" ] || [ -z "$kb" ]; then
        echo "ok $((n_tests += 1)) # SKIP $1: no /usr/bin/time (Debian package time)"
        return
    fi
    [ "$kb" -le "$max_kb" ]
    ok $? "$1: peak RSS ${kb} KiB <= ${max_kb} KiB"
}

# npy_header DESCR SHAPE FORTRAN : a v1 .npy header on stdout
npy_header() {
    dict="{'descr': '$1', 'fortran_order': $3, 'shape': $2, }"
    len=$(( (${#dict} + 11 + 63) / 64 * 64 - 10 ))
    printf '\223NUMPY\001\000'
    printf "\\$(printf %03o $((len % 256)))\\$(printf %03o $((len / 256)))"
    printf '%-*s\n' $((len - 1)) "$dict"
}

# ---- a gzip bomb: 1 GiB of zeros (10 GiB with LIMITS_HEAVY=1) ------------------
gib=1
[ "${LIMITS_HEAVY:-}" = 1 ] && gib=10
head -c 67108864 /dev/zero | gzip -1 >"$d/64m.gz"
: >"$d/bomb.raw.gz"
i=0
while [ $i -lt $((gib * 16)) ]; do cat "$d/64m.gz" >>"$d/bomb.raw.gz"; i=$((i + 1)); done
size=$(wc -c <"$d/bomb.raw.gz")
values=$((gib * 1073741824))
timed --json --format=raw --dtype=uint8 -n 10 "$d/bomb.raw.gz"
expect_status 0 "gzip bomb, $size bytes inflating to $gib GiB of class 0"
expect_json '.files[0].count' "$values" "gzip bomb: every inflated byte is a label"
expect_rss "gzip bomb"
# the same bytes behind a .npy header whose shape says exactly that
{ npy_header '|u1' "($values,)" False | gzip -1; cat "$d/bomb.raw.gz"; } >"$d/bomb.npy.gz"
timed --json -n 1 "$d/bomb.npy.gz"
expect_status 0 "gzip bomb as .npy.gz, $gib GiB of class 0"
expect_json '.files[0].shape[0]' "$values" "gzip bomb as .npy.gz: shape from the header"
expect_rss "gzip bomb as .npy.gz"
rm -f "$d/bomb.raw.gz" "$d/bomb.npy.gz"

# ---- lines of 100 MB ------------------------------------------------------------
head -c 100000000 /dev/zero | tr '\0' 1 >"$d/line"
timed --format=csv - <"$d/line"
expect_status 3 "a 100 MB CSV cell"
expect_err 'labelaudit: -: line 1: field longer than 16 MiB' "a 100 MB CSV cell: clear error"
expect_rss "a 100 MB CSV cell"
timed --format=text - <"$d/line"
expect_status 3 "a 100 MB text line"
expect_err 'labelaudit: -: line 1: line longer than 1048576 bytes' "a 100 MB text line: clear error"
expect_rss "a 100 MB text line"
{ printf 'a,label\n1,2\n'; yes 1, | head -c 100000000 | tr -d '\n'; printf '\n3,4\n'; } >"$d/line"
timed --format=csv -n 10 - <"$d/line"
expect_rss "a 100 MB CSV row of 50 million fields"
[ "$rc" -le 3 ]
ok $? "a 100 MB CSV row of 50 million fields: read, no crash (exit $rc)"
{ yes 1, | head -c 100000000 | tr -d '\n'; printf '\n'; } >"$d/line"
timed --format=csv - <"$d/line"
expect_status 3 "a 100 MB first CSV row"
expect_err 'line 1: first row longer than 16 MiB' "a 100 MB first CSV row: clear error"
expect_rss "a 100 MB first CSV row"
rm -f "$d/line"

# ---- headers that claim what the file does not hold --------------------------------
timed "$m/npy-header-len-1gb.npy"
expect_status 3 "a .npy header claiming 1 GiB"
expect_err 'header length 1073741824 is over the 1048576-byte limit' "1 GiB header: clear error"
expect_rss "a .npy header claiming 1 GiB"
{ printf '\223NUMPY\002\000\377\377\017\000'; printf "{'descr': '<i8', "; } >"$d/h.npy"
timed "$d/h.npy"
expect_status 3 "a .npy header claiming 1 MiB - 1, 27 bytes present"
expect_err 'file ends inside the header' "a 1 MiB header claim: clear error"
for f in npy-claims-2p62-elements.npy npy-fortran-claims-2p62.npy npz-zip64-size-2p62.npz \
         npz-zip64-sizes-both-2p62.npz npz-zip64-entries-2p62.npz npz-usize-lie.npz \
         npy-shape-overflows-64-bits.npy; do
    timed "$m/$f"
    expect_status 3 "$f"
    expect_rss "$f"
    timed --format="${f##*.}" - <"$m/$f"
    expect_status 3 "$f on stdin"
    expect_rss "$f on stdin"
done

# A Fortran-order array really too large to reorder from a stream: the data
# flows past 256 MiB through one chunk buffer, then the refusal.
mkfifo "$d/fifo"
{ npy_header '|u1' '(20000, 20000)' True; head -c 300000000 /dev/zero; } >"$d/fifo" 2>/dev/null &
timed --format=npy - <"$d/fifo"
wait
expect_status 3 "a 400 MB Fortran array from a pipe"
expect_err 'too large to reorder from a stream' "a 400 MB Fortran array from a pipe: clear error"
expect_rss "a 400 MB Fortran array from a pipe"

# masks and volumes that claim more than they hold (2^31 x 2^31
# pixels, 4096 x 4096 over 64 bytes, 65535 x 65535 in a TIFF strip of no bytes,
# 32767^3 voxels over 64 MiB of gzipped
# zeros): exit 3 in bounded memory, whether or not the format is built in
for f in png-huge-claimed.png png-lying-ihdr.png tiff-sparse-claim.tif nifti-gz-bomb.nii.gz; do
    timed "$m/$f"
    expect_status 3 "$f"
    expect_rss "$f"
done
# A file run (a plain .npy) read in place costs page faults that do not grow
# with its size: 64 MiB more of int64 labels, in the page cache, may cost
# fewer than one fault per MiB more (mapped a window at a time, it cost one
# per fault-around span: about 600 more). The same run at two sizes, so that
# what any run costs (the program's start, its buffers) cancels out.
faults_of() {   # faults_of MIB : minor page faults of auditing MIB MiB of zeros at -j2
    { npy_header '<i8' "($(($1 * 131072)),)" False; head -c $(($1 << 20)) /dev/zero; } >"$d/run.npy"
    cat "$d/run.npy" >/dev/null
    /usr/bin/time -v -o "$d/time" "$LABELAUDIT" -j2 -n 10 --no-progress "$d/run.npy" >/dev/null 2>&1
    sed -n 's/.*Minor (reclaiming a frame) page faults: //p' "$d/time"
}
if [ -n "$have_time" ]; then
    small=$(faults_of 32)
    large=$(faults_of 96)
    rm -f "$d/run.npy"
    [ $((large - small)) -lt 64 ]
    ok $? "a .npy 64 MiB larger: $small then $large minor page faults (fewer than 64 more)"
else
    echo "ok $((n_tests += 1)) # SKIP page faults: no /usr/bin/time (Debian package time)"
fi
finish
