#!/bin/sh
# output-errors.sh - nothing is lost: labelaudit never writes to its inputs;
# --indices-out appears only after a run that succeeded (never a partial file
# or a temporary one, and an existing file survives a failed run); a full
# disk, `ulimit -f`, a closed pipe or a closed standard output is a clear
# "write error" and exit 3, also when it strikes in the middle of the output.
. "$srcdir/tests/setup.sh"
m="$srcdir/tests/malformed"

# ---- inputs are only read -----------------------------------------------------
mkdir "$d/in"
for f in "$srcdir"/samples/* "$srcdir"/tests/data/*.npy "$m/npz-bad-crc.npz" "$m/good-5.txt"; do
    [ -f "$f" ] && cp "$f" "$d/in/"
done
(cd "$d/in" && ls -ld --time-style=full-iso . ./* && cksum ./*) >"$d/before"
for f in "$d"/in/*; do
    "$LABELAUDIT" -n 10 --indices-out="$d/idx.tsv" "$f" >/dev/null 2>&1
    "$LABELAUDIT" -n 10 --json - <"$f" >/dev/null 2>&1
done
(cd "$d/in" && ls -ld --time-style=full-iso . ./* && cksum ./*) >"$d/after"
diff "$d/before" "$d/after" | sed "s/^/# /"; cmp -s "$d/before" "$d/after"
ok $? "inputs keep their bytes, times and folder after every run"

# ---- --indices-out: all or nothing -------------------------------------------------
mkdir "$d/o"
printf '0\n1\n11\n12\n' >"$d/bad.txt"
no_temp() { ! ls -A "$d/o" | grep -q 'labelaudit'; }
run -n 10 --indices-out="$d/o/idx.tsv" "$d/bad.txt"
expect_status 1 "--indices-out, a file with findings"
printf '%s\t2\t11\n%s\t3\t12\n' "$d/bad.txt" "$d/bad.txt" | cmp -s - "$d/o/idx.tsv"
ok $? "--indices-out holds every bad entry"
no_temp
ok $? "--indices-out: no temporary file left"
rm -f "$d/o/idx.tsv"
run -n 10 --indices-out="$d/o/idx.tsv" "$d/bad.txt" "$m/npy-truncated-data.npy"
expect_status 3 "--indices-out, one input unreadable"
[ ! -e "$d/o/idx.tsv" ] && no_temp
ok $? "a failed run leaves no file and no temporary file"
expect_err "idx.tsv: not written: an input could not be read" "a failed run says why"
echo precious >"$d/o/idx.tsv"
run -n 10 --indices-out="$d/o/idx.tsv" "$m/npz-bad-crc.npz"
[ "$(cat "$d/o/idx.tsv")" = precious ] && no_temp
ok $? "a failed run keeps the existing file as it was"
run -n 10 --indices-out="$d/o/no/such/dir/idx.tsv" "$d/bad.txt"
expect_status 3 "--indices-out in a missing folder"
expect_err 'idx.tsv: cannot create a temporary file beside it: No such file or directory' \
    "--indices-out in a missing folder: clear error"
run -n 10 --indices-out="$d/o" "$d/bad.txt"
expect_status 3 "--indices-out naming a folder"
expect_err ": is a directory" "--indices-out naming a folder: clear error"
ln -s idx.tsv "$d/o/link.tsv"
run -n 10 --indices-out="$d/o/link.tsv" "$d/bad.txt"
[ -L "$d/o/link.tsv" ] && grep -q "	11$" "$d/o/idx.tsv" && no_temp
ok $? "--indices-out through a symlink replaces its file, keeps the link"

# a file-size limit strikes in the middle of the entries
seq 0 300000 >"$d/many.txt"
(ulimit -f 64 && "$LABELAUDIT" -n 10 --indices-out="$d/o/big.tsv" "$d/many.txt" \
    >/dev/null 2>"$d/err"; echo $? >"$d/rc")
rc=$(cat "$d/rc")
expect_status 3 "--indices-out over ulimit -f"
expect_err 'big.tsv: write error: File too large' "--indices-out over ulimit -f: clear error"
[ ! -e "$d/o/big.tsv" ] && no_temp
ok $? "--indices-out over ulimit -f: no file, no temporary file"

# a full device is written to, never replaced
if mknod "$d/o/full" c 1 7 2>/dev/null; then
    run -n 10 --indices-out="$d/o/full" "$d/many.txt"
    expect_status 3 "--indices-out on a full device"
    expect_err 'full: write error: No space left on device' "--indices-out on a full device: clear error"
    [ -c "$d/o/full" ] && no_temp
    ok $? "--indices-out on a device: the device is still there, no temporary file"
else
    echo "ok $((n_tests += 1)) # SKIP mknod not permitted here"
fi
mkfifo "$d/o/fifo"
cat "$d/o/fifo" >"$d/fifo.out" &
run -n 10 --indices-out="$d/o/fifo" "$d/bad.txt"
wait
[ "$rc" -eq 1 ] && [ -p "$d/o/fifo" ] && [ "$(wc -l <"$d/fifo.out")" -eq 2 ] && no_temp
ok $? "--indices-out into a FIFO: the entries come through, the FIFO stays (exit $rc)"

# ---- standard output -----------------------------------------------------------------
"$LABELAUDIT" -n 10 "$d/bad.txt" >/dev/full 2>"$d/err"
rc=$?
expect_status 3 "report to /dev/full"
expect_err '^labelaudit: write error: No space left on device$' "report to /dev/full: clear error"
seq 1 2000000 >"$d/big.txt"
for mode in --json ""; do
    { "$LABELAUDIT" -n 10 --max-report=10000000 $mode "$d/big.txt" 2>"$d/err"; echo $? >"$d/rc"; } |
        head -n 1 >/dev/null
    rc=$(cat "$d/rc")
    expect_status 3 "${mode:-text} report of 2 million entries into | head -n 1"
    expect_err '^labelaudit: write error: Broken pipe$' "${mode:-text} report into a closed pipe: clear error"
    (ulimit -f 64 && "$LABELAUDIT" -n 10 --max-report=10000000 $mode "$d/big.txt" \
        >"$d/o/report" 2>"$d/err"; echo $? >"$d/rc")
    rc=$(cat "$d/rc")
    expect_status 3 "${mode:-text} report over ulimit -f"
    expect_err '^labelaudit: write error: File too large$' "${mode:-text} report over ulimit -f: clear error"
done
rm -f "$d/o/report" "$d/o/idx.tsv"
"$LABELAUDIT" -n 10 --indices-out="$d/o/idx.tsv" "$d/bad.txt" >&- 2>"$d/err"
rc=$?
expect_status 3 "standard output closed"
expect_err '^labelaudit: write error: Bad file descriptor$' "standard output closed: clear error"
[ ! -e "$d/o/idx.tsv" ] && no_temp
ok $? "standard output closed: the report did not land in the --indices-out file"
"$LABELAUDIT" -n 10 - <&- >"$d/out" 2>"$d/err"
rc=$?
expect_status 3 "standard input closed"
expect_err '^labelaudit: -: ' "standard input closed: the message names it"

# ---- an interrupted run: its temporary file goes with it ---------------------------
rm -f "$d/o/idx.tsv"
mkfifo "$d/fifo"
for sig in TERM HUP; do             # (a background job ignores INT)
    kill_mid_write "$sig"
    [ ! -e "$d/o/idx.tsv" ] && no_temp
    ok $? "SIG$sig while --indices-out is open leaves no file and no temporary file"
done
finish
