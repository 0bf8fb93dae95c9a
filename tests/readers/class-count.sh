#!/bin/sh
# class-count.sh - N from where it is written: the model's config.json and
# tokenizer.json (--model), a YOLO data.yaml, an nnU-Net dataset.json, COCO's
# categories; the numbers held to what transformers, tokenizers and
# Ultralytics make of the same files (tests/data/class-meta-truth.txt, from
# tests/gen/gen_class_meta.py); disagreements as class-count-mismatch and
# vocab-mismatch; hostile files refused with their reason, in bounded memory.
. "$srcdir/tests/setup.sh"
s="$srcdir/samples"
truth() { awk -v n="$1" -v k="$2" '$1 == n && $2 == k { print $3 }' "$data/class-meta-truth.txt"; }
yaml_built=1
"$LABELAUDIT" --version | grep -q 'data.yaml (libyaml)' || yaml_built=

echo "# --- a 10-class head, an 11-class CSV"
run --json --model "$s/model-10" "$s/stray-10.csv"
expect_status 1 "labels of 11 classes for a model of 10: an error"
expect_json '.files[0].num_classes' "$(truth model-10 num_labels)" "N: AutoConfig's num_labels"
expect_json '.files[0].num_classes_from' "model config.json id2label" "N's source, named"
expect_json '.files[0].class_names[3]' "$(truth model-10 name3)" "class 3's name: AutoConfig's id2label[3]"
expect_json '.files[0].invalid.above' 3 "the three 10s are out of range"
expect_json '.config.num_classes' null "the config stays the command line's"
# the text report and -n 11 against the model's 10 (class-count-mismatch) are
# tests/cases/model-10-text and model-10-n-11-json

echo "# --- a language model whose tokenizer's added tokens pass vocab_size"
run --json --model "$s/lm-added" "$s/lm-tokens.txt"
expect_status 1 "vocab-mismatch is an error"
expect_json '.files[0].num_classes' "$(truth lm-added vocab_size)" "N: the embedding's rows (AutoConfig's vocab_size)"
expect_json '.files[0].tokenizer.vocabulary' "$(truth lm-added tokenizer_vocab)" \
    "the tokenizer's vocabulary: tokenizers' highest id + 1"
expect_json '.files[0].tokenizer.base' "$(truth lm-added tokenizer_base)" "its base vocabulary"
expect_json '[.files[0].findings[] | select(.code == "vocab-mismatch")] | length' 1 "vocab-mismatch"
expect_json '.files[0].invalid.above' 1 "id 101 has no embedding row"
# ids inside vocab_size but past the tokenizer's vocabulary
mkdir -p "$d/lm"
printf '{"architectures":["GPT2LMHeadModel"],"vocab_size":110}' >"$d/lm/config.json"
cp "$s/lm-added/tokenizer.json" "$d/lm/"
run --json --model "$d/lm" "$s/lm-tokens.txt"
expect_json '[.files[0].findings[] | select(.code == "vocab-mismatch")] | length' 0 \
    "a tokenizer within vocab_size: no vocab-mismatch"
printf '1\n107\n' >"$d/ids.txt"
run --json --model "$d/lm" "$d/ids.txt"
expect_json '.files[0].findings[] | select(.code == "vocab-mismatch") | .message | test("ids up to 107")' true \
    "an id past the tokenizer's vocabulary (inside the embedding): vocab-mismatch"

