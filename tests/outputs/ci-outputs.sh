#!/bin/sh
# ci-outputs.sh - what labelaudit writes for CI systems and for people (SPEC:
# "For CI systems and for people"): --histogram's bars and weights, the JSON's
# class_weights and pos_weight, --junit, --annotations.
. "$srcdir/tests/setup.sh"

# A csv with known counts: classes 0..4 hold 10, 20, 40, 0, 10 labels.
{ echo label
  for c in 0 1 2 4; do
      case $c in 0|4) k=10 ;; 1) k=20 ;; 2) k=40 ;; esac
      i=0; while [ $i -lt $k ]; do echo $c; i=$((i + 1)); done
  done; } >"$d/w.csv"

# --- class_weights: total / (N_present * count[c]), 0 for an absent class.
# total 80, 4 classes present: 80/40, 80/80, 80/160, 0, 80/40.
run --json -n 5 "$d/w.csv"
expect_json '.files[0].class_weights | @json' '[2,1,0.5,0,2]' "class_weights from the SPEC's formula"
expect_json '.files[0].pos_weight' 'null' "no pos_weight for ce"
# The same formula in jq, on a histogram with weights that do not end (1/3 ...).
printf 'y\n0\n0\n0\n1\n2\n2\n5\n' >"$d/odd.csv"
run --json "$d/odd.csv"
expect_json '.files[0] | (.histogram | add) as $t | ([.histogram[] | select(. > 0)] | length) as $p
    | [.histogram[] | if . == 0 then 0 else $t / ($p * .) end] == .class_weights' 'true' \
    "class_weights = total / (N_present * count) for every class, exactly"
run --json --loss bce "$d/w.csv"
expect_json '.files[0].class_weights' 'null' "no class_weights for bce"

# --- pos_weight: negatives / positives per column of a 0/1 (S, C) matrix
# (tests/data/make_multilabel.py: 12 rows, positives 3, 4, 0, 12, 7).
run --json --loss bce "$data/multilabel-5.npy"
want=$(jq -nc '[9/3, 8/4, null, 0/12, 5/7]')
expect_json '.files[0].pos_weight | @json' "$want" "pos_weight from the SPEC's formula, null without a positive"
run --json "$data/multilabel-5.npy"
expect_json '.files[0].pos_weight' 'null' "no pos_weight for ce"
printf '0.5\n1\n' >"$d/soft.txt"
run --json --loss bce "$d/soft.txt"
expect_json '.files[0].pos_weight' 'null' "no pos_weight for 1-D soft labels"

# --- --histogram: exact text, ASCII in the C locale
run --histogram -n 5 "$d/w.csv"
cat >"$d/want" <<'WANT'
  histogram: 5 classes, 80 valid labels
    0 ##########                               10  12.5%
    1 ####################                     20  25.0%
    2 ######################################## 40  50.0%
    3                                           0   0.0%  missing
    4 ##########                               10  12.5%
  class weights: torch.nn.CrossEntropyLoss(weight=torch.tensor([2.0, 1.0, 0.5, 0.0, 2.0]))
WANT
sed -n '/histogram:/,/class weights/p' "$d/out" >"$d/got"
cmp -s "$d/want" "$d/got"
ok $? "--histogram draws ASCII bars in the C locale, exactly"
cmp -s "$d/want" "$d/got" || diff "$d/want" "$d/got" | sed 's/^/# /'

# UTF-8 locale: blocks in eighths of a cell against the largest count, 64 (40 cells):
# 1 -> 5/8 of a cell, 3 -> 15/8 cells.
printf 'y\n0\n2\n2\n2\n' >"$d/u.csv"
i=0; while [ $i -lt 40 ]; do echo 1; i=$((i + 1)); done >>"$d/u.csv"
for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24; do echo 1; done >>"$d/u.csv"
LC_ALL=C.UTF-8 "$LABELAUDIT" --histogram -n 3 "$d/u.csv" >"$d/out" 2>"$d/err"
printf '    0 \342\226\213%39s  1   1.5%%\n' '' >"$d/want"
printf '    1 ' >>"$d/want"; i=0; while [ $i -lt 40 ]; do printf '\342\226\210'; i=$((i + 1)); done >>"$d/want"
printf ' 64  94.1%%\n' >>"$d/want"
printf '    2 \342\226\210\342\226\211%38s  3   4.4%%\n' '' >>"$d/want"
grep '^    [0-9] ' "$d/out" >"$d/got"
cmp -s "$d/want" "$d/got"
ok $? "--histogram draws Unicode eighth blocks where the locale is UTF-8"
cmp -s "$d/want" "$d/got" || diff "$d/want" "$d/got" | sed 's/^/# /'
LANG=en_US.utf8 "$LABELAUDIT" --histogram -n 3 "$d/u.csv" | grep -q '^    1 #'
ok $? "LC_ALL=C wins over a UTF-8 LANG, as setlocale reads them"

