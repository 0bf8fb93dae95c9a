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

finish
