#!/bin/sh
# shards.sh - sharded token datasets: MosaicML streaming (--format=mds) and
# LitData optimize() output (--format=litdata). The fixtures are
# tests/gen/gen_shards.py's, made by MDSWriter and litdata.optimize; each
# NAME[.COLUMN].truth beside them is what streaming.StreamingDataset and
# litdata.StreamingDataset read back, sample by sample: the count, the range
# and every id outside [0, 1000) with its sample and position, which the
# report must give exactly. The broken folders are tests/malformed's.
. "$srcdir/tests/setup.sh"
s="$data/shards"

# what the JSON report says, in the truth's words
report_lines() {
    jq -r '.files[0] | "samples \(.samples)", "count \(.count)", "ignored \(.ignored)",
        (if .min != null then "range \(.min) \(.max)" else empty end),
        (.bad[]? | "bad \(.sample) \(.position) \(.value)")' "$d/out"
}

# against FORMAT FOLDER TRUTH [-c COLUMN]: the report matches the library's reading
against() {
    fmt=$1 dir=$2 truth=$3
    shift 3
    run --json -n 1000 --max-report 100000 --format="$fmt" "$@" "$s/$dir"
    report_lines >"$d/got"
    if cmp -s "$d/got" "$s/$truth"; then
        ok 0 "$dir $*: samples, count, range and every bad id as the library read them"
    else
        diff "$s/$truth" "$d/got" | head -5 | sed 's/^/# /'
        ok 1 "$dir $*: samples, count, range and every bad id as the library read them"
    fi
    # the folder is found to be FORMAT by its index.json and shard names
    cp "$d/out" "$d/with-format"
    run --json -n 1000 --max-report 100000 "$@" "$s/$dir"
    cmp -s "$d/with-format" "$d/out"
    ok $? "$dir $*: the same report without --format (found to be $fmt)"
}

echo "# --- MDS: ndarray of every dtype, int, pkl; shards of different sizes"
against mds mds-dtypes mds-dtypes.truth -c input_ids
against mds mds-dtypes mds-dtypes.label.truth
against mds mds-dtypes mds-dtypes.label.truth -c label
against mds mds-dtypes mds-dtypes.labels.truth -c labels   # -100: ignored
run --json -n 1000 --format=mds "$s/mds-dtypes"
expect_json '[.files[0].column, .files[0].mds.encoding, .files[0].mds.shards > 1] | join(" ")' \
    "label int true" "the default column is label (int), over several shards"
run -n 1000 --format=mds -c meta "$s/mds-dtypes"
expect_status 3 "a str column is refused"
expect_err "column 'meta' is str-encoded: not labels" "by name"
run -n 1000 --format=mds -c nope "$s/mds-dtypes"
expect_status 3 "a column that is not there"
expect_err "no column 'nope' (the columns: input_ids, label, labels, meta)" "the message lists the columns"
against mds mds-dtypes mds-dtypes.truth -c 1   # 1-based, as a CSV column's number
run -n 1000 --format=mds -c 5 "$s/mds-dtypes"
expect_status 3 "-c 5 of four columns"
run -n 1000 --format=mds -c input_ids "$s/mds-dtypes/index.json"
expect_status 1 "index.json itself names the folder"

echo "# --- MDS: zstd and gzip shards (only the compressed files, as a remote holds them)"
against mds mds-zstd mds-zstd.truth -c tokens
against mds mds-gz mds-gz.truth -c tokens
run --json -n 3 --format=mds "$s/mds-zstd"
expect_json '[.files[0].column, .files[0].dtype] | join(" ")' "y int8" "the default column: y, int8"

echo "# --- LitData: the TokensLoader (uint16, int64, empty items), whole-chunk zstd (chunk-*.zstd.bin)"
against litdata litdata-u16 litdata-u16.truth
against litdata litdata-i64 litdata-i64.truth
against litdata litdata-zstd litdata-zstd.truth
run --json -n 1000 --format=litdata "$s/litdata-u16"
expect_json '[.files[0].dtype, .files[0].litdata.item_loader, .files[0].litdata.items] | join(" ")' \
    "uint16 TokensLoader 45" "dtype from no_header_numpy's index, 45 items"

echo "# --- LitData: --seq-len L: the TokensLoader(block_size=L)'s blocks, dim // L a chunk"
against litdata litdata-i64 litdata-i64.seq8.truth --seq-len 8
against litdata litdata-i64 litdata-i64.seq30.truth --seq-len 30   # chunk 0: 24 ids, no block
run --json -n 1000 --seq-len 30 --format=litdata "$s/litdata-i64"
expect_json '[.files[0].litdata.blocks, .files[0].litdata.ids_after_blocks, .files[0].seq_len] | join(" ")' \
    "13 52 30" "13 blocks, the 52 ids after each chunk's last block left out"
