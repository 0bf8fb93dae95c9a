#!/bin/sh
# cli.sh - end-to-end: the binary on samples/ and tests/data/, checking exit
# statuses, JSON fields and key text lines. One or more assertions per finding
# code, here or, for the codes the samples show, in tests/cases/.
. "$srcdir/tests/setup.sh"
s="$srcdir/samples"

echo "# --- exit statuses"
# exit statuses and messages of usage errors, a clean file, a stray label and
# a missing file are tests/cases/ (clean-10-ok, stray-10-rows, usage-*,
# missing-file, max-report-2)
run --help
expect_status 0 "--help exits 0"
expect_out "Usage: labelaudit" "--help prints usage to stdout"
run --version
expect_status 0 "--version exits 0"
expect_out "labelaudit [0-9]" "--version prints the version"

# the JSON of the samples is tests/cases/*json*.case (stray-10-json-no-b,
# masks-json, matlab-1based-*json, world-size-*, ...): cases.sh checks each
# parses, and every field
echo "# --- one test per finding code"
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
printf '1\n1\n1\n' >"$d/ones.txt"
run --json "$d/ones.txt"
expect_json '[.files[0].findings[].code] | join(",")' "missing-classes" \
    "one value, 1, says nothing about where counting starts"
printf '1\n2\n1.5\n' >"$d/frac.txt"
run --json "$d/frac.txt"
expect_json '[.files[0].findings[].code] | index("one-based") != null' true \
    "a fractional label does not hide the 1-based integer range"
run --json -n 10 "$data/minus-one.txt"
expect_json '.files[0].findings[1].code' ignore-like-value "-1 is ignore-like"
run --json -n 10 "$data/clean-3.txt"
expect_json '.files[0].missing_classes | join(",")' "3,4,5,6,7,8,9" "missing classes listed"
expect_json '.files[0].findings[0].code' missing-classes "missing-classes"
# tiny-last-batch and DistributedSampler's arithmetic on the samples (as
# torch.utils.data computes it) are tests/cases/ (stray-10-json, world-size-*,
# drop-last-json, clean-10-batch-8, stray-10-text)
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
# --fail-on, --quiet, --ignore-index and --max-report on the samples are
# tests/cases/ (fail-on-*, quiet, ignored-100-json, ignore-index-none-json,
# bce-json, max-report-2-json)

run --color=always -n 10 "$s/labels.npy"
grep -q "$(printf '\033')\[1;31merror" "$d/out"; ok $? "--color=always colours the severity"
run -n 10 "$s/labels.npy"
! grep -q "$(printf '\033')" "$d/out"; ok $? "no colours when stdout is not a terminal"

echo "# --- input"
"$LABELAUDIT" --json -n 10 - <"$s/stray-10.csv" >"$d/out" 2>"$d/err"; rc=$?
expect_json '.files[0].path' - "stdin path is -"
expect_json '.files[0].invalid.count' 3 "stdin csv"
gzip -c "$s/labels.npy" | "$LABELAUDIT" --json -n 10 - >"$d/out" 2>"$d/err"
expect_json '.files[0].format' npy "gzip npy on stdin"
# a .gz csv and an .npz from samples/ are tests/cases/stray-10-gz and npz-array
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
# --format=json, sarif, github, gitlab, junit: tests/cases/usage-format-*
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
