#!/bin/sh
# tokens.sh - language-model token datasets: --vocab-size (ids against the
# embedding's rows, its wording, no per-class findings), --seq-len blocks,
# dtype-too-narrow, all-ignored, nanoGPT memmaps read in place as raw, and
# Megatron indexed datasets (.idx + .bin). The fixtures and their truth are
# tests/gen/gen_tokens.py's: np.memmap, megatron-core's IndexedDatasetBuilder and
# IndexedDataset, numpy.
. "$srcdir/tests/setup.sh"
t="$data/tokens"
V=50304

echo "# --- nanoGPT's train.bin: raw uint16, read in place"
run --json --format=raw --dtype uint16 --vocab-size $V "$t/train.bin"
expect_status 1 "an id past V: an error"
expect_json '[.files[0].bad[] | "\(.index)\t\(.value)"] | join("\n")' "$(cat "$t/train.truth")" \
    "the bad ids are np.memmap's (a >= V).nonzero()"
expect_json '[.config.vocab_size, .config.num_classes, .files[0].count, .files[0].samples] | tojson' \
    "[$V,$V,4096,4096]" "vocab_size is the class count; one id, one sample"
expect_json '[.files[0].histogram, .files[0].missing_classes, .files[0].class_weights] | tojson' \
    "[null,null,null]" "no histogram, missing classes or class weights over the vocabulary"
expect_json '[.files[0].findings[].code] | join(" ")' "out-of-range" "no per-class finding (int-labels-dtype, missing-classes)"
expect_json '.files[0].findings[0].prevents | test("indexSelectLargeIndex: .* Assertion `srcIndex < srcSelectDimSize` failed \\(on the CPU: IndexError: index out of range in self\\)")' \
    true "prevents: the embedding's assert, in its words"
expect_json '.files[0].findings[0].message | startswith("1 token id outside the vocabulary [0, '$V') (0 below 0, 1 at or above '$V')")' \
    true "the message counts token ids"
run -v --format=raw --dtype uint16 --vocab-size $V -j 2 "$t/train.bin"
expect_err "read in place" "-v: the memmap is read in place, not copied through a reader thread"
run --format=raw --dtype uint16 --vocab-size 65536 "$t/train.bin"
expect_status 0 "V = 65536 fits uint16"
run --json --format=raw --dtype uint16 --vocab-size 65537 "$t/train.bin"
expect_status 1 "V = 65537 does not fit uint16"
expect_json '[.files[0].findings[].code] | join(" ")' "dtype-too-narrow" "dtype-too-narrow"
expect_json '.files[0].findings[0].message | test("uint16 holds ids up to 65535, but the vocabulary has 65537 ids")' \
    true "it names the dtype's limit and V"

"$LABELAUDIT" --json --format=raw --dtype uint16 --vocab-size $V "$t/train.bin" >"$d/shard.json"
run --json --merge "$d/shard.json" "$d/shard.json"
expect_json '[.config.vocab_size, .files[0].invalid.above, (.files[0].findings[0].message | startswith("2 token ids outside the vocabulary"))] | tojson' \
    "[$V,2,true]" "--merge of shard reports made with --vocab-size keeps it and its wording"

echo "# --- dtype-too-narrow at each width's edge"
printf '\001\002' >"$d/two.bin"
for c in "int8 128 129" "uint8 256 257" "int16 32768 32769" "uint16 65536 65537"; do
    set -- $c
    run --json --format=raw --dtype "$1" --vocab-size "$2" "$d/two.bin"
    expect_json '[.files[0].findings[].code] | join(" ")' "" "$1 with V = $2: fits"
    run --json --format=raw --dtype "$1" --vocab-size "$3" "$d/two.bin"
    expect_json '[.files[0].findings[].code] | join(" ")' "dtype-too-narrow" "$1 with V = $3: too narrow"
done
run --json --format=raw --dtype uint8 -n 300 "$d/two.bin"
expect_json '[.files[0].findings[] | select(.code == "dtype-too-narrow") | .message] | length' 1 \
    "-n N beyond the dtype too (the class ids past 255 cannot be stored)"

