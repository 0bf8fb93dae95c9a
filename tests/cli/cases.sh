#!/bin/sh
# cases.sh - command-line cases kept as data: each tests/cases/NAME.case holds
# the arguments, the exit status and the exact standard output of one run, in
# a copy of samples/ (so paths in the output are the bare sample names), and,
# when it has a "--- stderr" section, its exact standard error too:
#
#     # what the case shows (comment lines first, any number)
#     args: --json -n 10 stray-10.csv
#     exit: 1
#     --- stdout
#     ...the output, verbatim...
#     --- stderr
#     ...the standard error, verbatim (this section is optional)...
#
# Without a "--- stderr" section standard error is not checked; with one (even
# empty) it must match, so usage errors (exit 2) and read errors (exit 3) are
# cases too. args are split on blanks as a shell would split them, without
# quotes: an empty argument is written --option= . A case whose args say
# --json must also hold a JSON document that jq parses.
#
# The runner puts --color=never --backend=cpu before the args, so no case
# depends on a terminal or a GPU (what another backend prints belongs in a
# shell test); the output must not name a machine either: no absolute path,
# thread count or timing.
#
# The "version" field of a JSON report is written as "X.Y.Z", so a release
# changes no case. After a deliberate change of output, remake every case
# (and read the diff before committing it):
#     LABELAUDIT_REGEN=1 make check TESTS=tests/cli/cases.sh
# which keeps the comments and args, and rewrites the exit status, the stdout
# and (only in a case that has that section) the stderr. A new case can be
# started as its comments, args and "--- stdout" (and "--- stderr") lines and
# filled in this way.
. "$srcdir/tests/setup.sh"
cases="$srcdir/tests/cases"
# a copy of samples/, so that a case that writes a file leaves the tree alone
cp -R "$srcdir/samples" "$d/samples" && chmod -R u+w "$d/samples"

normalize() { sed 's/^\(	"version":	\)"[^"]*"/\1"X.Y.Z"/'; }

# section NAME CASE: the lines of CASE's "--- NAME" section (stdout runs to
# the "--- stderr" line or the end, stderr to the end)
section() {
    awk -v want="$1" '
        part == "" && $0 == "--- stdout" { part = "stdout"; next }
        part == "stdout" && $0 == "--- stderr" { part = "stderr"; next }
        part == want' "$2"
}

for case in "$cases"/*.case; do
    name=$(basename "$case" .case)
    args=$(sed -n 's/^args: //p' "$case" | head -1)
    want_exit=$(sed -n 's/^exit: //p' "$case" | head -1)
    has_err=; grep -qx -e '--- stderr' "$case" && has_err=1
    section stdout "$case" >"$d/want"
    section stderr "$case" >"$d/want-err"
    # shellcheck disable=SC2086 # args are split as a shell would split them
    (cd "$d/samples" && "$LABELAUDIT" --color=never --backend=cpu $args) >"$d/raw" 2>"$d/err"
    got_exit=$?
    normalize <"$d/raw" >"$d/got"
    if [ -n "${LABELAUDIT_REGEN:-}" ]; then
        { sed -n '/^--- stdout$/q; /^#/p; /^args: /p' "$case"; echo "exit: $got_exit"; echo "--- stdout"
          cat "$d/got"
          if [ -n "$has_err" ]; then echo "--- stderr"; cat "$d/err"; fi
        } >"$d/new" && cp "$d/new" "$case"
        want_exit=$got_exit; cp "$d/got" "$d/want"; cp "$d/err" "$d/want-err"
    fi
    [ "$got_exit" = "$want_exit" ]
    ok $? "$name: labelaudit $args exits $want_exit (got $got_exit)"
    cmp -s "$d/want" "$d/got"
    ok $? "$name: standard output as recorded"
    cmp -s "$d/want" "$d/got" || diff "$d/want" "$d/got" | sed 's/^/# /' | head -20
    if [ -n "$has_err" ]; then
        cmp -s "$d/want-err" "$d/err"
        ok $? "$name: standard error as recorded"
        cmp -s "$d/want-err" "$d/err" || diff "$d/want-err" "$d/err" | sed 's/^/# /' | head -20
    fi
    case " $args " in *" --json "*)
        jq -e . "$d/want" >/dev/null
        ok $? "$name: the recorded JSON document parses" ;;
    esac
done
[ -n "$(ls "$cases"/*.case 2>/dev/null)" ]
ok $? "there are recorded cases in tests/cases/"
finish
