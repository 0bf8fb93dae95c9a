#!/bin/sh
# pre-commit.sh - .pre-commit-hooks.yaml works with the real pre-commit (from
# PyPI): a scratch hooks repository holding it, a scratch project using it
# with three lines of .pre-commit-config.yaml. Skipped where pre-commit or git
# is not installed; it needs no network (the hooks repository is a local path,
# and language: system installs nothing).
. "$srcdir/tests/setup.sh"
if ! command -v pre-commit >/dev/null 2>&1 || ! command -v git >/dev/null 2>&1; then
    echo "ok 1 - pre-commit runs the labelaudit hook # SKIP pre-commit or git not installed (pip install pre-commit)"
    echo "1..1"
    exit 0
fi
top=$(cd "$srcdir" && pwd)
export PRE_COMMIT_HOME="$d/cache" GIT_CONFIG_NOSYSTEM=1 HOME="$d"
git config --global user.email test@example.com && git config --global user.name test &&
    git config --global init.defaultBranch main
# the hook runs `labelaudit`: the one just built
PATH="$(dirname "$LABELAUDIT"):$PATH"

mkdir "$d/hooks" && cp "$top/.pre-commit-hooks.yaml" "$d/hooks/" &&
    (cd "$d/hooks" && git init -q && git add . && git commit -qm hooks)
ok $? "a hooks repository holding .pre-commit-hooks.yaml"
rev=$(cd "$d/hooks" && git rev-parse HEAD)

mkdir "$d/proj" && cd "$d/proj" && git init -q
cat >.pre-commit-config.yaml <<YAML
repos:
- repo: $d/hooks
  rev: $rev
  hooks: [{ id: labelaudit, args: [-n, "10"] }]
YAML
cp "$top/samples/clean-10.csv" train.csv && echo '# notes' >README.md
git add . && git commit -qm data
pre-commit run --all-files >"$d/out" 2>&1
ok $? "clean labels: the hook passes"
grep -q '^labelaudit\.*Passed' "$d/out"
ok $? "pre-commit names the hook"
sed 's/^/# /' "$d/out" | head -5

cp "$top/samples/stray-10.csv" train.csv && git add train.csv
pre-commit run >"$d/out" 2>&1
st=$?
[ "$st" -eq 1 ] && grep -q '^labelaudit\.*Failed' "$d/out" && grep -q 'out-of-range' "$d/out"
ok $? "a label 10 with -n 10: the hook fails and shows the report (exit $st)"
sed 's/^/# /' "$d/out" | head -8
echo 'just text' >README.md && git add README.md && git commit -qm readme --no-verify
pre-commit run --files README.md >"$d/out" 2>&1
grep -q '^labelaudit\.*(no files to check)Skipped' "$d/out"
ok $? "files that are not labels are left alone"
# The README's local hook, as written there: files: keeps it to data/, so a
# metrics.csv beside the code is never audited (it would fail the commit).
awk '/^```yaml$/ { y = 1; buf = ""; next } y && /^```$/ { y = 0; if (buf ~ /repo: local/) print buf; next }
     y { buf = buf $0 "\n" }' "$top/README.md" | sed '/^$/d' >"$d/readme-hook.yaml"
grep -q 'repo: local' "$d/readme-hook.yaml" && grep -q 'files:' "$d/readme-hook.yaml"
ok $? "the README's pre-commit snippet is a local hook with files:"
mkdir "$d/local" && cd "$d/local" && git init -q
cp "$d/readme-hook.yaml" .pre-commit-config.yaml
mkdir data && cp "$top/samples/clean-10.csv" data/train.csv
printf 'epoch,loss,accuracy\n1,0.93,0.61\n2,0.71,0.72\n' >metrics.csv
git add . && git commit -qm start --no-verify
pre-commit run --all-files >"$d/out" 2>&1
st=$?
[ "$st" -eq 0 ] && grep -q '^labelaudit\.*Passed' "$d/out"
ok $? "the README's hook: clean labels pass, metrics.csv is left alone (exit $st)"
sed 's/^/# /' "$d/out" | head -5
cp "$top/samples/stray-10.csv" data/train.csv && git add data/train.csv
pre-commit run >"$d/out" 2>&1
st=$?
[ "$st" -eq 1 ] && grep -q 'out-of-range' "$d/out" && ! grep -q 'metrics.csv' "$d/out"
ok $? "the README's hook: a stray label in data/ fails the commit (exit $st)"
finish
