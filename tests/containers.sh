#!/bin/sh
# containers.sh - the array containers of issue 15: torch.save's .pt (a strict
# pickle reader that never runs the pickle) and Hugging Face .safetensors.
# Fixtures in tests/data/containers come from the writers users use (torch.save,
# safetensors' save_file): make_pt.py and make_safetensors.py there made them.
# The broken ones are tests/malformed's (MANIFEST).
. "$srcdir/tests/setup.sh"
c="$data/containers"

# values FILE ARGS... : the file's labels >= 1, in the order labelaudit reports
# them (-n 1 makes every one of them "bad", so the JSON lists them by index)
values() {
    f=$1
    shift
    run --json -n 1 --max-report 1000 "$@" "$f"
    jqf '[.files[0].bad[].value] | map(tostring) | join(" ")'
}

expect_values() {   # expect_values "WANT" DESCRIPTION FILE ARGS...
    want=$1 what=$2
    shift 2
    got=$(values "$@")
    [ "$got" = "$want" ]
    ok $? "$what (got '$got', want '$want')"
}

echo "# --- .pt: what torch.load would give, without running the pickle"
labels="1 2 3 4 5 6 7 8 9 10 3 4"
for f in pt-labels pt-dict pt-ordereddict pt-dict-with-str pt-torch1-dict pt-torch2-dict; do
    expect_values "$labels" "$f: the labels tensor" "$c/$f.pt"
done
expect_values "$labels" "a list: --array is the index" "$c/pt-list.pt" --array 1
expect_values "$labels" "a tuple: --array is the index" "$c/pt-tuple.pt" --array 0
expect_values "3 7 11 15 19 23 27" "a strided view with an offset reads as torch sees it" \
    "$c/pt-strided-view.pt"
expect_values "8 16 24 32 1 9 17 25 33 2 10 18 26 34 3 11 19 27 35 4 12 20 28 36 5 13 21 29 37 6 14 22 30 38 7 15 23 31 39" \
    "a transposed tensor in C order" "$c/pt-transposed.pt"
expect_values "10 11 12 18 19 20 26 27 28" "a 2-D slice" "$c/pt-slice-2d.pt"
expect_values "1 2 1 2 1 2 1 2" "an expanded tensor (stride 0)" "$c/pt-expanded.pt"
expect_values "7" "a 0-dimensional tensor" "$c/pt-scalar.pt"
run --json -n 10 "$c/pt-transposed.pt"
expect_json '.files[0].shape | map(tostring) | join(",")' "8,5" "the transpose's shape"
expect_json '.files[0].samples' "8" "first axis = samples"
for t in bf16:float32 f16:float16 uint8:uint8 bool:bool int32:int32 double:float64; do
    run --json -n 2 "$c/pt-${t%%:*}.pt"
    expect_json '.files[0].dtype' "${t#*:}" "pt-${t%%:*}.pt reads as ${t#*:}"
done
run --json --loss bce "$c/pt-bf16.pt"
expect_json '.files[0].max' "2" "bfloat16 values widen exactly (2.0 is over BCE's 1)"
expect_json '.files[0].invalid.above' "1" "one bfloat16 value above 1"
run -n 10 "$c/pt-labels.pt"
expect_status 1 "1..10 with -n 10 is an error"
expect_out "one-based" "and the one-based hint"
run -n 10 "$c/pt-two-tensors.pt"
expect_status 3 "two tensors and no --array"
expect_err "several tensors (a, b): choose one with --array" "names them"
run -n 10 --array images "$c/pt-dict.pt"
expect_status 0 "--array picks the dict key"
run -n 10 --array meta "$c/pt-dict-with-str.pt"
expect_err "'meta' is a str, not a tensor" "a non-tensor item is named"
run -n 10 --array y "$c/pt-labels.pt"
expect_err "holds a tensor, not a dict, list or tuple (drop --array)" "--array on a lone tensor"
run -n 10 - < "$c/pt-labels.pt"
expect_status 1 "standard input (spooled to a temporary file)"
gzip -c "$c/pt-strided-view.pt" > "$d/view.pt.gz"
expect_values "3 7 11 15 19 23 27" "a gzip-compressed view" "$d/view.pt.gz"
cp "$c/pt-dict.pt" "$d/noext"
run --json -n 10 "$d/noext"
expect_json '.files[0].format' "pt" "detected by content (first member PREFIX/data.pkl)"

echo "# --- never executed"
rm -f /tmp/labelaudit-pwned
run -n 10 "$srcdir/tests/malformed/pt-os-system.pt"
expect_status 3 "a pickle calling os.system is refused"
expect_err "pickle calls posix.system" "naming the call"
[ ! -e /tmp/labelaudit-pwned ]
ok $? "and nothing ran"

echo "# --- .safetensors"
expect_values "$labels" "the labels tensor, among three, by its name" "$c/st-dict.safetensors"
expect_values "$labels" "one tensor" "$c/st-labels.safetensors"
gzip -c "$c/st-dict.safetensors" > "$d/st.safetensors.gz"
expect_values "$labels" "gzip-compressed (read through, not mapped)" "$d/st.safetensors.gz"
run --json -n 10 - < "$c/st-dict.safetensors"
expect_json '.files[0].count' "12" "standard input"
expect_values "1 1 1" "--array b" "$c/st-two.safetensors" --array b
expect_values "1 2 255" "a 2-D uint8 tensor" "$c/st-uint8-2d.safetensors"
run --json -n 10 "$c/st-uint8-2d.safetensors"
expect_json '.files[0].shape | map(tostring) | join(",")' "2,2" "its shape"
for t in bf16:float32 f16:float16 bool:bool int16:int16; do
    run --json -n 2 "$c/st-${t%%:*}.safetensors"
    expect_json '.files[0].dtype' "${t#*:}" "st-${t%%:*}.safetensors reads as ${t#*:}"
done
run --json --loss bce "$c/st-bf16.safetensors"
expect_json '.files[0].invalid.above' "1" "bfloat16 2.0 is above BCE's 1"
run -n 10 "$c/st-empty.safetensors"
expect_status 1 "an empty tensor: no labels"
finish
