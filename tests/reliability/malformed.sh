#!/bin/sh
# malformed.sh - every broken input in tests/malformed/ gets the answer its
# MANIFEST line gives: the exit status, and for an unreadable file (exit 3)
# exactly one line on standard error, "labelaudit: PATH: ...", with the
# expected words, while the report still lists the file. The JSON report
# agrees. Then a broken file next to a good one: both are reported.
. "$srcdir/tests/setup.sh"
m="$srcdir/tests/malformed"
tab=$(printf '\t')

check_case() {     # check_case FILE ARGS STATUS REGEX
    file=$1 args=$2 want=$3 re=$4
    stdin=
    case $file in "<"*) stdin=1 file=${file#<} ;; esac
    [ "$args" = "-" ] && args=
    path="$m/$file"
    if [ -n "$stdin" ]; then shown=-; else shown=$path; fi
    what="${stdin:+< }$file${args:+ $args}"
    # shellcheck disable=SC2086  # ARGS are words
    if [ -n "$stdin" ]; then run $args - <"$path"; else run $args "$path"; fi
    expect_status "$want" "$what"
    if [ "$want" -eq 3 ]; then
        [ "$(wc -l <"$d/err")" -eq 1 ] && head -c 12 "$d/err" | grep -q '^labelaudit: '
        ok $? "$what: one line on stderr"
        line=$(cat "$d/err")
        case $line in "labelaudit: $shown: "*) st=0 ;; *) st=1 ;; esac
        ok $st "$what: the message names the file"
        printf '%s\n' "${line#"labelaudit: $shown: "}" | grep -Eq -e "$re"
        ok $? "$what: message /$re/"
        [ $st -eq 0 ] && [ "$(wc -l <"$d/err")" -eq 1 ] || sed 's/^/# err: /' "$d/err" | head -3
        grep -Fq "$shown" "$d/out"
        ok $? "$what: the report lists the file"
    else
        grep -Eq -e "$re" "$d/out"
        ok $? "$what: report /$re/"
    fi
    if [ -n "$stdin" ]; then run --json $args - <"$path"; else run --json $args "$path"; fi
    if [ "$want" -eq 3 ]; then err_is=string; else err_is=null; fi
    got=$(jq -r "[.summary.exit_status, (.files[0].error | type)] | @tsv" "$d/out" 2>&1)
    [ "$rc" -eq "$want" ] && [ "$got" = "$want$tab$err_is" ]
    ok $? "$what: --json (exit $rc, status and error type: $got)"
}

grep -v '^#' "$m/MANIFEST" | grep -v '^$' >"$d/manifest"
while IFS="$tab" read -r file args status re; do
    # a report (0 or 1) needs the format: without it the file is unreadable (3)
    if [ "$status" -ne 3 ] && missing=$(absent_feature "$args ${file#<}"); then
        echo "ok $((n_tests += 1)) - $file # SKIP built without $missing"
        continue
    fi
    check_case "$file" "$args" "$status" "$re"
done <"$d/manifest"

# every file here has its line
for f in "$m"/*; do
    b=$(basename "$f")
    case $b in MANIFEST|make.py|make_arrow.py|make_megatron.py|make_shards.py) continue ;; esac
    cut -f1 "$d/manifest" | sed 's/^<//' | grep -Fxq "$b"
    ok $? "MANIFEST has a line for $b"
done
[ "$(grep -vc '^#' "$m/MANIFEST")" -ge 40 ]
ok $? "at least 40 malformed cases"

# one broken file and one good one: exit 3, and the good one's report is there
run -n 10 "$m/npy-truncated-data.npy" "$m/good-5.txt"
expect_status 3 "broken + good"
grep -q "good-5.txt: text, int64, 5 labels" "$d/out"
ok $? "broken + good: the good file's report appears"
[ "$(wc -l <"$d/err")" -eq 1 ]
ok $? "broken + good: one message, for the broken file"
run --json -n 10 "$m/good-5.txt" "$m/npz-bad-crc.npz" "$m/does-not-exist.csv"
expect_status 3 "good + 2 broken, --json"
got=$(jq -r '[.files[] | (.error | type)] | join(",")' "$d/out")
[ "$got" = "null,string,string" ]
ok $? "good + 2 broken, --json: errors per file ($got)"
expect_json '.files[0].count' 5 "good + 2 broken, --json: the good file was audited"
[ "$(wc -l <"$d/err")" -eq 2 ]
ok $? "good + 2 broken: two messages"
finish