# Colour when colours are on: the bar green, "missing" yellow; none with --color=never.
run --histogram --color=always -n 5 "$d/w.csv"
esc=$(printf '\033')
grep -q "^    2 ${esc}\[1;32m#*${esc}\[0m 40  50.0%$" "$d/out"
ok $? "--color=always colours the bars"
grep -q "  ${esc}\[1;33mmissing${esc}\[0m$" "$d/out"
ok $? "--color=always colours a missing class"
run --histogram --color=never -n 5 "$d/w.csv"
! grep -q "$esc" "$d/out"
ok $? "--color=never: no escape sequence"

# More than 64 classes: the 10 largest and the 10 smallest.
awk 'BEGIN { print "y"; for (c = 0; c < 100; c++) for (k = 0; k <= c; k++) print c }' >"$d/many.csv"
run --histogram -n 101 "$d/many.csv"
grep -q '^  histogram: 101 classes, 5050 valid labels; the 10 largest and the 10 smallest$' "$d/out"
ok $? "more than 64 classes: the header says which are drawn"
sed -n '/histogram:/,/class weights/p' "$d/out" | sed '1d;$d' | awk '{ print $1 }' | tr '\n' ' ' >"$d/got"
[ "$(cat "$d/got")" = "99 98 97 96 95 94 93 92 91 90 ... 8 7 6 5 4 3 2 1 0 100 " ]
ok $? "more than 64 classes: the 10 largest, then the 10 smallest, largest first (got $(cat "$d/got"))"
grep -q '^    ... 81 classes between$' "$d/out"
ok $? "more than 64 classes: the classes left out are counted"

# pos_weight ready to paste, with a column without a positive
run --histogram --loss bce "$data/multilabel-5.npy"
grep -qF '  pos_weight: torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0, 2.0, 1.0, 0.0, 0.7142857142857143]))' "$d/out"
ok $? "--histogram gives BCEWithLogitsLoss(pos_weight=...) ready to paste"
expect_out '^    1 column has no positive: 1.0 there' "--histogram names the columns without a positive"
run --histogram --loss nll -n 5 "$d/w.csv"
expect_out 'torch.nn.NLLLoss(weight=torch.tensor(\[2.0, 1.0, 0.5, 0.0, 2.0\]))' "--loss=nll pastes NLLLoss"
run -n 5 "$d/w.csv"
! grep -q 'histogram\|weight=' "$d/out"
ok $? "without --histogram, no bars and no weights"

# --- --junit: JUnit XML, checked by a real consumer: xmllint against the
# schema Jenkins reads (tests/outputs/junit.xsd says where it comes from).
have_xmllint() { command -v xmllint >/dev/null 2>&1; }
validates() {       # validates FILE DESCRIPTION
    if have_xmllint; then
        xmllint --noout --schema "$srcdir/tests/outputs/junit.xsd" "$1" 2>"$d/xsd.err"
        ok $? "$2: valid against the JUnit schema"
        sed 's/^/# /' "$d/xsd.err" | head -5
    else
        n_tests=$((n_tests + 1)); echo "ok $n_tests - $2 # SKIP xmllint not installed (Debian: libxml2-utils)"
    fi
}
attr() { sed -n "s/.*<testsuite name=\"labelaudit\" [^>]*$1=\"\([0-9]*\)\".*/\1/p" "$2"; }

cp "$srcdir/samples/stray-10.csv" "$d/train.csv"
run -n 10 -b 8 --junit="$d/j.xml" "$d/train.csv" "$d/missing.csv" "$data/multilabel-5.npy"
expect_status 3 "an unreadable input still gives its exit status with --junit"
[ -f "$d/j.xml" ]
ok $? "--junit is written when an input could not be read (the report says so)"
validates "$d/j.xml" "--junit with a failure, an unreadable file and skipped checks"
[ "$(attr tests "$d/j.xml")" = 27 ] && [ "$(attr failures "$d/j.xml")" = 1 ] &&
    [ "$(attr errors "$d/j.xml")" = 1 ] && [ "$(attr skipped "$d/j.xml")" = 8 ]
