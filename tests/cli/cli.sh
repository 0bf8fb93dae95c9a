#!/bin/sh
# cli.sh - end-to-end: the binary on samples/ and tests/data/, checking exit
# statuses, JSON fields and key text lines. One or more assertions per finding code.
. "$srcdir/tests/setup.sh"
s="$srcdir/samples"

echo "# --- exit statuses"
run -n 10 "$s/clean-10.csv"
expect_status 0 "a clean file exits 0"
expect_out "ok" "a clean file says ok"
run -n 10 "$s/stray-10.csv"
expect_status 1 "a stray 10 exits 1"
for row in 17 230 1000; do
    expect_out "row $row (line $((row + 2))): 10" "the stray 10 at row $row is named, with its line (a header before it)"
done
run --bogus "$s/clean-10.csv"
expect_status 2 "an unknown option exits 2"
expect_err "Try 'labelaudit --help'" "a usage error points to --help"
run -n 10
expect_status 2 "no FILE exits 2"
run -n ten "$s/clean-10.csv"
expect_status 2 "a bad number exits 2"
expect_err "invalid --num-classes 'ten'" "the bad number is named"
run -n 10 "$d/missing.csv" "$s/clean-10.csv"
expect_status 3 "a missing file exits 3"
expect_err "missing.csv: cannot open" "the missing file is named on stderr"
expect_out "clean-10.csv: csv" "the other file is still audited"
run --format raw -n 10 "$s/clean-10.csv"
expect_status 2 "--format=raw without --dtype is a usage error"
run -n 5 --max-report 2 "$s/medical-5class.csv"
expect_out "40 of them equal 5 = N" "labels stored 1..N with strays: the hint says subtract 1"
expect_out "\.\.\. 39 more" "the text says how many entries are not listed"
run --help
expect_status 0 "--help exits 0"
expect_out "Usage: labelaudit" "--help prints usage to stdout"
run --version
expect_status 0 "--version exits 0"
expect_out "labelaudit [0-9]" "--version prints the version"

echo "# --- JSON"
run --json -n 10 "$s/stray-10.csv"
expect_status 1 "JSON run exits 1"
jq -e . "$d/out" >/dev/null; ok $? "the JSON document parses"
expect_json '.schema' 1 "schema 1"
expect_json '.files[0].invalid.count' 3 "exact invalid count"
expect_json '.files[0].invalid.above' 3 "three above"
expect_json '[.files[0].bad[].index] | join(",")' "17,230,1000" "bad indices ascending"
expect_json '.files[0].column' label "the label column"
expect_json '.files[0].samples' 1041 "samples"
expect_json '.files[0].dtype' int64 "csv of integers is int64"
expect_json '.files[0].histogram | length' 10 "histogram over N classes"
expect_json '.files[0].findings[0].code' out-of-range "the error code"
expect_json '.summary.exit_status' 1 "summary exit status"
expect_json '.backend' cpu "the cpu backend ran"
expect_json '.files[0].batching' null "no batching without -b"

echo "# --- one test per finding code"
run --json -n 10 "$s/labels.npy"
expect_json '[.files[0].findings[].code] | index("out-of-range") != null' true "out-of-range"
expect_json '.files[0].min' -1 "min shows the out-of-range value"
run --json -n 10 "$data/non-finite.txt"
expect_json '.files[0].invalid.non_finite' 3 "non-finite count"
expect_json '[.files[0].bad[].value] | join(",")' "nan,inf,-inf" "NaN/Inf as strings"
expect_json '.files[0].findings[0].code' non-finite "non-finite code"
run --json -n 10 "$data/non-integer.txt"
expect_json '.files[0].findings[0].code' non-integer "non-integer"
expect_json '.files[0].bad[0].value' 2.5 "the fractional value"
run --json -n 10 "$data/unparsable.txt"
expect_json '.files[0].findings[0].code' unparsable "unparsable"
expect_json '.files[0].bad[0].value' cat "unparsable cell as text"
expect_json '.files[0].bad[0].index' 2 "unparsable at row 2"
expect_status 1 "unparsable cells are findings (exit 1), not read errors"
run --json -n 10 "$data/empty.txt"
expect_json '.files[0].findings[0].code' empty "empty file"
expect_status 1 "an empty file exits 1"
run --json -n 10 "$data/header-only.csv"
expect_json '.files[0].findings[0].code' empty "a header-only csv is empty"
run --json -n 10 "$data/float-labels.txt"
expect_json '.files[0].dtype' float64 "float cells make float64"
expect_json '[.files[0].findings[].code] | join(",")' "float-labels,missing-classes" \
    "float-labels warning"
