#!/bin/sh
# gzip-paths.sh - gzip is inflated by ISA-L where it is built in, by zlib
# otherwise (and with LABELAUDIT_GZIP_ZLIB=1); both paths must say the same:
#  - every malformed .gz of tests/malformed (truncated, bad CRC, bad length,
#    corrupt deflate, trailing garbage, zero padding, a second member cut
#    short): the same exit status and the same message, byte offset and all
#    (ISA-L reads ahead, so a regular file it refuses is read again by zlib
#    for the message);
#  - good files (one member, concatenated members, a CSV over many MiB): the
#    same JSON report;
#  - from standard input, which is not read twice, a corrupt member is still
#    exit 3 and a "corrupt gzip data" message naming a byte.
. "$srcdir/tests/setup.sh"

mal="$srcdir/tests/malformed"

# both NAME ARGS... : run on either path; the reports and statuses must agree
both() {
    name=$1
    shift
    "$LABELAUDIT" "$@" >"$d/isal.out" 2>"$d/isal.err"
    s1=$?
    LABELAUDIT_GZIP_ZLIB=1 "$LABELAUDIT" "$@" >"$d/zlib.out" 2>"$d/zlib.err"
    s2=$?
    [ $s1 = $s2 ] && cmp -s "$d/isal.out" "$d/zlib.out" && cmp -s "$d/isal.err" "$d/zlib.err"
    ok $? "$name: the same status ($s1, $s2), report and message on both paths ($(head -c 120 "$d/isal.err"))"
}

for f in "$mal"/gz-*.gz "$mal"/npy-truncated.npy.gz; do
    both "$(basename "$f")" -n 10 --json "$f"
done

both "stray-10.csv.gz" -n 10 --json "$srcdir/samples/stray-10.csv.gz"

# two members back to back, as cat a.gz b.gz makes, then zero padding
seq 0 9 | gzip -c >"$d/two.txt.gz"
seq 5 9 | gzip -c >>"$d/two.txt.gz"
head -c 1024 /dev/zero >>"$d/two.txt.gz"
both "two members and zero padding" -n 10 --json "$d/two.txt.gz"
run -n 10 --json "$d/two.txt.gz"
expect_json '.files[0].count' 15 "two members: both are read"

# several MiB, so the inflater is asked for more input many times over
i=0
while [ $i -lt 40000 ]; do echo "x/$i.jpg,$((i % 10))"; i=$((i + 1)); done | gzip -c >"$d/big.csv.gz"
both "a 40000-row CSV" -n 10 --json "$d/big.csv.gz"

# from a pipe: no second read, ISA-L's own message where it is built in
cat "$mal/gz-corrupt-deflate.txt.gz" | "$LABELAUDIT" -n 10 - >"$d/out" 2>"$d/err"
rc=$?
[ $rc = 3 ] && grep -q "byte [0-9]*: corrupt gzip data" "$d/err"
ok $? "corrupt deflate from a pipe: exit 3 ($rc), $(head -c 120 "$d/err")"
cat "$mal/gz-bad-crc.txt.gz" | "$LABELAUDIT" -n 10 - >"$d/out" 2>"$d/err"
rc=$?
[ $rc = 3 ] && grep -q "corrupt gzip data (incorrect data" "$d/err"
ok $? "bad CRC from a pipe: exit 3 ($rc), $(head -c 120 "$d/err")"

finish
