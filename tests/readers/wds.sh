#!/bin/sh
# wds.sh - WebDataset shards: members grouped into samples by key
# as webdataset's tariterators.py does (base_plus_ext, lower-case extensions,
# consecutive members), the label from cls, else label, target, idx (--key
# picks one), read as Python's int() reads it; a sample with no label is a
# missing-label error. The fixtures are tests/gen/gen_wds.py's (webdataset's
# TarWriter); a build without libarchive refuses the format by name.
. "$srcdir/tests/setup.sh"
w="$data/wds"

if absent_feature "--format=wds" >/dev/null; then
    run --format=wds -n 10 "$w/clean-10.tar"
    expect_status 2 "--format=wds without libarchive: a usage error"
    expect_err "built without libarchive" "the message names the library"
    run -n 10 "$w/clean-10.tar"
    expect_status 3 "a tar without libarchive: unreadable"
    expect_err "built without libarchive" "the message names the library"
    finish
    exit
fi

echo "# --- detection (ustar at byte 257), a .tar.gz, standard input"
run --json -n 10 "$w/clean-10.tar"
expect_status 0 "clean-10.tar"
expect_json '[.files[0].format, .files[0].count, .files[0].min, .files[0].max, .files[0].wds.samples] | join(" ")' \
    "wds 10 0 9 10" "detected as wds: 10 labels 0..9"
cp "$w/clean-10.tar" "$d/no-extension"
run --json -n 10 "$d/no-extension"
expect_json '.files[0].format' wds "a tar without its extension: detected by its magic"
run --json -n 10 "$w/clean-10.tar.gz"
expect_json '[.files[0].format, .files[0].count] | join(" ")' "wds 10" "clean-10.tar.gz: the source decompresses it"
run --json --format=wds -n 10 - <"$w/clean-10.tar"
expect_json '[.files[0].format, .files[0].count] | join(" ")' "wds 10" "a shard on standard input"
gzip -dc "$w/clean-10.tar.gz" | "$LABELAUDIT" -n 10 - >"$d/out" 2>"$d/err"
ok $? "a gunzipped shard through a pipe, detected"

echo "# --- every kind of label member"
run --json -n 5 "$w/kinds.tar"
expect_status 1 "kinds.tar: errors"
expect_json '.files[0].wds.samples' 11 "11 keys, 11 samples"
expect_json '[.files[0].count, .files[0].samples, .files[0].shape[0]] | join(" ")' "9 11 11" \
    "9 labels of 11 samples: the 2 without one hold no value, but are samples (in the batches)"
expect_json '.files[0].invalid.unparsable' 1 "a missing label is no unparsable cell: only cls cat is one"
expect_json '[.files[0].wds.problems[] | "\(.sample):\(.where)"] | join(",")' "5:key s05,10:key s10" \
    "missing-label: the samples by ordinal and key"
expect_json '[.files[0].findings[].code] | join(",")' "unparsable,out-of-range,missing-label" "the findings"
expect_json '[.files[0].bad[] | "\(.index):\(.sample)=\(.value)"] | join(",")' '5:6=cat,8:9=10' \
    "cls cat is unparsable, 1_0 is int() 10; a padded 3 and CLS are fine: labels 5 and 8, of samples 6 and 9"
run -n 5 "$w/kinds.tar"
expect_out "error \[missing-label\]: 2 samples without a cls, label, target or idx member" "text: missing-label"
expect_out "key s05: no label member" "text: the key"
! grep -q "no label member\"" "$d/out"
ok $? "text: a missing label is not also an unparsable cell"
# the sample shard: its sample 7 has no cls, sample 10 holds 10. With one
# entry listed, it is label 10's: a missing label takes no place in that list
# (it did, and left out-of-range with a "... 1 more" that listed nothing)
run -n 10 --max-report 1 "$srcdir/samples/wds-shard-000000.tar"
expect_out "value 10, [^:]*: index 9 (sample 10)" "--max-report 1: the out-of-range entry is listed, with its sample"
[ "$(grep -c '\.\.\. 1 more' "$d/out")" -eq 0 ]
ok $? "--max-report 1: no '... 1 more' line for one missing label and one bad value"
run -n 10 -b 4 --json "$srcdir/samples/wds-shard-000000.tar"
expect_json '[.files[0].samples, .files[0].batching.last_batch] | join(" ")' "12 4" \
    "the batching counts every key: 12 samples, a last batch of 4"