expect_status 0 "warnings alone exit 0"
run --json -n 10 "$s/matlab-1based.txt"
expect_json '[.files[0].findings[].code] | join(",")' "out-of-range,one-based,missing-classes" \
    "one-based"
run -n 10 "$s/matlab-1based.txt"
expect_out "fix: labels look 1-based: subtract 1" "the 1-based fix is in the text"
# without -n, labels 1..10 are one-based too: max + 1 = 11 would hide the shift
run --json "$s/matlab-1based.txt"
expect_json '[.files[0].findings[].code] | join(",")' "one-based,missing-classes" \
    "one-based without -n"
expect_json '.files[0].findings[0].message | test("then -n 10 \\(not 11\\)")' true \
    "without -n the one-based fix names N = max"
expect_json '.files[0].histogram | length' 11 "the histogram still covers 0..max"
expect_json '.files[0].missing_classes | join(",")' 0 "class 0 is the missing one"
run "$s/matlab-1based.txt"
expect_out "classes: labels span 1..10 and look 1-based; subtract 1, then pass -n 10" \
    "the class-count suggestion is max for 1-based labels"
printf '1\n1\n1\n' >"$d/ones.txt"
run --json "$d/ones.txt"
expect_json '[.files[0].findings[].code] | join(",")' "missing-classes" \
    "one value, 1, says nothing about where counting starts"
printf '1\n2\n1.5\n' >"$d/frac.txt"
run --json "$d/frac.txt"
expect_json '[.files[0].findings[].code] | index("one-based") != null' true \
    "a fractional label does not hide the 1-based integer range"
run --json --loss bce "$s/matlab-1based.txt"
expect_json '[.files[0].findings[].code] | index("one-based")' null "no one-based for bce"
run --json -n 21 "$s/masks.npy"
expect_json '[.files[0].findings[].code] | join(",")' "out-of-range,ignore-like-value" \
    "ignore-like-value"
expect_json '.files[0].findings[1].ignore_index' 255 "suggests --ignore-index 255"
expect_json '.files[0].bad_samples' 3 "3 bad masks"
expect_json '.files[0].shape | join(",")' "20,16,16" "mask shape"
expect_json '.files[0].bad[0].sample' 3 "first bad entry in mask 3"
expect_json '.files[0].bad[0].index' $((3 * 256 + 2 * 16 + 4)) "flat C-order index"
run -n 21 --ignore-index 255 "$s/masks.npy"
expect_status 0 "--ignore-index 255 makes the masks clean"
run --json -n 10 "$data/minus-one.txt"
expect_json '.files[0].findings[1].code' ignore-like-value "-1 is ignore-like"
run --json -n 10 "$data/clean-3.txt"
expect_json '.files[0].missing_classes | join(",")' "3,4,5,6,7,8,9" "missing classes listed"
expect_json '.files[0].findings[0].code' missing-classes "missing-classes"
run --json -n 10 -b 8 "$s/stray-10.csv"
expect_json '[.files[0].findings[].code] | index("tiny-last-batch") != null' true \
    "tiny-last-batch"
expect_json '.files[0].batching.last_batch' 1 "1041 / 8 leaves 1"
expect_json '.files[0].batching.batches_per_rank' 131 "131 batches"
# DistributedSampler: 1041 samples, batch 8, as torch.utils.data computes it
batching() {   # batching ARGS -- EXPECTED (spr padded dropped_by_sampler batches last dropped_by_loader)
    run --json -n 10 -b 8 "$@" "$s/stray-10.csv"
    got=$(jqf '.files[0].batching | [.samples_per_rank, .padded, .dropped_by_sampler,
               .batches_per_rank, .last_batch, .dropped_by_loader] | join(" ")')
}
batching --world-size 2; [ "$got" = "521 1 0 66 1 0" ]; ok $? "W=2: $got"
batching --world-size 3; [ "$got" = "347 0 0 44 3 0" ]; ok $? "W=3: $got"
batching --world-size 8; [ "$got" = "131 7 0 17 3 0" ]; ok $? "W=8: $got"
batching --world-size 8 --sampler-drop-last; [ "$got" = "130 0 1 17 2 0" ]; ok $? "W=8 sampler drop_last: $got"
batching --world-size 2 --drop-last; [ "$got" = "521 1 0 65 8 1" ]; ok $? "W=2 drop_last: $got"
batching --drop-last; [ "$got" = "1041 0 0 130 8 1" ]; ok $? "drop_last: $got"
expect_status 1 "drop_last: the stray 10s still fail the run"
expect_json '[.files[0].findings[].code] | index("tiny-last-batch")' null "drop_last removes the tiny batch"
run -n 10 -b 8 "$s/clean-10.csv"
expect_status 0 "1040 / 8: clean"
run -n 10 -b 8 "$s/stray-10.csv"
expect_out "Fix: drop_last=True (drops 1 sample per epoch), or batch_size 7 (last 5)" \
    "the text suggests drop_last and batch size 7"