run -n 1000 -b 6 --fail-on=warning --seq-len 30 --format=litdata "$s/litdata-i64"
expect_out "tiny-last-batch" "13 blocks in batches of 6 end in a batch of 1 (45 items would end in 3)"
run -n 1000 --seq-len 30 --format=litdata "$s/litdata-i64"
expect_out "chunk-0-3.bin block [0-9]* position [0-9]*: 1000" "a bad id is named by its chunk, block and position"
cp -R "$s/litdata-i64" "$d/dim" && sed 's/"dim": 349/"dim": 350/' "$s/litdata-i64/index.json" >"$d/dim/index.json"
run -n 1000 --seq-len 30 --format=litdata "$d/dim"
expect_status 3 "a chunk of other than index.json's dim ids: refused (litdata cuts blocks by dim)"
expect_err "chunk-0-3.bin: the chunk holds 349 ids, index.json's dim says 350" "names the chunk, both counts"

echo "# --- LitData: the PyTreeLoader, keys of a dict item"
against litdata litdata-tree litdata-tree.label.truth
against litdata litdata-tree litdata-tree.ids.truth -c ids
against litdata litdata-tree litdata-tree.mask.truth -c mask
against litdata litdata-tree litdata-tree.ids.truth -c 2
run -n 1000 --format=litdata -c mask "$s/litdata-tree"
expect_out "value 1005, [^:]*: .*chunk-0-0.bin sample 5 position 5" "the place: chunk, its sample, the position"

echo "# --- the samples"
run --json -n 1000 --format=mds -c tokens "$srcdir/samples/mds-tokens"
expect_status 1 "samples/mds-tokens: an id past V"
expect_json '[.files[0].bad[] | "\(.sample):\(.position)=\(.value)"] | join(",")' "17:3=1000" \
    "sample 17, position 3: 1000"
run --json -n 1000 --format=litdata "$srcdir/samples/litdata-tokens"
expect_status 1 "samples/litdata-tokens: an id past V"
expect_json '[.files[0].bad[] | "\(.sample):\(.position)=\(.value)"] | join(",")' "11:0=1000" \
    "item 11, position 0: 1000"

echo "# --- MDS json columns typed as torch.tensor(json.loads(...)) types them (tests/data/lib-reads)"
# mds-json.truth: [1, 2.0] float, [true, 3] int64, [true, false] bool, [4, 5] int64
run --json -n 6 --format=mds "$data/lib-reads/mds-json"
expect_status 0 "[true, 3] is read (torch: int64), not refused"
expect_json '[.files[0].dtype, .files[0].count, .files[0].min, .files[0].max] | join(" ")' \
    "float64 8 0 5" "[1, 2.0] is a float sample (json.loads gives 2.0 a float), true and false 1 and 0"

echo "# --- LitData's defaults in 0.2.7x (tests/data/lib-reads): a Python list leaf is data format"
echo "# json, and optimize(compression=\"zstd\") frames the items inside the .bin (level batch)"
s="$data/lib-reads"
for f in litdata-json litdata-batch; do
    for k in label tokens mixed flags scores; do
        against litdata $f $f.$k.truth -c $k
    done
done
run -n 1000 -c tokens "$s/litdata-batch"
expect_out "leaf 1 (json, PyTreeLoader), 3 chunks, 700 items" "litdata-batch: the json leaf of framed chunks named"
# a framed chunk whose frame is cut short, or whose zstd bytes are damaged: exit 3 naming it
cp -R "$s/litdata-batch" "$d/cut" && head -c 3000 "$s/litdata-batch/chunk-0-0.bin" >"$d/cut/chunk-0-0.bin"
run -n 1000 -c tokens "$d/cut"
expect_status 3 "a framed chunk cut short"
expect_err "chunk-0-0.bin byte 1228: zstd frame 0 (256 items from item 0, at byte 1276, 3926 bytes) runs past the file.s end (truncated chunk)" \
    "... names the chunk, the frame and its byte"
cp -R "$s/litdata-batch" "$d/bad" &&
    printf 'XXXXXXXX' | dd of="$d/bad/chunk-0-1.bin" bs=1 seek=1276 conv=notrunc 2>/dev/null
run -n 1000 -c tokens "$d/bad"
expect_status 3 "a damaged zstd frame"
expect_err "chunk-0-1.bin byte 1276: zstd frame 0: Unknown frame descriptor" \
    "... names the chunk, the frame and its byte"
s="$data/shards"

echo "# --- which folders are found to be shards without --format"
mkdir "$d/csvs" && cp "$s/mds-zstd/index.json" "$d/csvs/" && printf 'label\n1\n' >"$d/csvs/a.csv"
run -n 3 "$d/csvs"
expect_out "dataset of 1 file" "an index.json beside no shards: a folder of files, each read by its own format"
cp -R "$s/mds-zstd" "$d/both" && cp "$s/litdata-tree/chunk-0-0.bin" "$d/both/"
run -n 3 "$d/both"
expect_status 3 "an index.json beside both kinds of shards: no guess, the files each refused"
run -n 3 --format=mds "$d/both"
expect_status 0 "... and --format=mds reads it as MDS"

echo "# --- the wrong --format for a folder"
run --format=litdata -n 3 "$s/mds-zstd"
expect_status 3 "an MDS folder read as litdata"
expect_err "no \"config\" object (not a LitData index)" "says which index it is not"
finish
