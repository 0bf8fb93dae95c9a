#!/bin/sh
# arrow-shards.sh - `datasets` folders and Parquet/Arrow files whose parts
# disagree, each made by pyarrow and `datasets` (tests/gen/gen_arrow_shards.py,
# which checks what those libraries do with them): shards of two label types,
# a load_dataset cache folder of splits, dictionaries that differ per row
# group, Hub-layout Parquet shards of a ClassLabel, a ClassLabel whose names
# and num_classes disagree. Skipped without Arrow (arrow.sh checks the refusals).
. "$srcdir/tests/setup.sh"
a="$data/arrow-shards"
if ! "$LABELAUDIT" --version | grep -q '^Formats: [^(]* parquet'; then
    echo "1..0 # SKIP built without Apache Arrow"
    exit 0
fi

# ---- save_to_disk shards of two label types: refused by name, as load_from_disk does
for f in dtype-32-64 dtype-64-32; do
    run -n 5 "$a/$f"
    expect_status 3 "$f: shards of two label types"
    case $f in
    dtype-32-64) want="data-00001-of-00002.arrow: column 'label' is int64 where data-00000-of-00002.arrow has int32" ;;
    *) want="data-00001-of-00002.arrow: column 'label' is int32 where data-00000-of-00002.arrow has int64" ;;
    esac
    expect_err "$want" "$f: the shard and both types named"
done

# ---- a ClassLabel of 3 names and num_classes 2: refused, naming both numbers
run "$a/cl-mismatch.parquet"
expect_status 3 "names and num_classes disagree in the schema's metadata"
expect_err "cl-mismatch.parquet: the schema's huggingface metadata: ClassLabel 'label' has 3 names but num_classes 2" \
    "the file, the place and both numbers named"
run "$a/cl-mismatch-saved"
expect_status 3 "names and num_classes disagree in dataset_info.json"
expect_err "cl-mismatch-saved: dataset_info.json: ClassLabel 'label' has 3 names but num_classes 2" \
    "dataset_info.json and both numbers named"

# ---- dictionaries of names per row group / replaced per batch: one name, one
# class, as pandas' unified categories number them (dict-truth.tsv: its codes)
tab=$(printf '\t')
while IFS="$tab" read -r name codes; do
    hist=$(echo "$codes" | tr , '\n' | awk '{c[$1]++} END {printf "%d,%d,%d", c[0], c[1], c[2]}')
    twos=$(echo "$codes" | tr , '\n' | awk '$1 == 2 {printf "%s%d", s, NR - 1; s=","}')
    run --json -n 3 "$a/$name"
    expect_json '.files[0].histogram | map(tostring) | join(",")' "$hist" "$name: the histogram of pandas' codes"
    run --json -n 2 "$a/$name"
    expect_json '[.files[0].bad[].index] | map(tostring) | join(",")' "$twos" "$name: -n 2: class 2 where pandas has it"
done <"$a/dict-truth.tsv"
run -n 2 "$a/dict-rowgroups.parquet"
expect_status 1 "bird, in its own row group's dictionary, is class 2: -n 2 fails"

# ---- Hub-layout Parquet shards of one ClassLabel: the dataset's N and names,
# and the counts worded as they are (1 below, 2 above)
run --json "$a/hub"
expect_json '.files[0].num_classes' 3 "hub shards: N from their ClassLabel"
expect_json '.files[0].num_classes_from' "Arrow schema metadata ClassLabel" "hub shards: where N came from"
expect_json '.files[0].class_names | join(",")' "neg,neu,pos" "hub shards: the ClassLabel's names"
expect_json '.files[0].histogram | map(tostring) | join(",")' "9,9,9" "hub shards: a histogram of the 3 classes"
run "$a/hub"
expect_out "3 labels outside \[0, 3) (1 below 0, 2 at or above 3)" "hub shards: 1 below, 2 above"
# one source without the ClassLabel: no N for the dataset, the counts still right
run --concat "$a/hub/data/train-00001-of-00003.parquet" "$a/dict-swapped.parquet"
expect_out "1 label out of range (0 below 0, 1 at or above their own file's class count)" \
    "a dataset of no N: a label past its file's ClassLabel is not called negative"
run --json --concat "$a/hub/data/train-00001-of-00003.parquet" "$a/dict-swapped.parquet"
expect_json '.files[0].num_classes' null "sources that disagree: no N for the dataset"

# ---- a load_dataset cache folder: one report per split, cache-*.arrow left out
run -b 8 --fail-on=warning "$a/csv-cache"
expect_status 1 "train 9 and test 7, -b 8: train's own last batch of 1 fails"
expect_out "csv-cache (split train): hf-dataset, column \"label\", int64, 9 labels" "the train split's report, named"
expect_out "csv-cache (split test): hf-dataset, column \"label\", int64, 7 labels" "the test split's report, named"
expect_out "split 'train': 1 shard; left out: 1 of other splits, 1 of .map()/.filter() (cache-\*.arrow)" \
    "what the train split left out"
run --json -b 8 "$a/csv-cache"
expect_json '[.files[] | [.split, .samples, .batching.last_batch] | map(tostring) | join(":")] | join(",")' \
    "train:9:1,test:7:7" "JSON: files[].split, each with its own batching"
run --json "$a/sharded-cache"
expect_json '[.files[] | [.split, .count] | map(tostring) | join(":")] | join(",")' \
    "train:30,test:12" "sharded splits: parquet-train-0000i-of-00002.arrow are one split"
# --glob: the shards whose names match, the splits they are of
run --json --glob '*-test*' "$a/csv-cache"
expect_json '[.files[] | .split] | join(",")' "test" "--glob keeps the test split only"
run --json --glob '*-00001-of-*' "$a/sharded-cache"
expect_json '[.files[] | [.split, .count] | map(tostring) | join(":")] | join(",")' "train:12" \
    "--glob keeps one shard of train"
run --json --glob '*-00001-of-*' "$a/dtype-64-32"
expect_json '.files[0].count' 10 "--glob in a save_to_disk folder: the second shard only"
run --glob 'nope*' "$a/sharded-cache"
expect_status 3 "--glob matching no shard"
expect_err "no data file of the dataset folder matches --glob 'nope\*'" "--glob matching no shard: said"

finish
