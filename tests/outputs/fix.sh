#!/bin/sh
# fix.sh - --fix=DIR: each rule and format's copy equals, byte for byte, the one
# tests/gen/gen_fix.py made with pandas and NumPy (tests/data/fix/cases.txt);
# fixes.json says what was done; the copy is audited again and the report says
# what the fix removed; the exit status is the original's; a copy is never
# written over a file nor left half-written; DIR inside an input is refused.
. "$srcdir/tests/setup.sh"

fx="$data/fix"
# ---- 1. every case of cases.txt: the copy, fixes.json, the exit status -----------
while IFS="$(printf '\t')" read -r name file expect args rules changed dropped; do
    args=$(printf '%s' "$args" | sed "s|MAPDIR|$fx|")
    cp "$fx/$file" "$d/$file"
    plain=$(printf '%s' "$args" | sed 's/--fix-[a-z]*\(=[^ ]*\)\{0,1\}//g')
    # shellcheck disable=SC2086 # the case's arguments, split on blanks
    (cd "$d" && "$LABELAUDIT" --color=never --backend=cpu $plain "$file" >/dev/null 2>&1)
    want_rc=$?
    # shellcheck disable=SC2086
    (cd "$d" && "$LABELAUDIT" --color=never --backend=cpu $args --fix="out-$name" "$file" \
        >"$d/out" 2>"$d/err")
    rc=$?
    [ "$rc" -eq "$want_rc" ]
    ok $? "$name: the exit status is the original's ($rc, want $want_rc)"
    cmp -s "$d/out-$name/$file" "$fx/$expect"
    ok $? "$name: the copy is byte for byte what $expect holds"
    j="$d/out-$name/fixes.json"
    got=$(jq -r '.files[0] | [(.rules | join(", ")), .changed, .dropped, .copy] | @tsv' "$j")
    [ "$got" = "$(printf '%s\t%s\t%s\t%s' "$rules" "$changed" "$dropped" "out-$name/$file")" ]
    ok $? "$name: fixes.json says $rules, $changed changed, $dropped dropped ($got)"
    grep -q "^  fix: the corrected copy of $file ($rules: $changed value" "$d/out"
    ok $? "$name: the report names the copy's making"
    grep -q "^  fix: removed .*; remaining" "$d/out"
    ok $? "$name: the report says what the fix removed and what remains"
    [ "$(ls -A "$d/out-$name" | grep -c labelaudit)" -eq 0 ]
    ok $? "$name: no temporary file is left in DIR"
done <"$fx/cases.txt"

# ---- 2. the re-audit's words and JSON ----------------------------------------------
cp "$fx/csv-one-based.csv" "$d/a.csv"
(cd "$d" && "$LABELAUDIT" --color=never --backend=cpu -n 5 --fix=o2 a.csv >"$d/out" 2>"$d/err")
grep -q '^  fix: removed out-of-range, one-based, missing-classes; remaining none$' "$d/out"
ok $? "text: the findings the fix removed, none remaining"
grep -q '^summary: 1 file, ' "$d/out"
ok $? "text: the summary counts the originals only"
(cd "$d" && "$LABELAUDIT" --json --backend=cpu -n 5 --fix=o3 a.csv >"$d/out" 2>"$d/err")
expect_json '.files | length' 2 "JSON: the copy's entry follows the original's"
expect_json '.files[0] | has("fix")' false "JSON: the original's entry has no fix object"
expect_json '.files[1].path' o3/a.csv "JSON: the copy's entry names the copy"
expect_json '.files[1].fix | [.of, (.rules|join(",")), .changed, .dropped] | @tsv' \
    "$(printf 'a.csv\tone-based\t42\t0')" "JSON: fix: of, rules, changed, dropped"
expect_json '.files[1].fix.removed | join(",")' out-of-range,one-based,missing-classes \
    "JSON: fix.removed"
expect_json '.files[1].fix.remaining | length' 0 "JSON: fix.remaining"
expect_json '.summary | [.files, .exit_status] | @tsv' "$(printf '1\t1')" \
    "JSON: the summary is the original's"
jq -e '.files[0] | del(.fix)' "$d/out" >"$d/with"
"$LABELAUDIT" --json --backend=cpu -n 5 "$d/a.csv" | jq '.files[0] | .path = "a.csv"' >"$d/without"
jq '.path = "a.csv"' "$d/with" | cmp -s - "$d/without"
ok $? "JSON: the original's entry is what it is without --fix"

# ---- 3. never over a file, never in place -----------------------------------------
cp "$d/o2/a.csv" "$d/before"
(cd "$d" && "$LABELAUDIT" --backend=cpu -n 5 --fix=o2 a.csv >"$d/out" 2>"$d/err")
rc=$?
expect_status 3 "a copy that exists: an output not written"
expect_err 'o2/a.csv exists: never replaced' "the copy that exists is said"
expect_err 'o2/fixes.json exists: never replaced' "so is fixes.json"
cmp -s "$d/o2/a.csv" "$d/before"
ok $? "the file that was there is untouched"
(cd "$d" && "$LABELAUDIT" --backend=cpu -n 5 --fix=. a.csv >"$d/out" 2>"$d/err")
rc=$?
expect_status 3 "--fix=. (the input's own folder): refused, never in place"
cmp -s "$d/a.csv" "$fx/csv-one-based.csv"
ok $? "--fix=.: the original is untouched"
mkdir -p "$d/ds"
cp "$fx/csv-one-based.csv" "$d/ds/a.csv"
run --backend=cpu -n 5 --fix="$d/ds/fixed" "$d/ds"
expect_status 2 "DIR inside a directory FILE: a usage error"
expect_err 'lies inside the input' "DIR inside a directory FILE is said"
[ ! -e "$d/ds/fixed" ]
ok $? "DIR inside a directory FILE: not made"
run --backend=cpu -n 5 --fix="$d/ds" "$d/ds"
expect_status 2 "DIR that is a directory FILE: a usage error"
: >"$d/plain"
run --backend=cpu -n 5 --fix="$d/plain" "$d/a.csv"
expect_status 2 "DIR that is a file: a usage error"

