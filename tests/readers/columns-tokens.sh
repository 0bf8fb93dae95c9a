#!/bin/sh
# columns-tokens.sh - token streams held to the model's position table (SPEC
# "Every column the model indexes": --seq-len blocks, Megatron sequences, MDS
# and LitData samples). The models are tests/data/columns/gpt2 (a learned
# table of 16 positions: past it the forward pass raises) and llama (rotary,
# trained to 16: past it a warning). The fixtures and their truth are
# tests/gen/gen_columns_tokens.py's (numpy's memmap, streaming's MDSWriter and
# StreamingDataset) and gen_tokens.py's, gen_shards.py's (megatron-core's
# IndexedDatasetBuilder, litdata's optimize()).
. "$srcdir/tests/setup.sh"
t="$data/columns-tokens"
gpt2="$data/columns/gpt2"
llama="$data/columns/llama"

# the seq-too-long findings' severities, joined
long() { jqf '[.files[0].findings[]? | select(.code == "seq-too-long") | .severity] | join(",")'; }
# "long SAMPLE LENGTH" of each sample the JSON lists too long
long_list() { jqf '.files[0].lengths.bad[]? | select(.kind == "too-long") | "long \(.sample) \(.length)"'; }

# ---- --seq-len on a flat stream: a block may be fed whole or shifted into x and y
raw="--format=raw --dtype=uint16"
run --json $raw --seq-len 32 --model "$gpt2" "$t/stream.bin"
[ "$(long)" = error ]
ok $? "raw --seq-len 32 past gpt2's 16 positions: an error"
expect_status 1 "raw --seq-len 32, gpt2: exit 1"
expect_json '.files[0].lengths | [.limit, .block, .too_long] | tojson' '[16,32,3]' \
    "raw --seq-len 32: the limit, the block, the 3 full blocks (the last of 4 ids fits)"
jqf '.files[0].findings[] | select(.code == "seq-too-long") | .message' | grep -q 'n_positions 16'
ok $? "raw: the finding names the limit and why (n_positions)"
jqf '.files[0].findings[] | select(.code == "seq-too-long") | .prevents' | grep -q 'index out of range'
ok $? "raw: ... and the IndexError it prevents"
run --json $raw --seq-len 17 --model "$gpt2" "$t/stream.bin"
[ "$(long)" = warning ]
ok $? "raw --seq-len 17 (limit + 1): a warning, within the table when shifted into x and y"
expect_status 0 "raw --seq-len 17: exit 0"
run --json $raw --seq-len 16 --model "$gpt2" "$t/stream.bin"
[ -z "$(long)" ]
ok $? "raw --seq-len 16: within the table, no finding"
expect_status 0 "raw --seq-len 16: exit 0"
run --json $raw --seq-len 32 --model "$llama" "$t/stream.bin"
[ "$(long)" = warning ]
ok $? "raw --seq-len 32 past llama's rotary 16: a warning"
expect_status 0 "raw --seq-len 32, llama: exit 0"
run $raw --seq-len 32 --model "$gpt2" "$t/stream.bin"
expect_out 'seq-too-long.*--seq-len 32' "text: the finding names --seq-len"
run --json $raw --seq-len 32 --vocab-size 50 "$t/stream.bin"
[ -z "$(long)" ]
ok $? "--vocab-size alone: no position table known, no length finding"

# ---- Megatron: each sequence, from the .idx; --seq-len: the training samples
mega="$data/tokens/rand-int32.idx"
run --json --model "$gpt2" "$mega"
[ "$(long)" = warning ]
ok $? "megatron: sequences past the table warn (GPTDataset cuts samples across them)"
long_list >"$d/got"
cmp -s "$d/got" "$t/megatron.truth"
ok $? "megatron: the sequences named are those the .idx says are longer than 16"
cmp -s "$d/got" "$t/megatron.truth" || diff "$t/megatron.truth" "$d/got" | sed 's/^/# /' | head
run --model "$gpt2" "$mega"
expect_out 'sequences 2, 3, 5, 6, 7 and 6 more' "megatron text: the sequences by number"
run --json --model "$gpt2" --seq-len 17 "$mega"
[ "$(long)" = error ]
ok $? "megatron --seq-len 17 (its --seq-length: 17 positions): an error"
expect_status 1 "megatron --seq-len 17: exit 1"
run --json --model "$gpt2" --seq-len 16 "$mega"
[ -z "$(long)" ]
ok $? "megatron --seq-len 16: the samples fit, the long documents are no finding"

# ---- MDS: the input_ids column beside the label column, sample by sample
run --json --model "$gpt2" "$t/mds-lm"
[ "$(long)" = error ]
ok $? "mds: samples of input_ids past gpt2's table: an error"
expect_status 1 "mds: exit 1"
long_list >"$d/got"
cmp -s "$d/got" "$t/mds-lm.truth"
ok $? "mds: the samples named are those streaming reads longer than 16"
cmp -s "$d/got" "$t/mds-lm.truth" || diff "$t/mds-lm.truth" "$d/got" | sed 's/^/# /' | head
expect_json '[.files[0].findings[] | select(.code == "seq-too-long") | .column] | join(",")' \
    input_ids "mds: the finding names its column"
run --json --model "$llama" "$t/mds-lm"
[ "$(long)" = warning ]
ok $? "mds, llama: a warning"
run --json --model "$gpt2" "$t/mds-bad"
expect_status 3 "mds: an input_ids ndarray shorter than its shape: unreadable"
expect_err "$(cut -d' ' -f1-3 "$t/mds-bad.where") (byte [0-9]*): the ndarray" \
    "... naming its shard, sample and byte"

# ---- MDS: the plan's columns beside the label column (gen_shards.py's mds-dtypes:
# input_ids an ndarray, labels pkl), each against its table
run --json --model "$gpt2" "$data/shards/mds-dtypes"
expect_json '[.files[0].columns[] | .name] | join(",")' input_ids "mds: input_ids checked beside the label column"
expect_json '.files[0].columns[0].count' \
    "$(awk '$1 == "count" { print $2 }' "$data/shards/mds-dtypes.truth")" \
    "mds: ... every id streaming reads (its count)"
expect_json '[.files[0].findings[] | select(.code == "out-of-range") | .column] | join(",")' \
    ",input_ids" "mds: the ids past vocab_size 50 are their column's finding"
run --model "$gpt2" "$data/shards/mds-dtypes"
expect_out "column 'labels' is pkl: not checked" "mds: a pkl column is named as not checked"

# ---- LitData TokensLoader: --seq-len L is litgpt's max_seq_length + 1 (L - 1 positions)
lit="$data/shards/litdata-i64"
run --json --model "$gpt2" --seq-len 17 "$lit"
[ -z "$(long)" ]
ok $? "litdata --seq-len 17: 16 positions shifted into x and y, within the table"
run --json --model "$gpt2" --seq-len 18 "$lit"
[ "$(long)" = error ]
ok $? "litdata --seq-len 18: 17 positions, an error"
[ "$(jqf '[.files[0].findings[] | select(.code == "seq-too-long")] | length')" = 1 ]
ok $? "litdata: one finding (the reader's blocks, not audit.c's again)"
run --json --model "$gpt2" "$lit"
[ "$(long)" = warning ]
ok $? "litdata without --seq-len: long items only warn (TokensLoader cuts across them)"

finish
