#!/bin/sh
# readme.sh - every ```console example in README.md is a test: the command is
# run in samples/ and its output must be exactly what the README shows.
. "$srcdir/tests/setup.sh"

awk -v dir="$d" '
  /^```console$/ { n++; inblock = 1; cmdline = 1; next }
  inblock && /^```$/ { inblock = 0; next }
  inblock && cmdline { sub(/^\$ labelaudit /, ""); print > (dir "/cmd." n); cmdline = 0; next }
  inblock { print > (dir "/want." n) }
' "$srcdir/README.md"

for cmd in "$d"/cmd.*; do
    k=${cmd##*.}
    args=$(cat "$cmd")
    if missing=$(absent_feature "$args"); then
        echo "ok $((n_tests += 1)) - README example $k: labelaudit $args # SKIP built without $missing"
        continue
    fi
    # shellcheck disable=SC2086 # the README's arguments are split like a shell would
    (cd "$srcdir/samples" && "$LABELAUDIT" $args) >"$d/got.$k" 2>&1
    touch "$d/want.$k"
    if cmp -s "$d/want.$k" "$d/got.$k"; then
        ok 0 "README example $k: labelaudit $args"
    else
        ok 1 "README example $k: labelaudit $args"
        diff "$d/want.$k" "$d/got.$k" | sed 's/^/# /' | head -20
    fi
done
[ -e "$d/cmd.1" ]; ok $? "the README has console examples"
# The README's jq recipe quotes its filter (zsh would glob .files[0] and fail
# with "no matches found"), and gives the count.
recipe=$(sed -n "s/^\(labelaudit --json .*| jq .*\)  *#.*/\1/p" "$srcdir/README.md" | head -1)
echo "$recipe" | grep -q "| jq '[^']*'"
ok $? "the README's jq recipe quotes its filter ($recipe)"
got=$(cd "$srcdir/samples" && PATH="$(cd "$(dirname "$LABELAUDIT")" && pwd):$PATH" \
      sh -c "$(echo "$recipe" | sed 's/train\.csv/stray-10.csv/')" 2>&1)
[ "$got" = 3 ]
ok $? "the README's jq recipe gives the count (got $got)"
finish