ok $? "one testsuite: 27 testcases (3 files x 9), 1 failure, 1 error, 8 skipped (got $(attr tests "$d/j.xml") $(attr failures "$d/j.xml") $(attr errors "$d/j.xml") $(attr skipped "$d/j.xml"))"
grep -c '<testsuite ' "$d/j.xml" | grep -qx 1
ok $? "one testsuite per run"
tr '\n' ' ' <"$d/j.xml" | grep -q "<testcase classname=\"$d/train.csv\" name=\"range\">  *<failure type=\"out-of-range\" message=\"3 labels outside \[0, 10) (0 below 0, 3 at or above 10)\">"
ok $? "an error finding is a <failure> of its check, typed with its code"
sed -n '/<failure type="out-of-range"/,/<\/failure>/p' "$d/j.xml" | sed -n '2,3p' >"$d/got"
printf '  value 10, 3 times: row 17 (line 19), row 230 (line 232), row 1000 (line 1002)\nprevents: %s\n' \
    'nll_loss_forward_reduce_cuda_kernel_2d: Assertion `t &gt;= 0 &amp;&amp; t &lt; n_classes` failed (on the CPU: IndexError: Target is out of bounds)</failure>' >"$d/want"
cmp -s "$d/want" "$d/got"
ok $? "a <failure>'s body lists the finding's first entries, as the text report does"
cmp -s "$d/want" "$d/got" || diff "$d/want" "$d/got" | sed 's/^/# /'
run -n 10 --max-report=1 --junit="$d/j1.xml" "$d/train.csv"
grep -qx '  value 10, 3 times: row 17 (line 19), row 230 (line 232), row 1000 (line 1002)' "$d/j1.xml" &&
    ! grep -q '  row 230 (line 232): 10' "$d/j1.xml"
ok $? "--max-report=1: one line in the body, the value's, naming its first rows"
printf 'label\n10\n11\n10\n12\n' >"$d/three.csv"
run -n 10 --max-report=1 --junit="$d/j3.xml" "$d/three.csv"
grep -qx '  value 10, 2 times: row 0 (line 2), row 2 (line 4)' "$d/j3.xml" &&
    grep -qx '  \.\.\. 2 more' "$d/j3.xml"
ok $? "--max-report=1 with 3 distinct values: one value's line, the other entries counted"
validates "$d/j1.xml" "--junit with a body's entries cut by --max-report"
tr '\n' ' ' <"$d/j.xml" | grep -q "<testcase classname=\"$d/train.csv\" name=\"batching\">  *<system-out>warning \[tiny-last-batch\]"
ok $? "a warning below --fail-on goes to <system-out>"
tr '\n' ' ' <"$d/j.xml" | grep -q "<testcase classname=\"$d/missing.csv\" name=\"read\">  *<error type=\"unreadable\" message=\"cannot open: No such file or directory\"/>"
ok $? "an unreadable file is an <error> of its read check"
for check in read empty parse finite integer range dtype classes batching; do
    grep -q "<testcase classname=\"$d/train.csv\" name=\"$check\"" "$d/j.xml"
    ok $? "a testcase for the $check check"
done
run -n 10 -b 8 --fail-on=warning --junit="$d/j.xml" "$d/train.csv"
tr '\n' ' ' <"$d/j.xml" | grep -q 'name="batching">  *<failure type="tiny-last-batch"'
ok $? "--fail-on=warning: a warning is a failure too"
run -n 10 --fail-on=never --junit="$d/j.xml" "$d/train.csv"
[ "$(attr failures "$d/j.xml")" = 0 ]
ok $? "--fail-on=never: no failure, as the exit status says"

# Text from the input (a path with & and <, a cell that is not UTF-8) stays well-formed.
printf 'label\n1\n\377\001bad\n' >"$d/a&b<c>.csv"
run -n 3 --junit="$d/j.xml" "$d/a&b<c>.csv"
validates "$d/j.xml" "--junit with &, < and invalid UTF-8 from the input"
grep -q 'classname="[^"]*a&amp;b&lt;c&gt;.csv"' "$d/j.xml"
ok $? "the path is escaped in XML"

