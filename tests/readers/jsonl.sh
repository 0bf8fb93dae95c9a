#!/bin/sh
# jsonl.sh - --format=jsonl: JSON Lines as pandas.read_json(lines=True) and
# `datasets` read them, and --field's one document of records. Each fixture
# of tests/data/jsonl (made by tests/gen/gen_jsonl.py with pandas and
# `datasets`) against what that library read back (truth.tsv): labels,
# samples (records), dtype, range, unparsable cells, the first bad entries
# and their values. Then the key's choice, and lines that are no records,
# each refused naming its line. Skipped where labelaudit was built without yajl.
. "$srcdir/tests/setup.sh"
if ! "$LABELAUDIT" --version | grep -q '^Formats: [^(]* jsonl'; then
    run "$data/jsonl/pd-int.jsonl"
    expect_status 3 "jsonl without yajl: refused"
    expect_err "yajl" "jsonl without yajl: names the library"
    finish
    exit
fi
j="$data/jsonl"
tab=$(printf '\t')

# ---- every fixture against the truth of the library that wrote it
grep -v '^#' "$j/truth.tsv" >"$d/truth"
while IFS="$tab" read -r name args count samples dtype min max unparsable bad values; do
    # shellcheck disable=SC2086  # ARGS are words
    run --json --max-report 5 $args "$j/$name"
    [ "$rc" -le 1 ]
    ok $? "$name: read (exit $rc)"
    [ "$rc" -le 1 ] || { sed 's/^/# err: /' "$d/err" | head -3; continue; }
    got=$(jqf '.files[0] | [.count, .samples, .dtype, .min, .max, .invalid.unparsable,
                           ([.bad[].index] | map(tostring) | join(",")),
                           ([.bad[].value] | map(tostring) | join("|"))] | map(tostring) | join("\t")')
    want="$count$tab$samples$tab$dtype$tab$min$tab$max$tab$unparsable$tab$bad$tab$values"
    [ "$got" = "$want" ]
    ok $? "$name: labels, samples, dtype, range, unparsable, bad entries as the writer reads them"
    [ "$got" = "$want" ] || { echo "# got:  $got"; echo "# want: $want"; }
done <"$d/truth"

# ---- a list's bad item is named by its record
run --json -n 4 "$j/pd-list.jsonl"
expect_json '.files[0].bad[0].sample' 50 "a list record's stray item: its record is its sample"

# ---- a record of more than 2^20 items goes out before it ends: its items
# are still its record's (2 bad records of 5, the first holding two strays)
awk 'BEGIN { print "{\"label\": [1, 2]}"; printf "{\"label\": [";
             for (i = 0; i < 1100000; i++) printf "%d, ", (i == 5 || i == 600000) ? 7 : 0;
             print "0]}"; print "{\"label\": [9]}"; print "{\"label\": [1]}"; print "{\"label\": [1]}" }' \
    >"$d/long.jsonl"
run --json -n 5 "$d/long.jsonl"
expect_json '[.files[0].samples, .files[0].bad_samples, ([.files[0].bad[].sample] | map(tostring) | join(","))] | map(tostring) | join(" ")' \
    "5 2 1,1,2" "a record of 2^20+ items: its strays in its own record, 2 bad records of 5"

# ---- lists with many bad ids, the reader's thread ahead of the scan, ten
# times at -j4 (the scan once read a map the reader was growing: a segfault)
awk 'BEGIN { srand(41); for (r = 0; r < 30000; r++) { k = int(rand() * 20); s = "";
             for (i = 0; i < k; i++) s = s (i ? ", " : "") int(rand() * 110);
             print "{\"label\": [" s "]}" } }' >"$d/seg.jsonl"
run -j1 --json --max-report 100000 --vocab-size 100 "$d/seg.jsonl"
cp "$d/out" "$d/seg-j1.json"
same=0
for i in 1 2 3 4 5 6 7 8 9 10; do
    run -j4 --json --max-report 100000 --vocab-size 100 "$d/seg.jsonl"
    [ "$rc" -eq 1 ] && cmp -s "$d/out" "$d/seg-j1.json" && same=$((same + 1))
