#!/bin/sh
# columns-jsonl.sh - every column the model indexes, in JSON Lines: the
# fixtures of columns.sh written by datasets' to_json
# (tests/gen/gen_column_jsonl.py). A row is the same row in any format, so
# transformers' verdicts (verdicts.txt) hold: an error for a row exactly when
# its forward pass raised. Then what only JSON can hold: a missing key or a
# null (a null row), a float id (non-integer), a column of lists and numbers.
. "$srcdir/tests/setup.sh"
c="$data/columns"
j="$c/jsonl"

if ! "$LABELAUDIT" --version | grep -q '^Formats: .*jsonl'; then
    echo "1..0 # SKIP built without yajl (no jsonl)"
    exit 0
fi

. "$srcdir/tests/readers/verdicts.sh"

# ---- every family: the rows reported are the rows whose forward pass raised
check_verdicts "$j" jsonl

# ---- the issue's example: each crash with its row and its line
run --model "$c/bert-tok/bert" "$j/tok.jsonl"
expect_status 1 "tok.jsonl: exit 1"
expect_out "error \[out-of-range\]: column 'token_type_ids': 1 value outside \[0, 2) (type_vocab_size), row 3 (row 3, line 4: 2)" \
    "tok.jsonl: the token type 2, row 3, line 4"
expect_out "error \[seq-too-long\]: column 'input_ids': 1 row longer than 512 tokens.*row 1 (row 1, line 2: 602 tokens)" \
    "tok.jsonl: the 602-token row 1, line 2"
expect_out "error \[length-mismatch\]: column 'labels': 1 row .*row 4 (row 4, line 5: labels has 13, input_ids has 12)" \
    "tok.jsonl: labels one longer, row 4, line 5"
run --json --model "$c/bert-tok/bert" "$j/tok.jsonl"
[ "$(jqf '.files[0].columns[] | select(.name == "token_type_ids") | .bad[0].line')" = 4 ]
ok $? "tok.jsonl: the JSON's bad entry has its line"

# ---- a missing key and a null are null rows: no length to mismatch
printf '%s\n' '{"input_ids":[1,2],"labels":[0,1]}' '{"labels":[0,1,1]}' \
    '{"input_ids":null,"labels":[0,1,1]}' '{"input_ids":[3,4,5],"labels":[1,1,1]}' >"$d/null.jsonl"
run --json --vocab-size 10 "$d/null.jsonl"
expect_status 0 "a missing input_ids and a null one: exit 0"
[ "$(jqf '.files[0].columns[0].count')" = 5 ] && [ "$(jqf '.files[0].lengths.mismatched')" = 0 ]
ok $? "... their rows hold no ids and no length"

# ---- a float id: json.loads reads a float, torch.tensor a FloatTensor
printf '%s\n' '{"input_ids":[1,2],"labels":[0,1]}' '{"input_ids":[1,2.0],"labels":[0,1]}' \
    '{"input_ids":[1,"a"],"labels":[0,1]}' >"$d/float.jsonl"
run --vocab-size 10 "$d/float.jsonl"
expect_status 1 "a float id: exit 1"
expect_out "error \[non-integer\]: column 'input_ids': 2 rows holding values that are not integers, rows 1, 2 (row 1, line 2: 2.0)" \
    "... non-integer, naming the column, row and line"

# ---- malformed: one line naming the file and the line, exit 3
printf '%s\n' '{"input_ids":[1,2],"labels":[0,1]}' '{"input_ids":3,"labels":[0,1]}' >"$d/shape.jsonl"
run --vocab-size 10 "$d/shape.jsonl"
expect_status 3 "a list column holding a number: exit 3"
expect_err "shape.jsonl: line 2: column 'input_ids' holds a number where line 1's holds a list" \
    "... naming the file and the line"
printf '%s\n' '{"input_ids":[1,2],"labels":[0,1]}' '{"input_ids":[1,2,"labels":[0,1]}' >"$d/bad.jsonl"
run --vocab-size 10 "$d/bad.jsonl"
expect_status 3 "broken JSON in a checked column: exit 3"
expect_err "bad.jsonl: line 2: not valid JSON" "... naming the file and the line"
[ "$(grep -c 'bad.jsonl' "$d/err")" = 1 ]
ok $? "... in one line"
finish