# Written atomically: a failed write leaves no file and no temporary file.
run -n 10 --junit="$d/nodir/j.xml" "$d/train.csv"
expect_status 3 "--junit into a missing folder"
expect_err "^labelaudit: $d/nodir/j.xml: cannot create a temporary file beside it" "the message names the file"
echo old >"$d/keep.xml"; chmod 640 "$d/keep.xml"
run -n 10 --junit="$d/keep.xml" "$d/train.csv"
[ "$(stat -c %a "$d/keep.xml")" = 640 ] && grep -q '<testsuites>' "$d/keep.xml"
ok $? "--junit replaces a file and keeps its mode"
ln -s keep.xml "$d/link.xml"
run -n 10 --junit="$d/link.xml" "$d/train.csv"
[ -L "$d/link.xml" ]
ok $? "--junit through a symbolic link keeps the link"
[ -z "$(ls -A "$d" | grep '^\.labelaudit-')" ]
ok $? "no temporary file is left behind"
run -n 10 --junit=/dev/null "$d/train.csv"
expect_status 1 "--junit=/dev/null writes into the device"
[ -c /dev/null ]
ok $? "/dev/null is still a device"

# --- --annotations=github: workflow commands at the file's physical lines
# GitHub shows 10 annotations of a severity per step: one per file and
# finding, at its first entry's line, the entries in the message. On the
# samples, as files, gzip, arrays, --max-report=1, --quiet and --json, they
# are tests/cases/annotations-*.case; here, that the lines they name in
# stray-10.csv (a header, then label 10 in data rows 17, 230 and 1000) hold
# the 10, and the inputs no sample is.
for line in 19 232 1002; do
    [ "$(sed -n "${line}p" "$d/train.csv" | awk -F, '{ print $NF }')" = 10 ]
    ok $? "line $line of the file holds the 10 (sed -n ${line}p)"
done

# Physical lines: a quoted field with a newline, CRLF, a blank line, a header.
printf 'id,label\r\n1,0\r\n2,"x\r\ny"\r\n\r\n3,12\r\n"4\n4",5\r\n5,-1\r\n' >"$d/q.csv"
run -n 10 --annotations=github "$d/q.csv"
grep "^::error" "$d/out" | sed "s/%0Aprevents: .*//" >"$d/got"
cat >"$d/want" <<WANT
::error file=$d/q.csv,line=3,title=unparsable::1 cell is not a number%0A  value "x%0D%0Ay", once: row 1 (line 3)
::error file=$d/q.csv,line=6,title=out-of-range::2 labels outside [0, 10) (1 below 0, 1 at or above 10)%0A  value 12, once: row 2 (line 6)%0A  value -1, once: row 4 (line 9)
WANT
cmp -s "$d/want" "$d/got"
ok $? "lines count a quoted field's newlines, a blank line and the header; CR and LF escaped"
cmp -s "$d/want" "$d/got" || diff "$d/want" "$d/got" | sed 's/^/# /'
# Lines by the reader's own rules: each row's label is the line it starts on,
# so the text report must say "row R (line V): V" for each label V. Quotes as Python reads
# them (a stray quote after spaces opens a field; text after a closing quote
# continues it), blank lines, lines of spaces, a lone CR, CR LF.
# rows_and_lines: "LINE VALUE" for each row the text report in $d/out names,
# on an entry's line ("row 3 (line 5): 7") or a value's ("value 7, 2 times:
# row 3 (line 5), row 9 (line 12)")
rows_and_lines() {
    sed -n 's/^      row [0-9]* (line \([0-9]*\)): \(-*[0-9]*\)$/\1 \2/p
             s/^      value \(-*[0-9]*\), [^:]*: \(.*\)$/\1 \2/p' "$d/out" |
        awk 'NF > 1 && $2 !~ /^row|^\(/ { print; next }
             { v = $1; $1 = ""; n = split($0, parts, /\(line /)
               for (i = 2; i <= n; i++) { sub(/\).*/, "", parts[i]); print parts[i], v } }'
}
lines_match() {    # lines_match FILE WANT_ROWS DESCRIPTION [ARGS...]: after the run
    file=$1 want=$2 what=$3
    shift 3
    run -n 1 "$@" "$file"
    rows_and_lines >"$d/pairs"
    [ "$(wc -l <"$d/pairs")" -eq "$want" ] && awk '$1 != $2 { bad = 1 } END { exit bad }' "$d/pairs"
    ok $? "$what: each row's line is its label ($(tr '\n' ';' <"$d/pairs"))"
}
printf 'text,label\n  "abc\nx,1\n"q" tail,2\n"Great" movie,5\nhe said "meh",6\n\n   \na,9\rb,9\r\n"multi\nline",10\n x,12\n' \
    >"$d/stray.csv"
