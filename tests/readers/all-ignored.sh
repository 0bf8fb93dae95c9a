#!/bin/sh
# all-ignored.sh - the all-ignored warning for every reader whose samples are
# lists: Parquet, a save_to_disk folder, JSON Lines, MDS ndarray columns,
# LitData dict items and TokensLoader items (and its --seq-len blocks). The
# fixtures are tests/gen/gen_all_ignored.py's, written by pyarrow, datasets,
# pandas, MDSWriter and litdata.optimize; each NAME.truth is what the library
# read back: the samples, and those whose every label is -100 (a batch of
# only such samples has a NaN mean loss). A scalar column's -100 is one
# ignored sample, never all-ignored.
. "$srcdir/tests/setup.sh"
a="$data/all-ignored"

# against NAME TRUTH [ARGS]: the samples and the all-ignored ones as the library read them
against() {
    name=$1 truth=$2
    shift 2
    run --json -n 5 "$@" "$a/$name"
    jq -r '.files[0] | "samples \(.samples)", "all_ignored \([.all_ignored.samples[]?] | join(" "))"' \
        "$d/out" >"$d/got"
    if cmp -s "$d/got" "$a/$truth"; then
        ok 0 "$name $*: the all-ignored samples the library read"
    else
        diff "$a/$truth" "$d/got" | sed 's/^/# /'
        ok 1 "$name $*: the all-ignored samples the library read"
    fi
}

against rows.parquet rows.parquet.truth -c labels
against rows-hf rows-hf.truth -c labels
against rows.jsonl rows.jsonl.truth -c labels
against rows-mds rows-mds.truth -c labels
against rows-litdata rows-litdata.truth -c labels
against rows-tokens rows-tokens.truth
against rows-tokens rows-tokens.seq2.truth --seq-len 2
run -n 5 -c labels "$a/rows.parquet"
expect_out "warning \[all-ignored\]: 4 samples of 9 hold only the ignore index -100" \
    "the text names the count (an empty list is not one of them)"
expect_out "(first: 1, 3, 5, 7)" "and the samples"

for f in rows.parquet rows-hf rows.jsonl rows-mds rows-litdata; do
    run --json -n 5 -c label "$a/$f"
    expect_json '[.files[0].ignored, (.files[0].all_ignored == null)] | join(" ")' "2 true" \
        "$f -c label: a scalar's -100 is an ignored sample, not all-ignored"
done
run --json -n 5 -c labels --ignore-index=-1 "$a/rows.jsonl"
expect_json '.files[0].all_ignored == null' "true" "another ignore index: -100 is a bad value, not ignored"
finish