# the preference: s04 has cls 0 and label 99: cls wins (99 would be out of range)
run --json -n 100 "$w/kinds.tar"
expect_json '.files[0].max' 10 "cls before label: label 99 is not read"
run --json -n 5 --key lbl "$w/kinds.tar"
expect_json '[.files[0].max, .files[0].min, .files[0].wds.missing_label] | join(" ")' "4 4 10" \
    "--key lbl: only that member, every other sample misses it"
run --json -n 5 --key target "$w/kinds.tar"
expect_json '[.files[0].min, .files[0].max, .files[0].wds.missing_label] | join(" ")' "3 3 10" \
    "--key target: the cls members are not labels then"

echo "# --- keys with directories, as base_plus_ext splits them"
run --json -n 3 "$w/dirs.tar"
expect_status 0 "dirs.tar"
expect_json '[.files[0].wds.samples, .files[0].count] | join(" ")' "3 3" \
    "train/a.b/x01, v1.0/x02, x03: three samples"
printf '5' >"$d/5"
( cd "$d" && mkdir -p t && cp 5 t/x.cls && cp 5 "t/.hidden" && cp 5 noext &&
  cp 5 __meta__ && tar cf meta.tar __meta__ noext t/.hidden t/x.cls ) &&
run --json -n 10 "$d/meta.tar"
# webdataset itself makes t/.hidden the sample "t/" (its regex backtracks to
# the directory): a sample without a label, as there
expect_json '[.files[0].wds.samples, .files[0].count, .files[0].max, .files[0].wds.problems[0].where] | join(" ")' \
    "2 1 5 key t/" "__meta__ and a name without extension skipped; t/.hidden is the key t/"

echo "# --- a folder of shards and --concat: one dataset, indices across shards"
run --json -n 5 "$w/shards"
expect_status 1 "the folder: label 7 out of range"
expect_json '[.files[0].count, .files[0].bad[0].index, .files[0].bad[0].source] | join(" ")' "9 7 1" \
    "the folder: 9 samples; the bad label is index 7, in the second shard"
run --json --concat -n 5 "$w/shards/shard-000000.tar" "$w/shards/shard-000001.tar"
expect_status 1 "--concat: label 7 out of range"
expect_json '[.files[0].count, .files[0].bad[0].index] | join(" ")' "9 7" \
    "--concat: index 7 of the dataset (sample 2 of the second shard)"

# a sample without a label still takes its place: the next shard starts after it
run --json --concat -n 5 "$srcdir/tests/malformed/wds-no-label.tar" "$w/shards/shard-000001.tar"
expect_json '[.files[0].count, .files[0].samples, ([.files[0].bad[] | "\(.index):\(.sample)=\(.value)"] | join(","))] | join(" ")' \
    "5 6 3:4=7" "--concat after a missing label: label 7 is sample 4 (2 + 2), the dataset's fourth label"
expect_json '[.files[0].findings[].code | select(. != "missing-classes")] | join(",")' \
    "out-of-range,missing-label" "--concat: the missing label is still a finding"
expect_json '[.files[0].wds.problems[] | "\(.sample):\(.source):\(.where)"] | join(",")' "1:0:key 000001" \
    "--concat: the missing label's problem names its sample and source"

echo "# --- a shard alone, in a folder and under --concat: one report"
# what a shard's report says, by value: the folder and --concat reports of
# that one shard must say the same (the dataset adds sources, source and at)
same_report() {
    jq -c '.files[0] | {count, samples, invalid, bad_samples,
        findings: [.findings[] | [.severity, .code, .message, .prevents]],
        bad: [.bad[] | [.index, .sample, .value]],
        wds: (.wds | {samples, missing_label, problems_total,
                      problems: [.problems[] | [.code, .index, .sample, .where, .what]]})}' "$d/out"
}
mkdir -p "$d/one"
cp "$w/kinds.tar" "$d/one/"
run --json -n 5 "$w/kinds.tar"
same_report >"$d/alone.json"
run --json -n 5 "$d/one"
same_report >"$d/folder.json"
cmp -s "$d/alone.json" "$d/folder.json"
ok $? "kinds.tar in a folder: the report of kinds.tar alone"
run --json -n 5 --concat "$w/kinds.tar"
same_report >"$d/concat.json"
cmp -s "$d/alone.json" "$d/concat.json"
ok $? "kinds.tar under --concat: the report of kinds.tar alone"
expect_json '[.files[0].bad[].source, .files[0].wds.problems[].source] | map(tostring) | join(",")' \
    "0,0,0,0" "--concat: each entry and problem names its source"
