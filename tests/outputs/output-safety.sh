#!/bin/sh
# output-safety.sh - --indices-out never destroys a file: a descriptor
# (/dev/stdout, -, /dev/fd/N) is written through, never replaced; an output that is one of the inputs is refused, and so are two
# outputs on one file; an output inside a directory input is skipped; a fatal signal
# removes the temporary file; an existing file keeps its mode; a PATH with a
# tab or newline stays one TSV line; control bytes in file names are escaped,
# and so are bidi controls in class names.
. "$srcdir/tests/setup.sh"

printf '0\n1\n11\n12\n' >"$d/y.txt"
printf '0\n1\n' >"$d/clean.txt"
y="$d/y.txt"
tsv() { printf '%s\t2\t11\n%s\t3\t12\n' "$1" "$1"; }

# ---- 1. a descriptor is written through -------------------------------------------
for name in /dev/stdout - /dev/fd/1 /proc/self/fd/1; do
    echo "earlier line" >"$d/run.log"
    "$LABELAUDIT" -n 10 --indices-out="$name" "$y" >>"$d/run.log" 2>"$d/err"
    rc=$?
    expect_status 1 "--indices-out=$name >> run.log"
    { echo "earlier line"; tsv "$y"; } >"$d/want"
    head -n 3 "$d/run.log" | cmp -s - "$d/want"
    ok $? "--indices-out=$name >> run.log: the earlier line, then the entries"
    tail -n 1 "$d/run.log" | grep -q '^summary: 1 file, 1 error'
    ok $? "--indices-out=$name >> run.log: the report follows them"
    [ -f "$d/run.log" ] && ! ls -A "$d" | grep -q labelaudit
    ok $? "--indices-out=$name: run.log is still the shell's file, no temporary file"
done
"$LABELAUDIT" -n 10 --indices-out=/dev/stdout "$y" >"$d/out" 2>"$d/err"
tsv "$y" >"$d/want"
head -n 2 "$d/out" | cmp -s - "$d/want"
ok $? "--indices-out=/dev/stdout > out: the entries, then the report, in one file"
grep -q '^summary: ' "$d/out"
ok $? "--indices-out=/dev/stdout > out: the report is not lost"
"$LABELAUDIT" -q -n 10 --indices-out=- "$y" >"$d/out" 2>"$d/err"
tsv "$y" | cmp -s - "$d/out"
ok $? "-q --indices-out=-: the entries alone on standard output"
echo "earlier" >"$d/err.log"
"$LABELAUDIT" -n 10 --indices-out=/dev/stderr "$y" >"$d/out" 2>>"$d/err.log"
{ echo earlier; tsv "$y"; } | cmp -s - "$d/err.log"
ok $? "--indices-out=/dev/stderr 2>> err.log appends to it"
echo "three" >"$d/three.log"
"$LABELAUDIT" -n 10 --indices-out=/dev/fd/3 "$y" >"$d/out" 2>"$d/err" 3>>"$d/three.log"
{ echo three; tsv "$y"; } | cmp -s - "$d/three.log"
ok $? "--indices-out=/dev/fd/3 3>> three.log appends to it"
ln -s /dev/stdout "$d/to-stdout"
echo "earlier line" >"$d/run.log"
"$LABELAUDIT" -n 10 --indices-out="$d/to-stdout" "$y" >>"$d/run.log" 2>"$d/err"
[ -L "$d/to-stdout" ] && head -n 1 "$d/run.log" | grep -q "earlier line" &&
    grep -q '^summary: ' "$d/run.log"
ok $? "a symlink to /dev/stdout is written through as well"
run -n 10 --indices-out=/dev/fd/9 "$y"
expect_status 3 "--indices-out=/dev/fd/9, not open"
expect_err '/dev/fd/9: cannot write to descriptor 9: Bad file descriptor' \
    "--indices-out on a closed descriptor: clear error"
"$LABELAUDIT" -n 10 --indices-out=- "$y" "$d/missing.txt" >"$d/out" 2>"$d/err"
rc=$?
expect_status 3 "--indices-out=- with an unreadable input"
expect_err '^labelaudit: -: incomplete: an input could not be read$' \
    "--indices-out=-: a failed run says that the entries written are not all"

