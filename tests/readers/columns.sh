#!/bin/sh
# columns.sh - every column the model indexes (SPEC "Every column the model
# indexes"): input_ids, token_type_ids, position_ids and attention_mask each
# against its own table, row lengths against the position table, partner
# columns of one length. The truth is transformers itself: for each family of
# tests/data/columns (tests/gen/gen_column_verdicts.py), a tiny model was run
# forward on every row, and verdicts.txt says which rows raised. labelaudit
# must report an error for a row exactly when that forward pass raised.
. "$srcdir/tests/setup.sh"
c="$data/columns"

if ! "$LABELAUDIT" --version | grep -q '^Formats: [^(]* parquet'; then
    echo "1..0 # SKIP built without Apache Arrow (the fixtures are Parquet)"
    exit 0
fi

. "$srcdir/tests/readers/verdicts.sh"

# ---- every family: the rows reported are the rows whose forward pass raised
check_verdicts "$c" parquet

# ---- what warns and does not raise
run --json --model "$c/llama" "$c/llama.parquet"
[ "$(jqf '[.files[0].findings[] | select(.code == "seq-too-long") | .severity] | join(",")')" = warning ]
ok $? "llama: rows past max_position_embeddings warn (rotary: no table to index)"
expect_out 'llama: no position table' "llama: the limit says why it is soft"
run --json --model "$c/bert" "$c/bert.parquet"
[ "$(jqf '[.files[0].findings[] | select(.code == "mask-values") | .severity, .column] | join(",")')" \
  = warning,attention_mask ]
ok $? "bert: an attention_mask of 2 warns, naming its column"
[ "$(jqf '[.files[0].columns[] | select(.name == "attention_mask") | .bad[].sample] | join(",")')" = 7 ]
ok $? "bert: ... in row 7"
[ "$(jqf '[.files[0].findings[] | select(.code == "out-of-range") | .column] | join(",")')" = input_ids ]
ok $? "bert: the bad id's finding names input_ids"
[ "$(jqf '.files[0].lengths.limit')" = 16 ]
ok $? "bert: the length limit is max_position_embeddings"
run --json --model "$c/roberta" "$c/roberta.parquet"
[ "$(jqf '.files[0].lengths.limit')" = 16 ]
ok $? "roberta: 18 positions less padding_idx + 1 leave 16 for tokens"

# ---- the issue's example: three crashes, each with its row
run --model "$c/bert-tok/bert" "$c/bert-tok/tok.parquet"
expect_status 1 "tok.parquet: exit 1"
expect_out "error \[out-of-range\]: column 'token_type_ids': 1 value outside \[0, 2) (type_vocab_size), row 3 (row 3: 2)" \
    "tok.parquet: the token type 2, row 3"
expect_out "error \[seq-too-long\]: column 'input_ids': 1 row longer than 512 tokens.*row 1 (row 1: 602 tokens)" \
    "tok.parquet: the 602-token row 1"
expect_out "error \[length-mismatch\]: column 'labels': 1 row .*row 4 (row 4: labels has 13, input_ids has 12)" \
    "tok.parquet: labels one longer, row 4"

# ---- every output names the column of each finding
run --model "$c/bert-tok/bert" --sarif="$d/sarif" --junit="$d/junit" --annotations=github \
    --html="$d/html" "$c/bert-tok/tok.parquet"
[ "$(jq -r '[.runs[0].results[] | .properties.column] | join(",")' "$d/sarif")" \
  = token_type_ids,input_ids,labels ]
ok $? "SARIF: each result's properties name its column"
for code in seq-too-long length-mismatch out-of-range; do
    grep -q "title=$code::column '" "$d/out"
    ok $? "annotations: $code names its column"
    grep -q "<failure type=\"$code\" message=\"column &apos;" "$d/junit"
    ok $? "JUnit: $code names its column"
done
grep -q "column &apos;token_type_ids" "$d/html"
ok $? "HTML: the finding names its column"

# ---- a composite config: the text model's tables, the stale top level said
run --json --model "$c/composite" "$c/gpt2.parquet"
[ "$(jqf '[.files[0].lengths.bad[] | select(.kind == "too-long") | .sample] | join(",")')" = 2,3 ]
ok $? "composite: rows past text_config.n_positions 16, not the top level's 1024"
[ "$(jqf '[.files[0].findings[] | select(.code == "class-count-mismatch") | .severity] | join(",")')" \
  = warning ]
ok $? "composite: the stale top-level n_positions is a warning"
expect_json '[.files[0].findings[] | select(.code == "class-count-mismatch") | .message | test("n_positions 1024 but text_config.n_positions 16")] | .[0]' \
    true "... naming both values"

# ---- token data is worded as such: token ids, the vocabulary, --vocab-size
run --model "$c/gpt2" "$c/gpt2.parquet"
expect_out "vocabulary: 50 token ids, from model config.json vocab_size" \
    "gpt2: N is the vocabulary's, said so"
! grep -q "classes\|pass -n" "$d/out"
ok $? "gpt2: no classes, no -n"

# ---- choosing the columns
run --json -c labels --model "$c/bert" "$c/bert.parquet"
[ "$(jqf '.files[0] | has("columns")')" = false ]
ok $? "-c alone keeps the one-column audit"
run --json --columns=input_ids --model "$c/bert" "$c/bert.parquet"
[ "$(jqf '[.files[0].columns[].name] | join(",")')" = input_ids ]
ok $? "--columns=input_ids checks that column only"
run --json --vocab-size 50 "$c/bert.parquet"
[ "$(jqf '[.files[0].columns[] | select(.name == "input_ids") | .bad[].sample] | join(",")')" = 4,5 ]
ok $? "--vocab-size checks input_ids, not only labels"
run --columns=input_ids,x=bogus "$c/bert.parquet"
expect_status 2 "--columns with an unknown role"
expect_err "'x=bogus' is not a column whose table labelaudit knows" "... says which roles there are"
finish