run -n 5 "$d/one"
expect_out "error \[missing-label\]: 2 samples without a cls, label, target or idx member$" \
    "the folder's text: the finding as alone"
expect_out "one/kinds.tar key s05: no label member" "the folder's text: the key, in its shard"
# two shards: the second's entries and problems move on by the first's 11 samples
run --json -n 5 --concat "$w/kinds.tar" "$w/kinds.tar"
expect_json '[.files[0].count, .files[0].samples, .files[0].invalid.unparsable] | join(" ")' "18 22 2" \
    "two shards: 18 labels of 22 samples, 2 unparsable cells"
expect_json '[.files[0].bad[] | "\(.index):\(.sample):\(.source)=\(.value)"] | join(",")' \
    "5:6:0=cat,8:9:0=10,14:17:1=cat,17:20:1=10" "two shards: the bad entries at dataset indices and samples"
expect_json '[.files[0].wds.problems[] | "\(.sample):\(.source)"] | join(",")' "5:0,10:0,16:1,21:1" \
    "two shards: the missing labels at dataset samples"
expect_json '[.files[0].wds.samples, .files[0].wds.missing_label] | join(" ")' "22 4" \
    "two shards: the wds counts summed"
expect_json '[.files[0].findings[] | select(.code == "missing-label") | .message] | .[0] | sub("; .*"; "")' \
    "2 samples without a cls, label, target or idx member, and 2 more in 1 other file" \
    "two shards: one missing-label finding for both"
run --json -n 5 "$w/kinds.tar"
cp "$d/out" "$d/kinds.json"
run --json -n 5 --concat "$w/kinds.tar" "$w/kinds.tar"
same_report >"$d/concat2.json"
run --json -n 5 --merge "$d/kinds.json" "$d/kinds.json"
expect_status 1 "--merge of two shards' reports: the missing labels are errors still"
expect_json '[.files[0].findings[] | select(.code == "missing-label") | .message] | .[0] | sub("; .*"; "")' \
    "2 samples without a cls, label, target or idx member, and 2 more in 1 other file" \
    "--merge: one missing-label finding for both shards"
same_report >"$d/merge2.json"
cmp -s "$d/concat2.json" "$d/merge2.json"
ok $? "--merge of the two reports: the report of --concat (indices, missing-label, problems)"
# a shard whose only fault is a missing label: alone, in a merge, under --concat
run --json -n 5 "$srcdir/tests/malformed/wds-no-label.tar"
cp "$d/out" "$d/no-label.json"
run --json -n 5 --merge "$d/no-label.json" "$d/kinds.json"
same_report >"$d/merge3.json"
run --json -n 5 --concat "$srcdir/tests/malformed/wds-no-label.tar" "$w/kinds.tar"
same_report >"$d/concat3.json"
cmp -s "$d/concat3.json" "$d/merge3.json"
ok $? "--merge after a shard with a missing label: the indices of --concat"
cp "$d/out" "$d/concat3-report.json"
run --json -n 5 --merge "$d/concat3-report.json" "$d/no-label.json"
same_report >"$d/merge4.json"
run --json -n 5 --concat "$srcdir/tests/malformed/wds-no-label.tar" "$w/kinds.tar" \
    "$srcdir/tests/malformed/wds-no-label.tar"
same_report >"$d/concat4.json"
cmp -s "$d/concat4.json" "$d/merge4.json"
ok $? "--merge of a dataset's report and a shard's: --concat of all three"

echo "# --- broken shards: one message naming the file, exit 3"
head -c 2000 "$w/clean-10.tar" >"$d/truncated.tar"
run -n 10 "$d/truncated.tar"
expect_status 3 "a truncated shard"
expect_err "labelaudit: $d/truncated.tar: byte [0-9]*: " "the message names the file and a byte"
run --format=wds -n 10 "$w/kinds.tar" "$w/clean-10.tar"
[ "$(grep -c 'wds, int64' "$d/out")" -eq 2 ]
ok $? "two shards, two reports"
run --format=wds -n 10 "$data/five.txt"
expect_status 3 "--format=wds on a text file"
finish