lines_match "$d/stray.csv" 7 "stray quotes"
LABELAUDIT_CSV_SLOW=1 lines_match "$d/stray.csv" 7 "stray quotes, libcsv alone"
LABELAUDIT_CSV_BLOCK=7 lines_match "$d/stray.csv" 7 "stray quotes, blocks of 7 bytes" -j 3
printf 'a\tlabel\n"x\ty\n"\t2\n\n z "w\t5\n' >"$d/stray.tsv"
lines_match "$d/stray.tsv" 2 "tsv: a quoted tab and newline, a literal quote"
printf 'skip "this\nname,label\n"a\n",3\n4,5\n' >"$d/skipq.csv"
lines_match "$d/skipq.csv" 2 "--skip-rows: a quote on a skipped line opens nothing" --skip-rows=1 -c label
printf '1\r1\r\n2\n \n4\r' >"$d/cr.txt"
lines_match "$d/cr.txt" 4 "text: a lone CR ends a row on the same line" --format=text
printf 'text,label\n  "abc\nx,1\n"q" tail,2\n4,5,6\n' >"$d/wide.csv"
run -n 1 "$d/wide.csv"
expect_err "wide.csv: line 5: 3 fields, but the first row has 2" \
    "the reader's own messages count the same lines"
printf '3\n\n12\n  \n-1\n' >"$d/t.txt"
run -n 10 --format=text "$d/t.txt"
rows_and_lines | sort -n | awk '{ print $1 }' | tr '\n' ' ' >"$d/got"
[ "$(cat "$d/got")" = "3 5 " ]
ok $? "text: blank and whitespace-only lines are no rows, but count as lines (lines $(cat "$d/got"))"
printf 'counts 3\nnot a row either\nlabel\n1\n7\n' >"$d/skip.csv"
run -n 5 --skip-rows=2 --annotations=github "$d/skip.csv"
expect_out "^::error file=$d/skip.csv,line=5,title=out-of-range::1 label outside \[0, 5) (0 below 0, 1 at or above 5)%0A  value 7, once: row 1 (line 5)%0A" "--skip-rows: the skipped lines count"
run -n 10 --annotations=github - <"$d/train.csv"
expect_out '^::error file=-,title=out-of-range::3 labels outside \[0, 10) (0 below 0, 3 at or above 10)%0A  value 10, 3 times: row 17, row 230, row 1000%0A' "standard input: no line, the rows in the message"
printf 'label\n1\n2\n' >"$d/w,x:y%.csv"
run -n 2 --annotations=github "$d/w,x:y%.csv"
expect_out "^::error file=$d/w%2Cx%3Ay%25.csv,line=3,title=out-of-range::1 label outside \[0, 2)" "GitHub's escapes: , : % in a property"
printf 'label\n1\n"unterminated\n' >"$d/bad.csv"
run -n 2 --annotations=github "$d/bad.csv"
expect_out "^::error file=$d/bad.csv,line=3,title=unreadable::line 3: " "an unreadable file: an error at the line its message names"

# --- --annotations=gitlab:FILE: GitLab Code Quality
run -n 10 -b 8 --annotations=gitlab:"$d/cq.json" "$d/train.csv" "$srcdir/samples/masks.npy"
expect_status 1 "--annotations=gitlab"
cp "$d/cq.json" "$d/out"
expect_json 'length' 16 "train.csv: 3 entries and 2 findings; masks.npy: 10 entries (--max-report) and 1 finding"
expect_json '.[0] | [.description, .check_name, .severity, .location.path, .location.lines.begin] | @json' \
    "[\"label 10 outside [0, 10) (3 times: row 17 (line 19), row 230 (line 232), row 1000 (line 1002))\",\"out-of-range\",\"major\",\"$d/train.csv\",19]" "an entry at its line, severity major for an error; a distinct value's first with its count and rows"
expect_json '[.[] | select(.check_name == "tiny-last-batch") | .severity] | @json' '["minor"]' "a warning is minor"
expect_json '[.[].fingerprint] | unique | length' 16 "every fingerprint differs"
expect_json '[.[] | select(.location.path | endswith("masks.npy")) | .location.lines.begin] | unique | @json' '[1]' "arrays: line 1"
expect_json '[.[] | keys | @json] | unique | @json' '["[\"check_name\",\"description\",\"fingerprint\",\"location\",\"severity\"]"]' "the fields GitLab reads"
run -n 10 --annotations=gitlab:"$d/nodir/cq.json" "$d/train.csv"
expect_status 3 "--annotations=gitlab into a missing folder"
# an unknown --annotations: tests/cases/usage-annotations-unknown