run --json -n 10 -b 8 --drop-last "$data/five.txt"
expect_json '[.files[0].findings[].code] | index("no-batches") != null' true "no-batches"
expect_json '.files[0].batching.last_batch' 0 "no batches: last_batch 0"

echo "# --- options"
run --json "$data/clean-3.txt"
expect_json '.files[0].histogram | join(",")' "2,2,2" "without -n: N = max+1"
expect_json '.config.num_classes' null "num_classes null without -n"
run -n 10 "$data/clean-3.txt"
expect_status 0 "missing classes are a warning only"
run -n 10 --fail-on warning "$data/clean-3.txt"
expect_status 1 "--fail-on warning turns warnings into exit 1"
run -n 10 --fail-on never "$s/stray-10.csv"
expect_status 0 "--fail-on never exits 0"
run -q -n 10 "$s/stray-10.csv"
expect_status 1 "--quiet keeps the status"
[ ! -s "$d/out" ] && [ ! -s "$d/err" ]; ok $? "--quiet prints nothing"
run --json -n 4 "$s/ignored-100.tsv"
expect_json '.files[0].ignored' 18 "-100 is ignored by default"
expect_status 0 "-100 labels are clean"
run --json -n 4 --ignore-index none "$s/ignored-100.tsv"
expect_json '.files[0].invalid.below' 18 "--ignore-index none counts -100 as below"
expect_json '.config.ignore_index' null "ignore_index null with none"
run --json --loss bce "$s/bce-targets.csv"
expect_json '.files[0].invalid.above' 5 "bce: values above 1"
expect_json '.files[0].invalid.below' 5 "bce: values below 0"
expect_json '.files[0].invalid.non_finite' 5 "bce: NaN"
expect_json '.files[0].histogram' null "bce: no histogram"
run --json --max-report 2 -n 10 "$s/stray-10.csv"
expect_json '.files[0].bad | length' 2 "--max-report 2"
expect_json '.files[0].bad_truncated' true "bad_truncated"
expect_json '.files[0].invalid.count' 3 "counts stay exact"

run --color=always -n 10 "$s/labels.npy"
grep -q "$(printf '\033')\[1;31merror" "$d/out"; ok $? "--color=always colours the severity"
run -n 10 "$s/labels.npy"
! grep -q "$(printf '\033')" "$d/out"; ok $? "no colours when stdout is not a terminal"

echo "# --- input"
"$LABELAUDIT" --json -n 10 - <"$s/stray-10.csv" >"$d/out" 2>"$d/err"; rc=$?
expect_json '.files[0].path' - "stdin path is -"
expect_json '.files[0].invalid.count' 3 "stdin csv"
run --json -n 10 "$s/stray-10.csv.gz"
expect_json '.files[0].format' csv "gzip csv format is csv"
expect_json '.files[0].invalid.count' 3 "gzip csv"
gzip -c "$s/labels.npy" | "$LABELAUDIT" --json -n 10 - >"$d/out" 2>"$d/err"
expect_json '.files[0].format' npy "gzip npy on stdin"
run --json -n 10 --array y "$s/data.npz"
expect_json '.files[0].format' npz "npz"
expect_json '.files[0].bad[0].index' 150 "npz bad entry"
run --json -n 10 "$data/fortran.npy"
expect_json '.files[0].bad[0].index' 4 "Fortran-order index reported in C order"
run --json -n 10 "$data/big-endian.npy"
expect_json '.files[0].max' 300 "big-endian npy"
run --json -n 10 "$data/float16.npy"
expect_json '.files[0].dtype' float16 "float16 npy"
expect_json '.files[0].invalid.non_finite' 2 "float16 NaN and Inf"
run -n 10 "$data/truncated.npy"
expect_status 3 "truncated npy exits 3"
expect_err "truncated.npy: byte [0-9]*:" "the message names the file and byte offset"
run -n 10 "$data/truncated-header.npy"
expect_status 3 "truncated npy header exits 3"
printf '\001\000\002\012' >"$d/raw.bin"
run --json -n 10 --format raw --dtype uint8 "$d/raw.bin"
expect_json '.files[0].count' 4 "raw uint8"