done
[ "$same" -eq 10 ]
ok $? "lists of many bad ids at -j4: $same of 10 runs as at -j1"

# ---- the label key: -c, else the default names (label before y, as csv and Arrow)
printf '{"category": "cat", "y": 4, "label": 1}\n{"category": "dog", "y": 4, "label": 0}\n' >"$d/names.jsonl"
run -n 2 "$d/names.jsonl"
expect_out 'column "label", int64, 2 labels' "label wins over y and category, wherever it stands"
run -n 5 -c y "$d/names.jsonl"
expect_out 'column "y", int64, 2 labels' "-c names the key, and the .jsonl name still says jsonl"
run -n 2 -c nope "$d/names.jsonl"
expect_status 3 "-c names no key"
expect_err 'no record has the key "nope" (line 1.s keys: category, y, label)' "-c nope: the keys named"
printf '{"a": 1, "b": 2}\n' >"$d/nolabel.jsonl"
run "$d/nolabel.jsonl"
expect_status 3 "no label key among several"
expect_err "line 1: no label key (the keys are a, b): name it with -c" "no label key: the keys named"
printf '{"label": 1, "label": 2}\n' >"$d/twice.jsonl"
run --json -n 2 "$d/twice.jsonl"
expect_json '.files[0].max' 2 "a key given twice: the last counts, as Python's json keeps it"
run -n 10 - <"$j/pd-int.jsonl"
expect_status 3 "standard input: no name, so no format"
run -n 10 --format=jsonl - <"$j/pd-int.jsonl"
expect_out '-: jsonl, column "label", int64, 300 labels' "--format=jsonl reads standard input"

# ---- lines that are no records: exit 3, the line named
refuse() {   # refuse BYTES MESSAGE DESCRIPTION
    printf "$1" >"$d/bad.jsonl"
    run -n 3 "$d/bad.jsonl"
    expect_status 3 "$3"
    expect_err "bad.jsonl: $2" "$3: the line named"
}
refuse '{"label": 1}\n{"label": 2} {"label": 3}\n' 'line 2: more than one JSON value on the line' \
    "two records on a line"
refuse '{"label": 1}\n{"label":\n 2}\n' 'line 2: the object does not end on its line' \
    "a record over two lines"
refuse '{"label": 1}\n\n[1, 2]\n' 'line 3: not a JSON object but an array' "an array line"
refuse '{"label": 1}\n7' 'line 2: not a JSON object but a number' "a number line without a newline"
refuse '{"label": 1}\n{"label": tru}\n' 'line 2: not valid JSON' "a bad literal"
refuse '{"label": [1, 2\n' 'line 1: the object does not end on its line' "a cut list"

# ---- bad entries at their records' lines: blank lines are no records, and a
# list record is one sample of several items, so record, index and line differ
printf '{"label": 1}\n\n{"label": 9}\n  \t\n{"label": [0, 7, 2]}\n{"label": null}\n\n{"label": 8}' \
    >"$d/lines.jsonl"
run -n 3 "$d/lines.jsonl"
expect_out '^      value 9, [^:]*: record 1 (line 3)' "a scalar record: its number and line, as csv's row 17 (line 19)"
expect_out '^      value 7, [^:]*: index 3 (record 2, line 5)' "a list's item: its index, its record and line"
expect_out '^      value "null", [^:]*: index 5 (record 3, line 6)' "after a list: record and line, not the index"
expect_out '^      value 8, [^:]*: index 6 (record 4, line 8)' "a last line without its newline"
run -n 3 --sarif="$d/lines.sarif" "$d/lines.jsonl"
got=$(jq -r '[.runs[0].results[] | select(.locations[0].physicalLocation.region)
              | "\(.locations[0].physicalLocation.region.startLine) \(.message.text)"] | join("|")' \
      "$d/lines.sarif")
