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

finish
