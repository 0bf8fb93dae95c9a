#!/bin/sh
# cases.sh - command-line cases kept as data: each tests/cases/NAME.case holds
# the arguments, the exit status and the exact standard output of one run, in
# a copy of samples/ (so paths in the output are the bare sample names):
#
#     # what the case shows (comment lines first, any number)
#     args: --json -n 10 stray-10.csv
#     exit: 1
#     --- stdout
#     ...the output, verbatim...
#
# The "version" field of a JSON report is written as "X.Y.Z", so a release
# changes no case. After a deliberate change of output, remake every case
# (and read the diff before committing it):
#     LABELAUDIT_REGEN=1 make check TESTS=tests/cli/cases.sh
. "$srcdir/tests/setup.sh"
cases="$srcdir/tests/cases"
# a copy of samples/, so that a case that writes a file leaves the tree alone
cp -R "$srcdir/samples" "$d/samples" && chmod -R u+w "$d/samples"

normalize() { sed 's/^\(	"version":	\)"[^"]*"/\1"X.Y.Z"/'; }

for case in "$cases"/*.case; do
    name=$(basename "$case" .case)
    args=$(sed -n 's/^args: //p' "$case" | head -1)
    want_exit=$(sed -n 's/^exit: //p' "$case" | head -1)
    sed '1,/^--- stdout$/d' "$case" >"$d/want"
    # shellcheck disable=SC2086 # args are split as a shell would split them
    (cd "$d/samples" && "$LABELAUDIT" --color=never $args) >"$d/raw" 2>"$d/err"
    got_exit=$?
    normalize <"$d/raw" >"$d/got"
    if [ -n "${LABELAUDIT_REGEN:-}" ]; then
        { sed -n '/^#/p; /^args: /p' "$case"; echo "exit: $got_exit"; echo "--- stdout"
          cat "$d/got"; } >"$d/new" && cp "$d/new" "$case"
        want_exit=$got_exit; cp "$d/got" "$d/want"
    fi
    [ "$got_exit" = "$want_exit" ]
    ok $? "$name: labelaudit $args exits $want_exit (got $got_exit)"
    cmp -s "$d/want" "$d/got"
    ok $? "$name: standard output as recorded"
    cmp -s "$d/want" "$d/got" || diff "$d/want" "$d/got" | sed 's/^/# /' | head -20
done
[ -n "$(ls "$cases"/*.case 2>/dev/null)" ]
ok $? "there are recorded cases in tests/cases/"
finish
