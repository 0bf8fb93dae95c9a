#!/bin/sh
# splits.sh - a dataset kept as splits (SPEC "Splits"): found with no option
# (a DatasetDict saved by `datasets`, folders named train/val/test), or named
# with --split; a report per split with its own batching; then the splits
# against each other: label-drift and class-unseen-in-train held to the
# numbers scipy.stats.chi2_contingency and numpy give on the same counts,
# split-overlap to a Python set of the keys (tests/gen/gen_splits.py wrote
# the fixtures and tests/data/splits/verdicts.txt).
. "$srcdir/tests/setup.sh"
s="$data/splits"
verdict() { sed -n "s/^$1 //p" "$s/verdicts.txt"; }

# ---- split folders of CSV files: val drifts, test does not
run -b 32 "$s/csv-drift"
expect_status 0 "csv-drift: warnings only, exit 0"
expect_out "^$s/csv-drift/train (split train): " "csv-drift: train is a report of its own"
expect_out "^splits: train (500 samples), val (100 samples), test (100 samples)$" \
    "csv-drift: the splits in order, train first"
v=$(verdict "csv-drift val")        # tvd=0.400 chi2=68.2 dof=4 p=5.5e-14
tvd=${v#tvd=}; tvd=${tvd%% *}
chi2=${v#*chi2=}; chi2=${chi2%% *}
dof=${v#*dof=}; dof=${dof%% *}
p=${v#*p=}
expect_out "label-drift\\]: the class distribution of val differs from train's: total variation distance $tvd (above 0.1), chi-square $chi2 with $dof degrees of freedom, p = $p$" \
    "csv-drift: val's drift is scipy's ($v)"
grep -q 'distribution of test' "$d/out"
ok $((! $?)) "csv-drift: test, drawn like train, does not drift ($(verdict 'csv-drift test'))"
run -b 32 --fail-on=warning "$s/csv-drift"
expect_status 1 "csv-drift: --fail-on=warning fails on the drift"
run --drift-threshold=0.5 "$s/csv-drift"
grep -q 'label-drift' "$d/out"
ok $((! $?)) "csv-drift: --drift-threshold=0.5 is above val's distance 0.4"
run --json -b 32 "$s/csv-drift"
expect_json '[.splits[] | .name] | join(",")' "train,val,test" "json: splits"
expect_json '.splits[0].histogram | join(",")' "100,100,100,100,100" "json: train's histogram"
expect_json '.splits[1].batching.last_batch' "4" "json: val's own batching (100 samples, batch 32)"
expect_json '.files[1].split' "val" "json: files[].split"
expect_json '[.dataset_findings[] | .code + ":" + (.splits | join(">"))] | join(",")' \
    "label-drift:val>train" "json: dataset_findings name their splits"
expect_json '.summary.warnings' "1" "json: the drift counts in the summary"

# ---- --split NAME=PATH, with no FILE: the same answer
run --json -b 32 --split "train=$s/csv-drift/train/labels.csv" --split "val=$s/csv-drift/val/labels.csv"
expect_json '[.dataset_findings[] | .code] | join(",")' "label-drift" "--split: val drifts from train"
expect_json '.files[0].path' "$s/csv-drift/train/labels.csv" "--split: the path as given"
run --split "=x"
expect_status 2 "--split without a name: a usage error"
run --split "train=a" --concat "$s/csv-drift"
expect_status 2 "--split with --concat: a usage error"
run --drift-threshold=2 "$s/csv-drift"
expect_status 2 "--drift-threshold above 1: a usage error"

# ---- ImageFolder splits: a leaked image, a name shared by two other images,
# a copy renamed (found by its bytes only)
run "$s/images"
expect_status 1 "images: split-overlap is an error"
v=$(verdict "images overlap=path")      # count=1 first=cat/dup.png
expect_out "split-overlap\\]: 1 file of train is in val too (cat/dup.png)" \
    "images: by path, confirmed by bytes: Python's set ($v)"
run --overlap=hash "$s/images"
v=$(verdict "images overlap=hash")      # count=2 first=cat/dup.png,dog/orig.png
expect_out "split-overlap\\]: 2 files of train are in val too, byte for byte (cat/dup.png, dog/orig.png)" \
    "images: by content: Python's set of hashes ($v)"
run --overlap=size "$s/images"
expect_status 2 "--overlap=size: a usage error"
mkdir -p "$d/one/train" && cp "$s/csv-drift/train/labels.csv" "$d/one/train/"
run "$d/one"
grep -q '(split train)' "$d/out"
ok $((! $?)) "a folder holding train/ alone: no splits, the dataset as before"
run --format=imagefolder "$s/images/train"
grep -q '^splits:' "$d/out"
ok $((! $?)) "one split folder alone: no splits line"

# ---- a DatasetDict saved by datasets: test holds a class train never has
if absent_feature "--format=hf-dataset x" >/dev/null; then
    ok 0 "# SKIP built without Apache Arrow: the DatasetDict"
else
    run "$s/dsdict"
    expect_out "^$s/dsdict/train (split train): hf-dataset" "dsdict: its splits from dataset_dict.json"
    expect_out "class-unseen-in-train\\]: 1 class (3) in test (3 labels) never in train" \
        "dsdict: class 3 only in test"
    v=$(verdict "dsdict test")
    p=${v#*p=}
    expect_out "label-drift\\]: the class distribution of test .* p = $p$" "dsdict: scipy's p ($v)"
fi
# ---- --merge of shard reports of splits: the split view of the whole
c="$s/csv-drift"
head -251 "$c/train/labels.csv" >"$d/t0.csv"
{ echo label; tail -n +252 "$c/train/labels.csv"; } >"$d/t1.csv"
"$LABELAUDIT" --json -n 5 -b 32 --split "train=$d/t0.csv" >"$d/r0.json"
"$LABELAUDIT" --json -n 5 -b 32 --split "train=$d/t1.csv" >"$d/r1.json"
"$LABELAUDIT" --json -n 5 -b 32 --split "val=$c/val/labels.csv" --split "test=$c/test/labels.csv" >"$d/r2.json"
view='[.splits, [.files[] | [.split, .samples, .batching.last_batch]], [.dataset_findings[].message], .summary]'
whole=$("$LABELAUDIT" --json -n 5 -b 32 --split "train=$c/train/labels.csv" \
    --split "val=$c/val/labels.csv" --split "test=$c/test/labels.csv" | jq -c "$view")
merged=$("$LABELAUDIT" --merge --json -b 32 "$d/r2.json" "$d/r0.json" "$d/r1.json" | jq -c "$view")
[ -n "$whole" ] && [ "$whole" = "$merged" ]
ok $? "--merge of train's two shards and val+test: the splits, batching and findings of the whole"

# ---- the layouts that keep splits
run "$s/yolo"
expect_out "^$s/yolo/labels/train (split train): yolo" "yolo: data.yaml's train, its labels where Ultralytics looks"
expect_out "^$s/yolo/labels/val (split val): yolo" "yolo: data.yaml's val"
expect_out "split-overlap\]: 1 file of train is in val too (a.txt)" "yolo: val/a is train's"
expect_out "class-unseen-in-train\]: 1 class (2) in val" "yolo: bird only in val"
run "$s/roboflow"
expect_out "^splits: train (2 samples), valid (1 sample), test (1 sample)$" \
    "roboflow: ../train/images read as Ultralytics retries it"
run "$srcdir/samples/yolo-nc3"
grep -q '^splits:' "$d/out"
ok $((! $?)) "yolo-nc3: val is train's folder: one report, as before"
run "$s/nnunet"
expect_out "^$s/nnunet/labelsTr (split train): " "nnunet: labelsTr is train"
expect_out "^$s/nnunet/labelsTs (split test): " "nnunet: labelsTs is test"
expect_out "class-unseen-in-train\]: 1 class (2) in test" "nnunet: the tumour only in test"
run "$s/coco"
expect_out "^$s/coco/annotations/instances_val.json (split val): coco" "coco: instances_val.json read as COCO"
expect_out "class-unseen-in-train\]: 1 class (3) in val" "coco: category 3 only in val"

# ---- every output names the findings between splits
run -q --junit="$d/j.xml" --sarif="$d/s.sarif" --annotations=gitlab:"$d/g.json" \
    --html="$d/r.html" "$s/images"
expect_status 1 "outputs: the overlap fails the run"
grep -q '<testcase classname="splits" name="split-overlap">' "$d/j.xml" &&
    grep -q '<failure type="split-overlap" message="1 file of train is in val too' "$d/j.xml"
ok $? "junit: a failed testcase 'splits' split-overlap"
if command -v xmllint >/dev/null; then
    xmllint --noout --schema "$srcdir/tests/outputs/junit.xsd" "$d/j.xml" 2>/dev/null
    ok $? "junit: valid against junit.xsd"
fi
got=$(jq -r '.runs[0].results[] | select(.ruleId == "split-overlap") |
    .locations[0].physicalLocation.artifactLocation.uri' "$d/s.sarif")
case $got in *splits/images/train) r=0 ;; *) r=1 ;; esac
ok $r "sarif: a split-overlap result at the train split's folder ($got)"
got=$(jq -r '[.[] | select(.check_name == "split-overlap")] | length' "$d/g.json")
[ "$got" = 1 ]
ok $? "gitlab: one split-overlap issue ($got)"
run --annotations=github "$s/images"
expect_out '^::error file=.*splits/images/train,title=split-overlap::1 file of train is in val too' \
    "github: an annotation at the train split's folder"
run -q --html="$d/r.html" "$s/csv-drift"
got=$(sed -n '/<section class="splits">/,/<\/section>/p' "$d/r.html" | grep -c '<rect class="bar"')
[ "$got" = 15 ]
ok $? "html: the splits' histograms side by side, a bar per class and split ($got of 15)"
grep -q 'data-code="label-drift"' "$d/r.html"
ok $? "html: the drift among the splits' findings"

mkdir "$d/dd" "$d/dd/train"
printf '{"splits": ' >"$d/dd/dataset_dict.json"
run "$d/dd"
expect_status 3 "a dataset_dict.json cut short: unreadable"
expect_err "dataset_dict.json: not JSON" "... named on standard error"
finish