# ---- 4. no partial copy when the write fails --------------------------------------
big="$d/big.csv"
awk 'BEGIN { print "x,label"; for (i = 0; i < 20000; i++) print i "," (1 + i % 3) }' >"$big"
(ulimit -f 8; "$LABELAUDIT" --backend=cpu -n 3 --fix="$d/o4" "$big" >"$d/out" 2>"$d/err")
rc=$?
expect_status 3 "a copy past ulimit -f: an output not written"
expect_err 'big.csv: --fix: .*big.csv: write error' "the failed write is said"
[ ! -e "$d/o4/big.csv" ] && [ "$(ls -A "$d/o4" | grep -c labelaudit)" -eq 0 ]
ok $? "nothing of the copy is left, no temporary file either"
jq -e '.files[0] | .copy == null and (.error | test("write error"))' "$d/o4/fixes.json" >/dev/null
ok $? "fixes.json: no copy, and why"

# ---- 5. rules not applied, formats without a writer --------------------------------
python_free_npy() {     # a (3,) uint8 .npy of 0, 255, 255 under -n 2
    npy_head '|u1' '(3,)'
    printf '\000\377\377'
}
python_free_npy >"$d/m.npy"
run --backend=cpu -n 2 --fix="$d/o5" "$d/m.npy"
expect_err 'ignore-like-value not applied: -100 does not fit uint8' \
    "-100 in uint8: not applied, and said"
[ ! -e "$d/o5/m.npy" ]
ok $? "no rule applied: no copy"
run --backend=cpu -n 2 --fix-ignore=255 --fix="$d/o6" "$d/m.npy"
expect_err 'keeps 255: pass --ignore-index 255 here and ignore_index=255 to the loss' \
    "--fix-ignore=255 keeps 255 and says to pass ignore_index=255"
gzip -c "$d/a.csv" >"$d/a.csv.gz"
run --backend=cpu -n 5 --fix="$d/o7" "$d/a.csv.gz"
expect_err 'a.csv.gz: --fix has no writer for gzip-compressed csv' "compressed input: said"
[ ! -e "$d/o7/a.csv.gz" ]
ok $? "compressed input: nothing written"
run --backend=cpu --fix-drop "$d/a.csv"
expect_status 2 "--fix-drop without --fix: a usage error"

# ---- 6. --fix-map as a CSV, --fix-drop's dropped.txt ---------------------------------
printf 'old,new\n10,0\n20,1\n30,2\n' >"$d/map.csv"
cp "$fx/csv-map.csv" "$d/m.csv"
(cd "$d" && "$LABELAUDIT" --backend=cpu --fix-map=map.csv --fix=o8 m.csv >/dev/null 2>&1)
cmp -s "$d/o8/m.csv" "$fx/csv-map.expect.csv"
ok $? "--fix-map=FILE.csv: the same copy as the JSON map's"
printf '1,2\n1,3\n' >"$d/twice.csv"
run --backend=cpu --fix-map="$d/twice.csv" --fix="$d/o9" "$d/m.csv"
expect_status 2 "--fix-map mapping a label twice: a usage error"
cp "$fx/csv-drop.csv" "$d/dr.csv"
(cd "$d" && "$LABELAUDIT" --backend=cpu -n 3 --fix-drop --fix=o10 dr.csv >/dev/null 2>&1)
n_drop=$(wc -l <"$d/o10/dropped.txt")
[ "$n_drop" -eq 4 ] && [ "$(cut -f1 "$d/o10/dropped.txt" | sort -u)" = dr.csv ]
ok $? "dropped.txt: PATH<TAB>INDEX for each dropped row ($n_drop)"

# ---- 7. the README's example, in a copy of samples/ --------------------------------
awk '/^<!-- the --fix example/ { on = 1; next } on && /^```text$/ { next }
     on && /^```$/ { exit } on' "$srcdir/README.md" >"$d/readme"
cmd=$(head -n 1 "$d/readme" | sed 's/^\$ labelaudit //')
tail -n +2 "$d/readme" >"$d/want"
mkdir "$d/samples" && cp "$srcdir/samples/matlab-1based.txt" "$d/samples/"
# shellcheck disable=SC2086 # the README's arguments, split as a shell would
(cd "$d/samples" && "$LABELAUDIT" --color=never $cmd >"$d/got" 2>&1)
[ -n "$cmd" ] && cmp -s "$d/want" "$d/got"
same=$?
ok $same "the README's --fix example prints what the README shows ($cmd)"
[ $same -eq 0 ] || diff "$d/want" "$d/got" | sed 's/^/# /' | head -10
finish