# --- file names with control bytes and bytes that are not UTF-8: no control
# byte reaches any output raw (a CI log or a terminal would obey an escape
# sequence); each output escapes them its own way, from one helper.
mkdir "$d/names"
esc=$(printf '\033') soh=$(printf '\001') del=$(printf '\177') bad=$(printf '\377')
tab=$(printf '\t') nl='
'
for name in "a${esc}[31mb" "c${soh}d" "e${del}f" "g${bad}h" "i${tab}j" "k${nl}l"; do
    printf '5\n' >"$d/names/$name.txt"
done
raw_controls() {    # raw_controls FILE ALLOWED : how many control bytes FILE holds, but ALLOWED
    LC_ALL=C tr -d "$2" <"$1" | LC_ALL=C tr -cd '\000-\037\177' | wc -c
}
n="$d/names"
run -n 3 --annotations=github --junit="$d/names.xml" --indices-out="$d/names.tsv" "$n"/*.txt
expect_status 1 "six files whose names hold control bytes"
[ "$(raw_controls "$d/out" '\n')" -eq 0 ] && [ "$(raw_controls "$d/err" '\n')" -eq 0 ]
ok $? "no control byte of a name in the text report, the annotations or on stderr"
for want in 'a\x1b[31mb.txt: text' 'c\x01d.txt: text' 'e\x7ff.txt: text' 'g\xffh.txt: text' \
            'i\x09j.txt: text' 'k\x0al.txt: text'; do
    grep -qF "$n/$want" "$d/out"
    ok $? "the text report writes $want"
done
for want in 'a\x1b[31mb.txt,line=1,' 'c\x01d.txt,line=1,' 'e\x7ff.txt,line=1,' \
            "g$(printf '\357\277\275')h.txt,line=1," 'i\x09j.txt,line=1,' 'k%0Al.txt,line=1,'; do
    grep -qF "::error file=$n/$want" "$d/out"
    ok $? "--annotations=github writes file=$want"
done
[ "$(raw_controls "$d/names.xml" '\n')" -eq 0 ]
ok $? "--junit: no control byte of a name, not even as a reference XML 1.0 forbids"
validates "$d/names.xml" "--junit with control bytes in the names"
for want in 'a\x1b[31mb.txt' 'c\x01d.txt' 'e\x7ff.txt' "g$(printf '\357\277\275')h.txt" \
            'i&#9;j.txt' 'k&#10;l.txt'; do
    grep -qF "classname=\"$n/$want\"" "$d/names.xml"
    ok $? "--junit writes classname=$want"
done
[ "$(raw_controls "$d/names.tsv" '\t\n')" -eq 0 ] && [ "$(wc -l <"$d/names.tsv")" -eq 6 ]
ok $? "--indices-out: six lines, no control byte of a name"
for want in 'a\x1b[31mb.txt' 'c\x01d.txt' 'e\x7ff.txt' "g${bad}h.txt" 'i\tj.txt' 'k\nl.txt'; do
    grep -qxF "$n/$want	0	5" "$d/names.tsv"
    ok $? "--indices-out writes $want (other bytes as they are)"
done
run -n 3 --json --annotations=gitlab:"$d/names.json" "$n"/*.txt
[ "$(raw_controls "$d/out" '\n\t')" -eq 0 ] && [ "$(raw_controls "$d/names.json" '\n\t')" -eq 0 ]
ok $? "--json and GitLab's report: no control byte of a name, DEL included"
jqf '[.files[].path] | @json' >"$d/got"
printf '%s\n' "[\"$n/a\\u001b[31mb.txt\",\"$n/c\\u0001d.txt\",\"$n/e\\u007ff.txt\",\"$n/g$(printf '\357\277\275')h.txt\",\"$n/i\\tj.txt\",\"$n/k\\nl.txt\"]" |
    cmp -s - "$d/got"
ok $? "--json: the names come back from the JSON as they are (not UTF-8: U+FFFD)"
jq -r '.[0].location.path' "$d/names.json" | grep -qF "$n/a${esc}[31mb.txt"
ok $? "GitLab's report: a JSON escape, which GitLab decodes"

finish