echo "# --- -n and --vocab-size together; --loss=bce"
run -n $V --vocab-size $V --format=raw --dtype uint16 "$t/train.bin"
expect_status 1 "-n V and --vocab-size V agree: audited"
run -n 10 --vocab-size $V "$t/train.bin"
expect_status 2 "-n 10 and --vocab-size $V disagree: a usage error"
expect_err "--num-classes=10 and --vocab-size=$V disagree" "the message names both"
run --loss=bce --vocab-size $V "$t/train.bin"
expect_status 2 "--vocab-size with --loss=bce: a usage error"
run --vocab-size 0 "$t/train.bin"
expect_status 2 "--vocab-size 0: a usage error"

echo "# --- --seq-len: training blocks"
run --json --format=raw --dtype uint16 --vocab-size $V --seq-len 1000 "$t/train.bin"
expect_json '[.files[0].samples, .files[0].seq_len, .files[0].last_block, .config.seq_len, .files[0].bad[0].sample] | tojson' \
    "[5,1000,96,1000,1]" "4096 ids in blocks of 1000: 5 samples, the last of 96; index 1234 is in block 1"
run --json --format=raw --dtype uint16 --vocab-size $V --seq-len 1024 -b 2 "$t/train.bin"
expect_json '[.files[0].samples, .files[0].last_block, .files[0].batching.batches_per_rank] | tojson' \
    "[4,1024,2]" "4096 = 4 full blocks; -b 2 batches the blocks"

run --format=raw --dtype uint16 --vocab-size $V --seq-len 1000 "$t/train.bin"
expect_out "4096 token ids in 5 blocks of 1000 (the last of 96)" "the text names the blocks, as token ids"

echo "# --- all-ignored: samples whose every target is the ignore index"
run --json -n 50 "$t/labels.npy"
expect_status 0 "labels (12, 16) with rows of -100 only: a warning"
expect_json '[.files[0].all_ignored.samples[]] | join("\n")' "$(cat "$t/labels.truth")" \
    "the rows numpy finds all -100"
expect_json '[.files[0].findings[] | select(.code == "all-ignored") | .severity] | join(" ")' warning \
    "all-ignored is a warning"
expect_json '[.files[0].findings[] | select(.code == "all-ignored") | .message | test("^3 samples of 12 hold only the ignore index -100")] | tojson' \
    "[true]" "its message counts them"
run --json -n 50 --concat "$t/labels.npy" "$t/labels.npy"
expect_json '[.files[0].all_ignored.samples[]] | join(" ")' \
    "$(awk '{ a = a $1 " "; b = b ($1 + 12) " " } END { print a b }' "$t/labels.truth" | sed 's/ $//')" \
    "--concat: each file's rows, numbered in the dataset"
run --json --format=raw --dtype int32 --vocab-size 50 --seq-len 64 --ignore-index -100 "$t/ignored.bin"
expect_json '[.files[0].all_ignored.samples[]] | join("\n")' "$(cat "$t/ignored.truth")" \
    "--seq-len blocks of -100 only (--ignore-index given: the stream holds labels)"
expect_json '[.files[0].ignored, .files[0].all_ignored.count] | tojson' "[129,2]" "129 ignored ids, 2 empty blocks"
run --json --format=raw --dtype int32 --vocab-size 50 --seq-len 64 "$t/ignored.bin"
expect_json '[.files[0].ignored, .files[0].invalid.below, .files[0].all_ignored] | tojson' "[0,129,null]" \
    "token ids without --ignore-index: -100 is an id like any other, below 0"
expect_json '[.files[0].findings[] | select(.code == "ignore-like-value") | .message | test("-100 is the loss.s ignore index, which the embedding does not skip")] | tojson' \
    "[true]" "ignore-like-value: -100 in ids is the loss's index, not the embedding's"
# issue 41 item 14: 65535 and 32767 far above N are "no label" values too (the man page's list)
printf '\001\000\002\000\377\377\377\377' >"$d/pad65535.bin"
run --json --format=raw --dtype uint16 --vocab-size 50304 "$d/pad65535.bin"
expect_json '[.files[0].findings[] | select(.code == "ignore-like-value") | .message | split("; ")[0]] | join("")' \
    "2 of the 2 out-of-range values are 65535" "uint16 65535 pads, 15231 past the vocabulary: ignore-like-value"
