#!/bin/sh
# token-wording.sh - a report of token data speaks of token ids, the
# vocabulary and --vocab-size, never of classes and -n (issue: "Token data
# wording"): Megatron's and LitData's TokensLoader streams are ids by their
# format's own say, --vocab-size makes any file's values ids, and a model's
# vocab_size makes its N a vocabulary.
. "$srcdir/tests/setup.sh"

run --format megatron "$data/tokens/doc.idx"
expect_out "megatron, int32, 24 token ids, range" "megatron: the header counts token ids"
expect_out "error \[out-of-range\]: 1 negative token id" "megatron: a negative id is a token id"
expect_out "vocabulary: unknown; pass --vocab-size" "megatron: no N: asks for --vocab-size"
! grep -q "classes\|pass -n\|[0-9] labels" "$d/out"
ok $? "megatron: no classes, no -n, no labels"

run --json --format megatron "$data/tokens/doc.idx"
expect_json '[.files[0].findings[] | select(.code == "out-of-range") | .prevents | test("srcIndex < srcSelectDimSize")] | .[0]' \
    true "megatron: a negative id crashes the embedding, not the loss"

run "$srcdir/samples/litdata-tokens"
expect_out "litdata, int32, 586 token ids" "litdata TokensLoader: the header counts token ids"
! grep -q "missing-classes\|int-labels-dtype\|classes\|pass -n" "$d/out"
ok $? "litdata TokensLoader: no class findings, no -n"
expect_status 0 "litdata TokensLoader: ok"

run --vocab-size 100 "$srcdir/samples/lm-tokens.txt"
expect_out "text, int64, 8 token ids" "--vocab-size: the values are token ids"
expect_out "1 token id outside the vocabulary \[0, 100)" "--vocab-size: outside the vocabulary"
! grep -q "classes\|pass -n" "$d/out"
ok $? "--vocab-size: no classes, no -n"

run --model "$srcdir/samples/lm-added" "$srcdir/samples/lm-tokens.txt"
expect_out "vocabulary: 100 token ids, from model config.json vocab_size" \
    "--model of a language model: N is the vocabulary's"
expect_out "id 101 (past the vocabulary: the model's embedding has 100 rows): 1 time" \
    "... and the id past it is an id, not a class"

run --junit="$d/junit" --vocab-size 100 "$srcdir/samples/lm-tokens.txt"
! grep -q "pass -n" "$d/junit"
ok $? "JUnit: no -n for token data"

# class labels keep their words
run "$srcdir/samples/mds-tokens"
expect_out "40 labels" "mds of a class label: labels"
expect_out "pass -n 5" "... and -n"
finish
