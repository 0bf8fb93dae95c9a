#!/bin/sh
# tiny-batch-gate.sh - the README's gates catch its headline case: 1041 clean
# labels at batch 8 end on a batch of one sample, a warning (tiny-last-batch),
# so a gate must say --fail-on=warning to fail on it.
#
# What fails on that batch, by Debian's python3-torch (tests/gen/gen_batchnorm_one.py):
#   torch 1.13.0a0
#   BatchNorm1d, train, (1, 4): ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 4])
#   BatchNorm1d, train, (1, 4, 5): runs
#   BatchNorm2d, train, (1, 4, 1, 1): ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 4, 1, 1])
#   BatchNorm2d, train, (1, 4, 7, 7): runs
#   BatchNorm1d, eval, (1, 4): runs
#   cross_entropy, target torch.float16: RuntimeError: expected scalar type Long but found Half
#   cross_entropy, target torch.float32: RuntimeError: expected scalar type Long but found Float
#   cross_entropy, target torch.float64: RuntimeError: expected scalar type Long but found Double
# so the report names BatchNorm1d on (N, C) features and BatchNorm2d on 1x1
# maps, in training, not "BatchNorm" as a whole.
. "$srcdir/tests/setup.sh"
mkdir "$d/data"
awk 'BEGIN { print "label"; for (i = 0; i < 1041; i++) print i % 10 }' >"$d/data/train.csv"
cp "$d/data/train.csv" "$d/data/val.csv"
LA_DIR=$(cd "$(dirname "$LABELAUDIT")" && pwd)
PATH="$LA_DIR:$PATH"
export PATH

run -n 10 -b 8 "$d/data/train.csv"
expect_status 0 "1041 clean labels at batch 8: only a warning, exit 0 without --fail-on"
expect_out "the last holds 1 sample -- in training, BatchNorm1d on (N, C) features and BatchNorm2d on 1x1 maps fail on it\." \
    "the batching line names what fails on a batch of one"
run -n 10 -b 8 --fail-on=warning "$d/data/train.csv"
expect_status 1 "--fail-on=warning: the tiny last batch fails"

# The README's shell gate, at batch 8 on these files.
gate=$(sed -n 's/^\(labelaudit -q .*|| exit 1\).*/\1/p' "$srcdir/README.md" | head -1)
echo "$gate" | grep -q -- '--fail-on=warning'
ok $? "the README's shell gate says --fail-on=warning ($gate)"
gate8=$(echo "$gate" | sed 's/-b [0-9]*/-b 8/')
(cd "$d/data" && sh -c "$gate8") >"$d/out" 2>&1
st=$?
[ "$st" -ne 0 ] && [ ! -s "$d/out" ]
ok $? "the README's shell gate fails on 1041 samples at batch 8 (exit $st: $gate8)"

# The README's Makefile rule, at batch 8.
sed -n '/^```make$/,/^```$/p' "$srcdir/README.md" | sed '1d;$d' >"$d/Makefile.readme"
grep -q -- '--fail-on=warning' "$d/Makefile.readme"
ok $? "the README's Makefile rule says --fail-on=warning"
if command -v make >/dev/null 2>&1; then
    sed 's/-b [0-9]*/-b 8/' "$d/Makefile.readme" >"$d/Makefile"
    (cd "$d" && make -s labels.ok) >"$d/out" 2>&1
    st=$?
    [ "$st" -ne 0 ] && [ ! -e "$d/labels.ok" ] && grep -q 'tiny-last-batch' "$d/out"
    ok $? "the README's Makefile rule fails on 1041 samples at batch 8, labels.ok not made (exit $st)"
else
    n_tests=$((n_tests + 1)); echo "ok $n_tests - the README's Makefile rule # SKIP make not installed"
fi
finish