want='3 label 9 outside [0, 3)|5 index 3: label 7 outside [0, 3)|6 index 5: cell "null" is not a number|8 index 6: label 8 outside [0, 3)'
[ "$got" = "$want" ]
ok $? "--sarif: each bad entry at its record's line"
[ "$got" = "$want" ] || { echo "# got:  $got"; echo "# want: $want"; }
run -n 3 --annotations=github "$d/lines.jsonl"
expect_out '^::error file=[^,]*lines.jsonl,line=3,title=out-of-range::.*%0A  value 9, [^:]*: record 1 (line 3)%0A  value 7, [^:]*: index 3 (record 2, line 5)%0A' \
    "--annotations=github: at the first entry's line, the entries by record and line"
gzip -c "$d/lines.jsonl" >"$d/lines.jsonl.gz"
run -n 3 "$d/lines.jsonl.gz"
expect_out '^      value 7, [^:]*: index 3 (record 2, line 5)' "gzip: the lines of the decompressed file"
run -n 3 --format=jsonl - <"$d/lines.jsonl"
expect_out '^      value 7, [^:]*: index 3 (sample 2)' "standard input, not read again: no lines"
printf '{"data": [{"label": 1},\n\n  {"label": 9}, {"label": 7}]}\n' >"$d/lines.json"
run -n 3 --format=jsonl --field=data --sarif="$d/lines.sarif" "$d/lines.json"
expect_out '^      value 9, [^:]*: index 1' "--field: records may share and span lines, so none is named"
[ "$(jq '[.runs[0].results[].locations[0].physicalLocation.region // empty] | length' \
      "$d/lines.sarif")" = 0 ]
ok $? "--field: --sarif names no line"

# ---- --field: one document, its records under a key (load_dataset("json", field=...))
run "$j/ds-field.json"
expect_status 3 "a .json document without --format: no format of its own"
expect_err "for JSON Lines or records under a key --format=jsonl (with --field=KEY)" \
    "a .json document: the refusal says how jsonl reads it"
run --json -n 4 --field=data "$j/ds-field.json"
expect_json '[.files[0].format, .files[0].samples] | map(tostring) | join(" ")' "jsonl 240" \
    "--field alone names jsonl, as --dtype names raw: the document's 240 records"
run -v -n 4 --field=data "$j/ds-field.json"
expect_err "format jsonl (an option that only its reader reads implies it" "-v says why it is jsonl"
# refuse_field BYTES FIELD MESSAGE DESCRIPTION : --field=FIELD on the document BYTES
refuse_field() {
    printf "$1" >"$d/f.json"
    run --format=jsonl --field="$2" "$d/f.json"
    expect_status 3 "$4"
    expect_err "f.json: $3" "$4: named"
}
refuse_field '{"version": 1, "data": {"label": 1}}' data \
    'line 1: "data" is not an array but an object' "--field names an object"
refuse_field '{"version": 1,\n "data": [{"label": 1},\n  3]}' data \
    'line 3: "data"\[1\] is not an object but a number' "--field: a record that is no object"
refuse_field '{"version": 1,\n "data": [{"label": 1},\n  3]}' rows \
    'no key "rows" in the document.s object (its keys: version, data)' "--field names no key"
refuse_field '[{"label": 1}]' data \
    'line 1: the document is not a JSON object but an array' "--field on an array"

echo "# --- a UTF-8 BOM, lone-CR line ends: read as pyarrow.json (load_dataset(\"json\")) reads them"
for f in bom cr; do
    lr="$data/lib-reads/$f.jsonl"
    want=$(awk '/^labels/ { min = $2; max = $2; for (i = 2; i <= NF; i++) { if ($i < min) min = $i; if ($i > max) max = $i }; print NF - 1, min, max }' "$lr.truth")
    run --json -n 9 "$lr"
    expect_status 0 "$f.jsonl is read, not refused"
    expect_json '[.files[0].count, .files[0].min, .files[0].max] | join(" ")' "$want" \
        "$f.jsonl: the count and range pyarrow.json read"
