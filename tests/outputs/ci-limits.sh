#!/bin/sh
# ci-limits.sh - --annotations=github within what GitHub shows (10 error and
# 10 warning annotations per step, actions/toolkit's documented limit), its
# job summary, paths relative to the workspace, and both --annotations at once.
. "$srcdir/tests/setup.sh"
s="$srcdir/samples"
errors() { grep -c '^::error ' "$d/out"; }
warnings() { grep -c '^::warning ' "$d/out"; }

# --- the README's two-file workflow: its run line, as written there, on a
# train.csv with three stray 10s and a val.csv with fifty (1041 and 1000 rows)
line=$(sed -n 's/^ *- run: \(labelaudit .*--annotations=github.*\)$/\1/p' "$srcdir/README.md")
[ -n "$line" ]
ok $? "the README has a workflow step running labelaudit --annotations=github"
mkdir -p "$d/ws/data"
cp "$s/stray-10.csv" "$d/ws/data/train.csv"
awk 'BEGIN { print "label"; for (i = 0; i < 1000; i++) print (i % 20 == 0 ? 10 : i % 10) }' \
    >"$d/ws/data/val.csv"
# shellcheck disable=SC2086 # the README's words, split as the runner's shell splits them
(cd "$d/ws" && GITHUB_WORKSPACE="$d/ws" "$LABELAUDIT" ${line#labelaudit }) >"$d/out" 2>"$d/err"
[ "$(errors)" -le 10 ] && [ "$(warnings)" -le 10 ]
ok $? "the README's workflow: within GitHub's limits ($(errors) errors, $(warnings) warnings)"
for f in train val; do
    grep -q "^::error file=data/$f.csv,line=[0-9]*,title=out-of-range::" "$d/out"
    ok $? "data/$f.csv gets its out-of-range annotation, at a line, its path relative to the workspace"
done
grep '^::error file=data/val.csv' "$d/out" | grep -q '%0A  value 10, 50 times: row 0 (line 2), .*%0A  ... 40 more%0A'
ok $? "val.csv's annotation lists its first 10 rows with their lines and counts the 40 others"
grep -q '^::warning file=data/train.csv,title=tiny-last-batch::' "$d/out" ||
    grep -q '^::warning file=data/val.csv,' "$d/out"
n_warn_first=$(grep -n '^::warning' "$d/out" | head -1 | cut -d: -f1)
n_err_last=$(grep -n '^::error' "$d/out" | tail -1 | cut -d: -f1)
[ -z "$n_warn_first" ] || [ "$n_warn_first" -gt "$n_err_last" ]
ok $? "errors first, then warnings"

# --- more findings than GitHub shows: 9 annotations and a 10th that names the rest
mkdir "$d/many"
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do printf 'label\n0\n1\n9\n' >"$d/many/f$i.csv"; done
(cd "$d/many" && "$LABELAUDIT" -n 2 -b 2 --annotations=github f*.csv) >"$d/out" 2>"$d/err"
[ "$(errors)" -eq 10 ]
ok $? "12 files with an error each: 10 error annotations (got $(errors))"
[ "$(grep -c '^::error file=' "$d/out")" -eq 9 ]
ok $? "the first 9 name their file"
grep -q '^::error title=labelaudit::3 more errors than GitHub shows (10 per step): f10.csv \[out-of-range\], f11.csv \[out-of-range\], f12.csv \[out-of-range\]%0A' "$d/out"
ok $? "the 10th sums up the three that do not fit, by name"
[ "$(warnings)" -eq 10 ] &&
    grep -q '^::warning title=labelaudit::3 more warnings than GitHub shows (10 per step): f10.csv \[tiny-last-batch\], ' "$d/out"
ok $? "12 tiny last batches: 10 warning annotations, the last the sum (got $(warnings))"

# --- the fix is in the annotation, and one-based's does not repeat its message
(cd "$s" && "$LABELAUDIT" -n 10 --annotations=github matlab-1based.txt) >"$d/out" 2>"$d/err"
grep '^::warning .*title=one-based::' "$d/out" >"$d/one"
grep -q '::labels run from 1 to 10: they look 1-based%0Afix: subtract 1$\|::labels run from 1 to 10: they look 1-based%0Afix: subtract 1%0A' "$d/one"
ok $? "one-based: the message, then the fix, said once ($(cut -c1-160 "$d/one"))"
[ "$(grep -o '1-based' "$d/one" | wc -l)" -eq 1 ]
ok $? "one-based: \"1-based\" appears once"

# --- the job summary: a Markdown table appended to GITHUB_STEP_SUMMARY
echo '# an earlier step' >"$d/summary.md"
(cd "$d/ws" && GITHUB_STEP_SUMMARY="$d/summary.md" GITHUB_WORKSPACE="$d/ws" \
    "$LABELAUDIT" -n 10 -b 8 --annotations=github data/train.csv "$s/clean-10.csv") >"$d/out" 2>"$d/err"
head -1 "$d/summary.md" | grep -qx '# an earlier step'
ok $? "the summary is appended, what was there is kept"
grep -qx '### labelaudit: 2 files, 1 error, 1 warning' "$d/summary.md"
ok $? "the summary's heading counts files, errors and warnings"
grep -qx '| file | finding | fix | prevents (PyTorch) |' "$d/summary.md"
ok $? "a table of files, findings, fixes and the PyTorch errors they prevent"
grep -qF '| data/train.csv | **error** out-of-range: 3 labels outside \[0, 10) (0 below 0, 3 at or above 10) |  | nll\_loss\_forward\_reduce\_cuda\_kernel\_2d: Assertion \`t &gt;= 0 &amp;&amp; t &lt; n\_classes\` failed' "$d/summary.md"
ok $? "a finding's row: the file, severity and code, message, prevents; Markdown and HTML escaped"
grep -q '^| data/train.csv | \*\*warning\*\* tiny-last-batch: ' "$d/summary.md"
ok $? "the warning's row"
grep -q '| ok |  |  |$' "$d/summary.md"
ok $? "a clean file's row says ok"
(cd "$d/ws" && GITHUB_STEP_SUMMARY="$d/nodir/summary.md" "$LABELAUDIT" -n 10 --annotations=github data/train.csv) >"$d/out" 2>"$d/err"
rc=$?
[ "$rc" -eq 3 ] && grep -q "nodir/summary.md: cannot append the job summary" "$d/err"
ok $? "a summary that cannot be written: exit 3 and a message (exit $rc)"

# --- paths relative to the workspace, "./" dropped
mkdir -p "$d/ws/sub"
(cd "$d/ws" && "$LABELAUDIT" -n 10 --annotations=github ./data/./train.csv) >"$d/out" 2>"$d/err"
expect_out '^::error file=data/train.csv,line=19,' "./ is dropped (no workspace: the current directory)"
(cd "$d/ws/sub" && GITHUB_WORKSPACE="$d/ws" "$LABELAUDIT" -n 10 --annotations=github ../data/train.csv) >"$d/out" 2>"$d/err"
expect_out '^::error file=sub/\.\./data/train.csv,\|^::error file=data/train.csv,' "a relative path from a folder inside the workspace"
(cd "$d" && CI_PROJECT_DIR="$d/ws" "$LABELAUDIT" -n 10 --annotations=gitlab:"$d/cq.json" \
    --junit="$d/j.xml" --sarif="$d/s.sarif" "$d/ws/data/train.csv") >"$d/out" 2>"$d/err"
[ "$(jq -r '.[0].location.path' "$d/cq.json")" = data/train.csv ]
ok $? "GitLab (CI_PROJECT_DIR): the path relative to the project"
grep -q 'classname="data/train.csv"' "$d/j.xml"
ok $? "JUnit: the classname relative to the workspace"
[ "$(jq -r '.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri' "$d/s.sarif")" = data/train.csv ]
ok $? "SARIF: the artifact's uri relative to the workspace"
(cd "$d" && GITHUB_WORKSPACE="$d/ws" CI_PROJECT_DIR=/nowhere "$LABELAUDIT" -n 10 \
    --annotations=github "$s/stray-10.csv") >"$d/out" 2>"$d/err"
expect_out "^::error file=$s/stray-10.csv,\|^::error file=$(cd "$s" && pwd -P)/stray-10.csv," "a file outside the workspace keeps its path"

# --- --annotations given twice: both
(cd "$d/ws" && "$LABELAUDIT" -n 10 --annotations=github --annotations=gitlab:"$d/both.json" data/train.csv) \
    >"$d/out" 2>"$d/err"
[ "$(errors)" -eq 1 ] && [ "$(jq length "$d/both.json")" -eq 4 ]
ok $? "--annotations=github --annotations=gitlab:FILE: the workflow commands and the GitLab file"
(cd "$d/ws" && "$LABELAUDIT" -n 10 --annotations=gitlab:"$d/both.json" --annotations=github data/train.csv) \
    >"$d/out" 2>"$d/err"
[ "$(errors)" -eq 1 ]
ok $? "in the other order too"
finish
