#!/bin/sh
# columns-csv.sh - every column the model indexes, in CSV (SPEC "Every column
# the model indexes"): the fixtures of columns.sh written as users' tools
# write them (tests/gen/gen_column_csv.py: pandas' to_csv of Python lists,
# "[101, 2054, 102]", or of numpy arrays, "[ 101 2054  102]" wrapped over
# lines). A row is the same row in any format, so verdicts.txt (a tiny
# transformers model run forward on each row) is the truth here too: an
# error for a row exactly when that forward pass raised.
. "$srcdir/tests/setup.sh"
c="$data/columns"
csv="$c/csv"

. "$srcdir/tests/readers/verdicts.sh"

# ---- every family: the rows reported are the rows whose forward pass raised
check_verdicts "$csv" csv

# ---- numpy's repr (pyarrow's to_pandas), a long row wrapped over lines in its cell
run --json --model "$c/bert" "$csv/bert-numpy.csv"
[ "$(jq -r -f "$d/rows.jq" "$d/out")" = "2 3 4 5 6 8" ]
ok $? "bert-numpy.csv: the same error rows as the Python lists"
[ "$(jqf '[.files[0].columns[] | select(.name == "input_ids") | .count] | join(",")')" = 116 ]
ok $? "bert-numpy.csv: every id read, the wrapped cells' too"
[ "$(jqf '[.files[0].columns[] | select(.name == "input_ids") | .bad[] | "\(.sample):\(.line)"] | join(",")')" = 4:7,5:8 ]
ok $? "bert-numpy.csv: a bad id's row and line, the lines of a wrapped cell counted"

# ---- the issue's example, its rows and lines
for f in tok tok-numpy; do
    run --model "$c/bert-tok/bert" "$csv/$f.csv"
    expect_status 1 "$f.csv: exit 1"
    expect_out "error \[seq-too-long\]: column 'input_ids': 1 row longer than 512 tokens.*row 1 (row 1, line 3: 602 tokens)" \
        "$f.csv: the 602-token row 1, line 3"
done
run --model "$c/bert-tok/bert" "$csv/tok.csv"
expect_out "error \[out-of-range\]: column 'token_type_ids': 1 value outside \[0, 2) (type_vocab_size), row 3 (row 3, line 5: 2)" \
    "tok.csv: the token type 2, row 3, line 5"
expect_out "error \[length-mismatch\]: column 'labels': 1 row .*row 4 (row 4, line 6: labels has 13, input_ids has 12)" \
    "tok.csv: labels one longer, row 4, line 6"
run --model "$c/bert-tok/bert" "$csv/tok-numpy.csv"
expect_out "column 'token_type_ids': .*row 3 (row 3, line 79: 2)" \
    "tok-numpy.csv: row 3 starts on line 79, past the 602 ids wrapped over lines"

# ---- list label cells: an item's row and line
printf 'input_ids,labels\n"[3, 4]","[0, 1]"\n"[3, 4, 5]","[0, 7, 1]"\n' >"$d/lab.csv"
run --model "$c/bert" "$d/lab.csv"
expect_out "value 7, once: index 3 (row 1, line 3)" "a bad item of a list label names its row and line"

# ---- one integer a cell
run --json --model "$c/bert" "$csv/scalar.csv"
expect_status 1 "scalar.csv: exit 1"
[ "$(jqf '[.files[0].columns[] | "\(.name):\([.bad[].sample] | join("+"))"] | join(",")')" \
  = "input_ids:1,token_type_ids:2" ]
ok $? "scalar.csv: the id 60 in row 1, the token type 2 in row 2"

# ---- what cannot be read: one line naming file, line and column, exit 3
run --model "$c/bert" "$csv/summarized.csv"
expect_status 3 "summarized.csv: exit 3"
expect_err "summarized.csv: line 3, column 'input_ids' (row 1): numpy summarized this list" \
    "summarized.csv: numpy's '...' lost the ids: an error, not a pass"
run --model "$c/bert" "$csv/open-list.csv"
expect_status 3 "open-list.csv: exit 3"
expect_err "open-list.csv: line 3, column 'input_ids' (row 1): a list left open" \
    "open-list.csv: '[1, 2' named by line and column"
[ "$(wc -l <"$d/err")" -eq 1 ]
ok $? "open-list.csv: one line"
printf 'input_ids,labels\n"[3, 4.5]","[0, 1]"\n' >"$d/float.csv"
run --model "$c/bert" "$d/float.csv"
expect_status 3 "a float among the ids: exit 3"
expect_err "line 2, column 'input_ids' (row 0): '4.5' is not an integer" "... naming the token"
printf 'input_ids,labels\n"[[3, 4]]","[0, 1]"\n' >"$d/nested.csv"
run --model "$c/bert" "$d/nested.csv"
expect_status 3 "a list of lists: exit 3"

# ---- an empty cell is a null row; every thread count, block size and the
# reference parse read the same
printf 'input_ids,labels\n"[3, 4]","[0, 1]"\n,"[0]"\n"[3, 4]","[0, 1]"\n' >"$d/null.csv"
run --json --model "$c/bert" "$d/null.csv"
expect_status 0 "an empty input_ids cell: a null row, no error"
run --json --model "$c/bert" "$csv/tok.csv"
jq -S 'del(.files[0].timing, .timing, .elapsed)' "$d/out" >"$d/one"
for env in "LABELAUDIT_CSV_BLOCK=64" "LABELAUDIT_CSV_SLOW=1"; do
    env "$env" "$LABELAUDIT" -j4 --json --model "$c/bert-tok/bert" "$csv/tok.csv" |
        jq -S 'del(.files[0].timing, .timing, .elapsed)' >"$d/two"
    run --json --model "$c/bert-tok/bert" "$csv/tok.csv"
    jq -S 'del(.files[0].timing, .timing, .elapsed)' "$d/out" >"$d/one"
    cmp -s "$d/one" "$d/two"
    ok $? "tok.csv: $env -j4 reports what the default does"
done
"$LABELAUDIT" --format=csv --model "$c/bert-tok/bert" - <"$csv/tok.csv" >"$d/out" 2>"$d/err"
rc=$?
expect_status 1 "standard input: exit 1"
expect_out "row 4 (row 4, line 6: labels has 13" "standard input: the rows and lines too"
finish