done
run --json -n 3 "$data/lib-reads/bom.jsonl"
expect_json '[.files[0].bad[] | "\(.sample)=\(.value)"] | join(",")' "2=7" "bom.jsonl: the 7 is record 2"
run --json -n 3 "$data/lib-reads/cr.jsonl"
expect_json '[.files[0].bad[] | "\(.sample)=\(.value)"] | join(",")' "2=7" \
    "cr.jsonl: CR LF is one line end, CR alone another: the 7 is record 2"


echo "# --- NaN, Infinity, -Infinity as json.dumps writes them: floats, as pyarrow.json, load_dataset(\"json\") and pandas read them"
for f in nan nan-list; do
    lr="$data/lib-reads/$f.jsonl"
    run --json -n 3 "$lr"
    expect_status 1 "$f.jsonl is read, not refused: its non-finite labels are errors"
    want=$(awk '/^count/ { c = $2 } /^non_finite/ { $1 = ""; sub(/^ /, ""); gsub(/ /, ","); nf = $0 }
                END { print c, "float64", nf }' "$lr.truth")
    expect_json '[.files[0].count, .files[0].dtype, ([.files[0].bad[] | select(.value | tostring | test("nan|inf")) | .index] | map(tostring) | join(","))] | map(tostring) | join(" ")' \
        "$want" "$f.jsonl: the count, float64 and the non-finite items the libraries read"
    expect_json '[.files[0].findings[].code] | index("non-finite") != null' true \
        "$f.jsonl: a NaN or infinite label is the non-finite finding, as a csv nan is"
done
run -n 3 "$data/lib-reads/nan.jsonl"
expect_out '^      value inf, [^:]*: record 3 (line 4)' "Infinity: record 3 at line 4, a text NaN in another key left alone"
expect_out '^      value -inf, [^:]*: record 4 (line 5)' "-Infinity: record 4 at line 5"

# a literal cut by the end of a 1 MiB block, read whole (plain and gzip)
awk 'BEGIN { printf "{\"label\": ["; for (i = 0; i < 349521; i++) printf "0, ";
             print "Infinity, 1]}"; print "{\"label\": -Infinity}" }' >"$d/cut.jsonl"
[ "$(head -c 1048576 "$d/cut.jsonl" | tail -c 4)" = ", In" ]
ok $? "cut.jsonl: its Infinity straddles byte 2^20"
gzip -c "$d/cut.jsonl" >"$d/cut.jsonl.gz"
for f in cut.jsonl cut.jsonl.gz; do
    run --json -n 2 "$d/$f"
    expect_json '[.files[0].count, .files[0].invalid.non_finite, ([.files[0].bad[].value] | join(","))] | map(tostring) | join(" ")' \
        "349524 2 inf,-inf" "$f: a literal across blocks read whole"
done

# what looks like a literal and is none: exit 3, its line and byte named
refuse '{"label": 1}\n{"label": Nan}\n' 'line 2, byte 25: "Na" then .n. is not JSON' "Nan"
refuse '{"label": [1, Infinit]}\n' 'line 1, byte 21: "Infinit" then .\]. is not JSON' "Infinit"
refuse '{"label": NaNx}\n' 'line 1, byte 13: "NaN" then .x. is not JSON' "NaNx"
refuse '{"label": -NaN}\n' 'line 1, byte 11: -NaN is not JSON (pyarrow reads it, pandas' \
    "-NaN (pandas and json.loads refuse it)"
refuse '{"label": Inf}\n' 'line 1, byte 13: "Inf" then .}. is not JSON' "Inf (pyarrow alone reads it)"
refuse '{"label": 1}\n{"label": Na' 'line 2, byte 25: "Na" then the line.s end is not JSON' \
    "a literal the file cuts short"
refuse '{"label": +Infinity}\n' 'line 1: not valid JSON' "+Infinity (no library reads it)"

finish