echo "# --- a YOLO folder whose data.yaml says nc: 3, and a label 3"
if [ -n "$yaml_built" ]; then
    run --json --format=yolo "$s/yolo-nc3/labels/train"
    expect_status 1 "class 3 of 3: an error"
    expect_json '.files[0].num_classes' "$(truth yolo-nc3 nc)" "N: check_det_dataset's nc"
    expect_json '.files[0].num_classes_from' "data.yaml nc" "found beside the labels, two folders up"
    expect_json '.files[0].invalid.above' 1 "the label 3"
    expect_json '.files[0].class_names | join(",")' "person,bicycle,car" "the names"
    printf 'nc: 3\nnames: [a, b, c, d]\n' >"$d/names4.yaml"
    run --json --format=yolo --data-yaml "$d/names4.yaml" "$s/yolo-nc3/labels/train"
    expect_json '.files[0].findings[] | select(.code == "class-count-mismatch") | .message | test("nc: 3 but names lists 4")' true \
        "nc and names disagree: a finding (check_det_dataset: $(truth yolo-names-4-nc-3 nc))"
    printf 'names:\n  0: a\n  2: c\n' >"$d/gap.yaml"
    run --json --format=yolo --data-yaml "$d/gap.yaml" "$s/yolo-nc3/labels/train"
    expect_json '[.files[0].findings[] | select(.code == "class-count-mismatch")] | length' 1 \
        "names keys with a gap: a finding (check_det_dataset: $(truth yolo-names-dict-gap nc))"
    printf 'names:\n  0: a\n  1: b\n' >"$d/dict.yaml"
    run --json --format=yolo --data-yaml "$d/dict.yaml" "$s/yolo-nc3/labels/train"
    expect_json '.files[0].num_classes' "$(truth yolo-names-dict nc)" "names as a mapping: its length"
    # a YAML bomb: aliases are events, never expanded; too many are refused
    { echo 'a: &a [x, x, x, x, x, x, x, x, x, x]'
      i=0; while [ $i -lt 1100 ]; do echo "b$i: *a"; i=$((i + 1)); done
      echo 'nc: 3'; } >"$d/bomb.yaml"
    run --format=yolo --data-yaml "$d/bomb.yaml" "$s/yolo-nc3/labels/train"
    expect_status 3 "a YAML bomb: refused"
    expect_err "more than 1000 aliases" "named as such"
    printf 'nc: &n 3\nnames: [a, *n, c]\n' >"$d/alias.yaml"
    run --format=yolo --data-yaml "$d/alias.yaml" "$s/yolo-nc3/labels/train"
    expect_err "names\[1\] is an alias" "an alias where a name should be: refused"
    printf 'nc: three\n' >"$d/nc.yaml"
    run --format=yolo --data-yaml "$d/nc.yaml" "$s/yolo-nc3/labels/train"
    expect_err "nc is not a whole number" "nc: three: refused"
else
    echo "ok $((n_tests += 1)) # SKIP built without libyaml"
fi

echo "# --- an nnU-Net folder whose dataset.json says 0..2, and a mask holding 3"
run --json "$s/nnunet-3/labelsTr"
expect_status 1 "a 3 in a mask of labels 0..2: an error"
expect_json '.files[0].num_classes' "$(truth nnunet-3 labels)" "N: the labels' highest value + 1"
expect_json '.files[0].num_classes_from' "nnU-Net dataset.json labels" "N's source"
expect_json '.files[0].class_names | join(",")' "background,edema,tumor" "the names"
mkdir -p "$d/nn/labelsTr"
cp "$s/nnunet-3/labelsTr/case_000.png" "$d/nn/labelsTr/"
printf '{"labels":{"background":0,"edema":1,"tumor":3}}' >"$d/nn/dataset.json"
run --json "$d/nn/labelsTr"
expect_json '.files[0].findings[] | select(.code == "class-count-mismatch") | .message | test("skip 1 value")' true \
    "labels that skip a value: nnU-Net's consecutive rule, a finding"
printf '{"labels":[0,1]}' >"$d/nn/dataset.json"
run "$d/nn/labelsTr"
expect_status 3 "a dataset.json without a labels object: unreadable"
expect_err 'dataset.json: no "labels" object' "its reason"

echo "# --- COCO's categories"
printf '{"images":[{"id":1}],"categories":[{"id":1,"name":"cat"},{"id":2,"name":"dog"}],"annotations":[{"id":1,"image_id":1,"category_id":1,"bbox":[0,0,1,1]}]}' >"$d/coco.json"
if "$LABELAUDIT" --version | grep -q ' coco '; then
    run --json --format=coco --model "$s/model-10" "$d/coco.json"
    expect_json '.files[0].findings[] | select(.code == "class-count-mismatch") | .message | test("COCO categories says 3")' true \
        "a 10-class head for 2 categories (+ background): class-count-mismatch"
fi

echo "# --- hostile model files"
bad_config() {      # bad_config JSON REGEX DESCRIPTION
    mkdir -p "$d/bad" && printf '%s' "$1" >"$d/bad/config.json"
    run --model "$d/bad" "$s/clean-10.csv"
    expect_status 3 "$3"
    expect_err "$2" "$3: the reason"
}
bad_config '{"num_labels":-3}' "num_labels -3 is not a class count" "num_labels negative"
bad_config '{"num_labels":"ten"}' "num_labels is a string" "num_labels a string"
bad_config '{"num_labels":9223372036854775808}' "num_labels 9.2233720368547758e+18 is not" "num_labels 2^63"
bad_config '{"id2label":{"a":"x"}}' 'id2label key "a" is not an integer' "id2label key not an integer"
bad_config '{"vocab_size":0}' "vocab_size 0 is not a count" "vocab_size 0"
bad_config '[1,2]' "not a JSON object" "a list"
printf '{"id2label":{"0":"a","2":"c"}}' >"$d/bad/config.json"
run --json --model "$d/bad" "$s/clean-10.csv"
expect_json '.files[0].findings[] | select(.code == "class-count-mismatch") | .message | test("id2label has 2 entries but its ids run to 2")' true \
    "id2label with a gap: a finding (transformers: 2 outputs)"