# ---- 2. the output is one of the inputs ------------------------------------------
cp "$y" "$d/keep"
ln -s y.txt "$d/link.txt"
ln "$y" "$d/hard.txt"
for out in "$y" "$d/link.txt" "$d/hard.txt"; do
    run -n 10 --indices-out="$out" "$d/clean.txt" "$y"
    expect_status 2 "--indices-out=$(basename "$out") with y.txt as an input"
    expect_err "^labelaudit: $y: input file is output file" "... says which input, as cat does"
    cmp -s "$y" "$d/keep" && [ -z "$(cat "$d/out")" ] && ! ls -A "$d" | grep -q labelaudit
    ok $? "... y.txt is untouched, nothing written"
done
run -n 10 --indices-out="$y" - <"$y"
expect_status 2 "--indices-out naming the file on standard input"
"$LABELAUDIT" -n 10 --indices-out=/dev/stdout "$y" >>"$y" 2>"$d/err"
rc=$?
expect_status 2 "--indices-out=/dev/stdout >> y.txt, with y.txt an input"
cmp -s "$y" "$d/keep"
ok $? "... y.txt is untouched"

# ---- the other output files: --junit, --annotations=gitlab:FILE ----------------
for opt in --junit= --annotations=gitlab:; do
    echo "earlier line" >"$d/run.log"
    "$LABELAUDIT" -n 10 "${opt}/dev/stdout" "$y" >>"$d/run.log" 2>"$d/err"
    head -n 1 "$d/run.log" | grep -q "earlier line" && grep -q '^summary: ' "$d/run.log"
    ok $? "${opt}/dev/stdout >> run.log appends to it"
    run -n 10 "${opt}$d/link.txt" "$y"
    expect_status 2 "${opt}link.txt with y.txt as an input"
    cmp -s "$y" "$d/keep"
    ok $? "... y.txt is untouched"
done

# ---- the job summary --annotations=github appends to GITHUB_STEP_SUMMARY ------------
for out in "$y" "$d/link.txt" "$d/hard.txt"; do
    GITHUB_STEP_SUMMARY="$out" "$LABELAUDIT" -n 10 --annotations=github "$d/clean.txt" "$y" \
        >"$d/out" 2>"$d/err"
    rc=$?
    expect_status 2 "GITHUB_STEP_SUMMARY=$(basename "$out") with y.txt as an input"
    expect_err "^labelaudit: $y: input file is output file (GITHUB_STEP_SUMMARY=$out)$" \
        "... says which input and the variable"
    cmp -s "$y" "$d/keep"
    ok $? "... y.txt is untouched, no Markdown appended"
done
GITHUB_STEP_SUMMARY="$d/two-sum.md" "$LABELAUDIT" -n 10 --annotations=github \
    --junit="$d/two-sum.md" "$y" >"$d/out" 2>"$d/err"
rc=$?
expect_status 2 "GITHUB_STEP_SUMMARY and --junit on one file: one would replace the other"
[ ! -e "$d/two-sum.md" ]
ok $? "... nothing written"
GITHUB_STEP_SUMMARY="$y" "$LABELAUDIT" -n 10 "$d/clean.txt" >"$d/out" 2>"$d/err"
rc=$?
expect_status 0 "GITHUB_STEP_SUMMARY without --annotations=github is no output of the run"