cp "$d/out" "$d/pad65535.json"
run --json --merge "$d/pad65535.json" "$d/pad65535.json"
expect_json '[.files[0].findings[] | select(.code == "ignore-like-value") | .message | split("; ")[0]] | join("")' \
    "4 of the 4 out-of-range values are 65535" "--merge of the reports: the same"
printf '\001\000\377\177\377\177\377\177\100\234' >"$d/pad32767.bin"
run --json -j2 --format=raw --dtype uint16 --vocab-size 1000 "$d/pad32767.bin"
expect_json '[.files[0].findings[] | select(.code == "ignore-like-value") | .message | split("; ")[0]] | join("")' \
    "3 of the 4 out-of-range values are 32767" "32767 (int16's max) beside a stray 40000: ignore-like-value"
run --json --format=raw --dtype int32 -n 50 "$t/ignored.bin"
expect_json '.files[0].all_ignored' null "one label a sample: nothing to count"
run --json --format=raw --dtype uint16 --vocab-size $V --seq-len 64 --ignore-index -100 "$t/train.bin"
expect_json '.files[0].all_ignored' null "uint16 cannot hold -100: no block is all-ignored"

echo "# --- Megatron: the .idx, the .bin or the prefix"
for arg in "$t/doc.idx" "--format=megatron $t/doc.bin" "--format=megatron $t/doc"; do
    # shellcheck disable=SC2086
    run --json --vocab-size $V --max-report 1000 $arg
    expect_status 1 "megatron $arg"
    expect_json '[.files[0].format, .files[0].samples, .files[0].count, .files[0].megatron.documents] | tojson' \
        '["megatron",7,24,4]' "$arg: 7 sequences = 7 samples, 24 tokens, 4 documents"
done
expect_json '[.files[0].bad[] | "\(.index)\t\(.sample)\t\(.document)\t\(.at[0])\t\(.value)"] | join("\n")' \
    "$(grep -v '^#' "$t/doc.truth")" "the bad document: sequence, document, position as IndexedDataset reads them"
run --vocab-size $V "$t/doc.idx"
expect_out "value 50311, [^:]*: index 18, sequence 4 (document 2) token 4" "the text names sequence, document and token"
cp "$t/doc.idx" "$d/noext.idx"
run --json --vocab-size $V --format=megatron "$d/noext.idx"
expect_status 3 "an .idx without its .bin: unreadable"
expect_err "noext.bin: No such file" "the message names the missing .bin"
run --vocab-size $V - <"$t/doc.idx"
expect_status 3 "standard input: a Megatron dataset is two files"
expect_err "not from standard input" "the message says why"

run --vocab-size $V "$t/doc.bin"
expect_status 3 "the .bin of a Megatron pair without --format: unreadable"
expect_err "the tokens of a Megatron dataset (its .idx is beside it): --format=megatron" \
    "the message says what it is and how to read it"

echo "# --- Megatron: seeded random datasets against IndexedDataset"
for p in rand-uint16 rand-int32 rand-int64 rand-uint8; do
    run --json --vocab-size $V --max-report 100000 "$t/$p.idx"
    head -1 "$t/$p.truth" | sed 's/# \([0-9]*\) sequences, \([0-9]*\) documents, \([0-9]*\) tokens/\1 \2 \3/' >"$d/want"
    expect_json '"\(.files[0].samples) \(.files[0].megatron.documents) \(.files[0].count)"' "$(cat "$d/want")" \
        "$p: sequences, documents and tokens"
    expect_json '[.files[0].bad[] | "\(.index)\t\(.sample)\t\(.document)\t\(.at[0])\t\(.value)"] | join("\n")' \
        "$(grep -v '^#' "$t/$p.truth")" "$p: every bad id where IndexedDataset has it"
done
run --json --vocab-size $V "$t/rand-uint8.idx"
expect_json '[.files[0].findings[].code] | join(" ")' "dtype-too-narrow" "uint8 tokens and V = $V: too narrow"
run --json --vocab-size $V --ignore-index -100 --max-report 100000 "$t/rand-int32.idx"
expect_json '[.files[0].bad[] | select(.value == -100)] | length' 0 "--ignore-index -100 given: -100 is skipped"
run --json -n $V "$t/rand-int32.idx"
expect_json '[.files[0].histogram, ([.files[0].findings[].code] | index("missing-classes"))] | tojson' \
    "[null,null]" "megatron holds tokens: no per-class findings without --vocab-size either"

finish