expect_json '.files[0].num_classes' 2 "N: len(id2label), as transformers"
mkdir -p "$d/tok"
printf '{"vocab_size":100}' >"$d/tok/config.json"
awk 'BEGIN { for (i = 0; i < 10000; i++) printf "["; for (i = 0; i < 10000; i++) printf "]" }' \
    >"$d/tok/tokenizer.json"
run --model "$d/tok" "$s/clean-10.csv"
expect_status 3 "a tokenizer.json nested 10,000 deep: refused"
expect_err "nested deeper than 64" "its reason"
truncate -s 1G "$d/tok/tokenizer.json"
run --model "$d/tok" "$s/clean-10.csv"
expect_status 3 "a tokenizer.json of 1 GiB: refused before reading"
expect_err "1024.0 MiB, more than the 256 MiB" "its reason"
rm -f "$d/tok/tokenizer.json"
echo "# --- issue 41: files at the edges of their formats, held to what the libraries read"
# tests/data/class-meta and its verdicts.txt: tests/gen/gen_class_verdicts.py
# (transformers' AutoConfig, Ultralytics' check_det_dataset, nnU-Net's LabelManager)
cm="$data/class-meta"
verdict() { awk -v f="$1" -v k="$2" '$1 == f && $2 == k { print $3 }' "$cm/verdicts.txt"; }
printf '1\n5\n99\n250\n500\n' >"$d/tokens.txt"
for f in "$cm"/config-*.json; do
    name=${f##*/}
    heads=$(verdict "$name" num_labels) vocab=$(verdict "$name" vocab)
    if [ -n "$vocab" ]; then   # a language model: its embedding's rows count the ids
        run --json --model "$f" "$d/tokens.txt"
        expect_json '.files[0].num_classes' "$vocab" "$name: N is the embedding's rows, as transformers builds it"
        continue
    fi
    run --json --model "$f" "$s/clean-10.csv"
    case $heads in
    refused:*|0) expect_status 3 "$name: refused (transformers: $heads)" ;;
    *) expect_json '.files[0].num_classes' "$heads" "$name: N is transformers' num_labels" ;;
    esac
done
run --json --model "$cm/config-key-1_0.json" "$s/clean-10.csv"
expect_json '.files[0].findings[] | select(.code == "class-count-mismatch") | .message | test("ids run to '"$(verdict config-key-1_0.json top_id)"'")' true \
    "id2label key \"1_0\" is id 10, as Python's int() reads it"
run --json --model "$cm/config-llava-stale-vocab.json" "$d/tokens.txt"
expect_json '.files[0].findings[] | select(.code == "class-count-mismatch") | "\(.severity) \(.message)" | test("^warning .*vocab_size 1000 but text_config.vocab_size 300")' true \
    "a composite config's stale vocab_size: a warning naming both"
expect_json '.files[0].invalid.above' 1 "token 500 is past text_config's 300 rows"
run --json --model "$cm/config-causal-lm-ids.json" "$d/tokens.txt"
expect_json '[.files[0].findings[] | select(.code == "class-count-mismatch")] | length' 0 \
    "a causal LM's leftover id2label: no head to weigh"
if [ -n "$yaml_built" ]; then
    for f in "$cm"/yaml-*.yaml; do
        name=${f##*/} nc=$(verdict "${f##*/}" nc)
        run --json --format=yolo --data-yaml "$f" "$s/yolo-nc3/labels/train"
        case $nc in
        refused:*) expect_status 3 "$name: refused (Ultralytics: ${nc#refused:})" ;;
        *) expect_json '.files[0].num_classes' "$nc" "$name: N is Ultralytics' nc (PyYAML's YAML 1.1)" ;;
        esac
    done
    run --format=yolo --data-yaml "$cm/yaml-two-documents.yaml" "$s/yolo-nc3/labels/train"
    expect_err "a second YAML document" "two documents: the reason"
else
    echo "ok $((n_tests += 1)) # SKIP built without libyaml"
fi
run --json "$cm/nnunet-brats/labelsTr"
expect_json '.files[0].num_classes' "$(verdict nnunet-brats labels)" \
    "region-based nnU-Net (BraTS): N is LabelManager's all_labels, 0..3"
expect_status 0 "the mask's values up to $(verdict nnunet-brats mask_max): no error"
finish