# ---- two outputs naming one file: one would replace the other ----------------------
mkdir "$d/two"
t="$d/two"
for pair in "--junit= --indices-out=" "--annotations=gitlab: --junit=" \
            "--indices-out= --annotations=gitlab:"; do
    first=${pair% *} second=${pair#* }
    run -n 10 "${first}$t/x" "${second}$t/x" "$y"
    expect_status 2 "$first$t/x $second$t/x"
    expect_err "^labelaudit: $t/x is named by two outputs (--[a-z=:-]*$t/x and --[a-z=:-]*$t/x)$" \
        "... says which outputs, naming the file"
    [ ! -e "$t/x" ] && [ -z "$(ls -A "$t")" ]
    ok $? "... nothing written, no temporary file"
done
run -n 10 --indices-out="$t/x" --junit="$t/../two/./x" "$y"
expect_status 2 "a new file named two ways (its folder and name)"
echo precious >"$t/x"
ln -s x "$t/link"
run -n 10 --junit="$t/link" --indices-out="$t/x" "$y"
expect_status 2 "one file through a symbolic link"
expect_err "link is named by two outputs (--indices-out=$t/x and --junit=$t/link)" "... names both"
[ "$(cat "$t/x")" = precious ] && [ -L "$t/link" ]
ok $? "... the file and the link are untouched"
ln "$t/x" "$t/hard"
run -n 10 --annotations=gitlab:"$t/hard" --junit="$t/x" "$y"
expect_status 2 "one file through a hard link"
"$LABELAUDIT" -n 10 --indices-out=- --junit="$t/x" "$y" >>"$t/x" 2>"$d/err"
rc=$?
expect_status 2 "--indices-out=- >> x with --junit=x: x is standard output"
run -n 10 --indices-out=- --junit=- "$y"
expect_status 1 "two outputs on standard output: each written through, one after the other"
grep -q '^<testsuites>' "$d/out" && grep -q "^$y	2	11$" "$d/out"
ok $? "... both are there"
run -n 10 --indices-out=/dev/null --junit=/dev/null --annotations=gitlab:/dev/null "$y"
expect_status 1 "three outputs into /dev/null: a device is written into, never replaced"

# ---- outputs inside a directory input: skipped, and said -----------------------------
mkdir "$d/ds"
printf 'label\n0\n1\n15\n' >"$d/ds/a.csv"
printf 'label\n17\n' >"$d/ds/b.csv"
sources() { jqf '[.files[0].sources[].path] | join(" ")'; }
skipped() { jqf '[.files[0].skipped[] | .path + ": " + .why] | sort | join("; ")'; }
run -n 10 --json --indices-out="$d/ds/bad.tsv" --junit="$d/ds/j.xml" "$d/ds"
expect_status 1 "--indices-out and --junit inside the directory audited"
[ "$(sources)" = "$d/ds/a.csv $d/ds/b.csv" ] && [ "$(skipped)" = "" ]
ok $? "... the temporary file of --indices-out is no source (sources: $(sources))"
printf '%s\t2\t15\n%s\t0\t17\n' "$d/ds/a.csv" "$d/ds/b.csv" >"$d/want.tsv"
cmp -s "$d/want.tsv" "$d/ds/bad.tsv"
ok $? "... --indices-out holds the bad entries of the two label files"
run -n 10 -v --json --indices-out="$d/ds/bad.tsv" --junit="$d/ds/j.xml" "$d/ds"
expect_status 1 "the same run again, last run's outputs in the folder"
[ "$(sources)" = "$d/ds/a.csv $d/ds/b.csv" ]
ok $? "... they are no sources (sources: $(sources))"
[ "$(skipped)" = "$d/ds/bad.tsv: an output of this run (--indices-out); $d/ds/j.xml: an output of this run (--junit)" ]
ok $? "... the report lists them as skipped, saying why (got: $(skipped))"
expect_err "^labelaudit: $d/ds/\.labelaudit-......: skipped: a temporary file of this run$" \
    "... -v names this run's temporary file (gone after the run, so not in the report)"
cmp -s "$d/want.tsv" "$d/ds/bad.tsv" && [ -z "$(ls -A "$d/ds" | grep '^\.labelaudit')" ]
ok $? "... --indices-out is the same as before, no temporary file left"
run -n 10 --indices-out="$d/ds/bad.tsv" "$d/ds"
expect_out "^      $d/ds/bad.tsv: an output of this run (--indices-out)$" "the text report says so too"
printf 'label\n0\n' >"$d/ds/.labelaudit-AbC123"
ln -s ../out.tsv "$d/ds/link.tsv"
echo old >"$d/out.tsv"
run -n 10 --json --indices-out="$d/out.tsv" "$d/ds" --glob='*'
expect_json '[.files[0].skipped[] | select(.path | endswith("AbC123")) | .why] | @json' \
    '["a temporary file of labelaudit (of a run that was killed, or runs now)"]' \
    "a temporary file another run left is skipped by its name"
run -n 10 --json --indices-out="$d/out.tsv" "$d/ds"
expect_json '[.files[0].skipped[] | select(.path | endswith("link.tsv")) | .why] | @json' \
    '["an output of this run (--indices-out)"]' "a link to an output is the output"
rm "$d/ds/.labelaudit-AbC123" "$d/ds/link.tsv" "$d/ds/bad.tsv" "$d/ds/j.xml"
"$LABELAUDIT" -n 10 --json "$d/ds" >"$d/ds/report.json" 2>"$d/err"
cp "$d/ds/report.json" "$d/out"
expect_json '[.files[0].skipped[].why] | @json' '["an output of this run (standard output)"]' \
    "standard output redirected into the folder is no source either"
rm "$d/ds/report.json"
mkdir -p "$d/yolo/labels"
printf '0 0.5 0.5 0.1 0.1\n12 0.5 0.5 0.1 0.1\n' >"$d/yolo/labels/a.txt"
for i in 1 2; do
    run --format=yolo -n 10 --indices-out="$d/yolo/labels/bad.txt" "$d/yolo"
    expect_status 1 "yolo, --indices-out=labels/bad.txt, run $i"
done
expect_out "not walked: $d/yolo/labels/bad.txt: an output of this run (--indices-out)" \
    "... the yolo walk names it and does not read it"
expect_out '^  1 label file, 2 lines$' "... one label file"
printf '%s\t1\t12\n' "$d/yolo" | cmp -s - "$d/yolo/labels/bad.txt"
ok $? "... --indices-out holds the one bad entry"

# ---- 3. a fatal signal removes the temporary file --------------------------------
mkdir "$d/o"
mkfifo "$d/fifo"
for sig in BUS:7 SEGV:11 ALRM:14 USR1:10 ABRT:6; do   # Linux's numbers; a background job ignores INT and QUIT
    num=${sig#*:} sig=${sig%:*}
    kill_mid_write "$sig"
    [ ! -e "$d/o/idx.tsv" ] && ! ls -A "$d/o" | grep -q labelaudit
    ok $? "SIG$sig while --indices-out is open leaves no file and no temporary file"
    # (a sanitizer build hands SIGSEGV and SIGBUS on to the sanitizer's report)
    [ "$rc" -eq $((128 + num)) ] || grep -q 'Sanitizer' "$d/err"
    ok $? "SIG$sig still ends the run as the signal does (exit $rc)"
done

# ---- 11. the mode of the file replaced; tabs and newlines in PATH -----------------
printf 'old\n' >"$d/o/idx.tsv"
chmod 0604 "$d/o/idx.tsv"
(umask 077 && "$LABELAUDIT" -n 10 --indices-out="$d/o/idx.tsv" "$y" >/dev/null 2>&1)
[ "$(stat -c %a "$d/o/idx.tsv")" = 604 ] && grep -q '	11$' "$d/o/idx.tsv"
ok $? "--indices-out keeps the replaced file's mode (got $(stat -c %a "$d/o/idx.tsv"))"
rm -f "$d/o/idx.tsv"
(umask 027 && "$LABELAUDIT" -n 10 --indices-out="$d/o/idx.tsv" "$y" >/dev/null 2>&1)
[ "$(stat -c %a "$d/o/idx.tsv")" = 640 ]
ok $? "a new --indices-out file follows the umask (got $(stat -c %a "$d/o/idx.tsv"))"
odd="$d/o/a	b
c\\d.txt"
cp "$y" "$odd"
run -n 10 --indices-out="$d/o/odd.tsv" "$odd"
printf '%s\t2\t11\n%s\t3\t12\n' "$d/o/a\\tb\\nc\\\\d.txt" "$d/o/a\\tb\\nc\\\\d.txt" |
    cmp -s - "$d/o/odd.tsv"
ok $? "a tab, a newline and a backslash in PATH are written as backslash escapes"
[ "$(awk -F'\t' 'NF != 3' "$d/o/odd.tsv" | wc -l)" -eq 0 ]
ok $? "... every line has three fields"

# ---- 11. control bytes in file names, on the terminal ------------------------------
esc=$(printf '\033')
red="$d/o/${esc}[31mred.txt"
cp "$y" "$red"
run -n 10 "$red" "$d/o/${esc}]0;title${esc}\\gone.txt"
! grep -q "$esc" "$d/out" && ! grep -q "$esc" "$d/err"
ok $? "no escape byte of a file name reaches the report or standard error"
expect_out '\\x1b\[31mred.txt: text' "the report shows it escaped"
expect_err '\\x1b\]0;title\\x1b\\gone.txt: cannot open' "a message shows it escaped"
# ---- 12. bidi controls in class names, on the terminal (issue 41 item 23) -----------
# U+202E shows the rest of the line backwards: shown as \u202e, as a C0 control is
printf '{"model_type":"bert","id2label":{"0":"cat","1":"\342\200\256god","2":"a\342\201\246b"}}' >"$d/bidi.json"
printf '0\n1\n2\n3\n' >"$d/l3.txt"
run --histogram --model "$d/bidi.json" "$d/l3.txt"
rlo=$(printf '\342\200\256') lri=$(printf '\342\201\246')
! grep -q "$rlo" "$d/out" && ! grep -q "$lri" "$d/out"
ok $? "no bidi control of a class name reaches the text report"
expect_out '\\u202egod$' "U+202E shown escaped"
expect_out 'a\\u2066b$' "U+2066 shown escaped"
finish