echo "# --- indices-out"
run -n 10 --indices-out "$d/bad.tsv" "$s/stray-10.csv" "$s/labels.npy"
expect_status 1 "indices-out run"
[ "$(wc -l <"$d/bad.tsv")" -eq 5 ]; ok $? "every bad entry of both files is written"
head -1 "$d/bad.tsv" | grep -q "stray-10.csv	17	10"; ok $? "PATH<TAB>INDEX<TAB>VALUE"
run -n 10 --indices-out "$d/none.tsv" "$s/clean-10.csv" "$d/missing.csv"
expect_status 3 "a failed run"
[ ! -e "$d/none.tsv" ] && [ -z "$(ls "$d" | grep '^\.labelaudit-')" ]
ok $? "a failed run leaves neither the file nor a temporary"

echo "# --- backends"
run --backend=gpu -n 10 "$s/clean-10.csv"
if [ "$rc" -eq 3 ]; then
    expect_err "no CUDA device available (" "--backend=gpu without a GPU explains why"
    # where no NVIDIA driver exists at all, cudart's "insufficient driver" says so
    if "$LABELAUDIT" --version | grep -q "CUDA backend: yes" &&
        ! PATH="$PATH:/sbin:/usr/sbin" ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
        expect_err "no NVIDIA driver is installed, libcuda.so.1 not found" \
            "--backend=gpu without a driver says the driver is missing"
    fi
else
    expect_status 0 "--backend=gpu runs on a GPU"
fi
run --json --backend=auto -n 10 "$s/clean-10.csv"
expect_json '.backend' cpu "small input: auto stays on the CPU"

echo "# --- --help, --format's habits of other linters, float labels' wording"
run --help
expect_out "compressed files are read\$" "--help says compressed files are read"
decomp=$("$LABELAUDIT" --version | sed -n 's/^Decompression: //p')
expect_out "transparently (this build: $decomp)" "--help lists the decompressors --version lists ($decomp)"
expect_out "status 1 (default error;" "--help gives --fail-on's default"
[ -z "$(awk 'length > 80' "$d/out")" ]
ok $? "--help: no line over 80 columns"
for habit in json:--json sarif:--sarif=FILE github:--annotations=github \
             gitlab:--annotations=gitlab:FILE junit:--junit=FILE; do
    run --format="${habit%%:*}" "$s/clean-10.csv"
    expect_status 2 "--format=${habit%%:*} is a usage error"
    expect_err "did you mean ${habit#*:}?" "--format=${habit%%:*}: did you mean ${habit#*:}"
done
run --format=jsonl "$s/clean-10.csv"
! grep -q "did you mean" "$d/err"
ok $? "an unknown --format that is no output's name lists the formats, no guess"
printf 'y\n0\n1.5\n2\n1\n' >"$d/frac.csv"
run -n 3 "$d/frac.csv"
expect_out "^    prevents: expected scalar type Long but found Double (PyTorch 2: expected target dtype to be Long or Byte, but got Double)$" \
    "non-integer: PyTorch 1's and 2's words, for float64 as NumPy keeps it"
run --json -n 3 "$d/frac.csv"
expect_json '[.files[0].findings[] | select(.code == "float-labels") | .message | endswith("class probabilities); store them as int64 (y.astype(np.int64)), or convert in the Dataset (torch.as_tensor(y, dtype=torch.long))")] | .[0]' \
    true "float-labels has a fix"
expect_json '[.files[0].findings[] | select(.code == "float-labels") | .prevents] | .[0]' \
    'expected scalar type Long but found Double (PyTorch 2: expected target dtype to be Long or Byte, but got Double)' \
    "float-labels: PyTorch 1's and 2's words"

finish
