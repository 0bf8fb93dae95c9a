#!/bin/sh
# docs.sh - the documentation cannot drift from the binary:
#  1. every long option --help prints is documented in the man page, and every
#     option the man page documents is in --help (an option added to one and
#     not the other fails here, not in a user's terminal);
#  2. every command in the man page's EXAMPLES section runs, on stand-in files
#     made from samples/, and exits as the example says (0 or 1: never a usage
#     error or an unreadable file; "exits 0" where its comment says so);
#  3. every finding code has its row in src/findings.c's table, with the
#     severity the SPEC gives it (tests/data/spec-codes.txt, copied from the
#     SPEC's tables), and its entry in the man page; the codes the SPEC plans
#     are not in the table yet (one added there must come with its docs).
. "$srcdir/tests/setup.sh"
man="$srcdir/man/labelaudit.1"

# --- 1. --help and the man page list the same long options
"$LABELAUDIT" --help >"$d/help"
ok $? "--help runs"
grep -o -e '--[a-z][a-z-]*' "$d/help" | sort -u >"$d/help.opts"
# In roff the man page writes --num-classes as \-\-num\-classes, in .BR/.TP lines.
sed -n '/^\.SH OPTIONS/,/^\.SH FINDINGS/p' "$man" | grep '^\.\(TP\|BR\|B\) \|^\.BR\? ' |
    sed 's/\\-/-/g' | grep -o -e '--[a-z][a-z-]*' | sort -u >"$d/man.opts"
[ -s "$d/help.opts" ] && [ -s "$d/man.opts" ]
ok $? "both lists of options are non-empty"
for opt in $(comm -23 "$d/help.opts" "$d/man.opts"); do
    ok 1 "$opt is in --help but not documented in the man page's OPTIONS"
done
for opt in $(comm -13 "$d/help.opts" "$d/man.opts"); do
    ok 1 "$opt is documented in the man page but missing from --help"
done
long=$(awk 'length($0) > 80' "$d/help")
[ -z "$long" ]
ok $? "no --help line is wider than 80 columns"
[ -z "$long" ] || printf '%s\n' "$long" | sed 's/^/# /'
n_common=$(comm -12 "$d/help.opts" "$d/man.opts" | wc -l)
[ "$n_common" -ge 20 ]
ok $? "--help and the man page agree on $n_common long options"

# --- 2. the man page's examples run
# Stand-ins for the file names the examples use, made from the bundled samples.
s="$srcdir/samples"
mkdir -p "$d/ex/data"
cp "$s/stray-10.csv" "$d/ex/train.csv"
cp "$s/clean-10.csv" "$d/ex/data/train.csv"
cp "$s/clean-10.csv" "$d/ex/data/val.csv"
cp "$s/stray-10.csv.gz" "$d/ex/train.csv.gz"
cp "$s/masks.npy" "$d/ex/masks.npy"
cp "$s/data.npz" "$d/ex/data.npz"
cp "$s/imagelabels.mat" "$s/targets.pt" "$d/ex/"
cp "$srcdir/tests/data/containers/h5-pcam-y.h5" "$d/ex/camelyonpatch_level_2_split_train_y.h5"
# an ImageFolder tree, a COCO file, a YOLO folder
mkdir -p "$d/ex/annotations" "$d/ex/datasets/coco8/labels"
cp -R "$s/flowers" "$d/ex/data/train"
cp "$s/coco-instances.json" "$d/ex/annotations/instances_train2017.json"
cp -R "$s/yolo-labels" "$d/ex/datasets/coco8/labels/train"
# a VOC mask, TIFF tiles, a BraTS volume
mkdir -p "$d/ex/VOC2012/SegmentationClass" "$d/ex/tiles"
cp "$s/voc-masks/2007_000032.png" "$d/ex/VOC2012/SegmentationClass/"
cp "$s/landcover-tile.tif" "$d/ex/tiles/"
cp "$s/brats/BraTS20_Training_001_seg.nii.gz" "$d/ex/"
# JSON Lines from pandas, a SQuAD-style document from `datasets`
cp "$srcdir/tests/data/jsonl/pd-int.jsonl" "$d/ex/train.jsonl"
cp "$srcdir/tests/data/jsonl/ds-field.json" "$d/ex/dev-v2.0.json"
# One command a line: the .nf/.fi blocks of EXAMPLES, roff escapes undone.
sed -n '/^\.SH EXAMPLES/,/^\.SH SEE ALSO/p' "$man" |
    awk '/^\.nf/ { on = 1; next } /^\.fi/ { on = 0; next } on' |
    sed -e 's/\\-/-/g' -e 's/\\(lq/"/g' -e 's/\\(rq/"/g' -e 's/\\e/\\/g' |
    sed -n 's/^[[:space:]]*labelaudit /labelaudit /p' >"$d/examples"
n=0
while IFS= read -r line; do
    n=$((n + 1))
    if missing=$(absent_feature "$line"); then
        echo "ok $((n_tests += 1)) - man example $n: $line # SKIP built without $missing"
        continue
    fi
    # $^ is make's list of prerequisites in the Makefile example
    cmd=$(printf '%s\n' "$line" | sed -e 's|\$^|data/train.csv data/val.csv|' \
        -e 's| && touch \$@||' -e 's/^labelaudit /"$LABELAUDIT" /' -e 's/| *jq /| jq /')
    (cd "$d/ex" && LABELAUDIT="$LABELAUDIT" sh -c "$cmd") >"$d/ex.out" 2>"$d/ex.err"
    st=$?
    case $line in
    *"exits 0"*) [ "$st" -eq 0 ] ;;
    *"|| {"*) [ "$st" -eq 0 ] || grep -q "fix the labels" "$d/ex.out" ;;
    *) [ "$st" -eq 0 ] || [ "$st" -eq 1 ] ;;
    esac
    ok $? "man example $n runs (exit $st): $line"
    [ -s "$d/ex.err" ] && sed 's/^/# err: /' "$d/ex.err" | head -3
done <"$d/examples"
[ "$n" -ge 5 ]
ok $? "the man page has $n example commands"
# a jq filter is quoted, as the README quotes it: an unquoted .files[0] is a
# shell glob (a file named .files0 in the folder, or zsh's "no matches found")
! grep -n '| *jq  *[^'"'"' -]' "$d/examples" | sed 's/^/# unquoted: /' | grep .
ok $? "the man page's jq filters are quoted, as the README's"
! grep -n '| *jq  *[^'"'"' -]' "$srcdir/README.md" | grep .
ok $? "... and the README's"

# --- 3. the finding codes: the table, the SPEC's list and the man page agree
# "code severity" of each row: [LA_F_X] = { "code", ERR|WARN, ...
sed -n 's/^ *\[LA_F_[A-Z_]*\] = { "\([a-z-]*\)", \(ERR\|WARN\|NOTICE\),.*/\1 \2/p' \
    "$srcdir/src/findings.c" | sed -e 's/ ERR$/ error/' -e 's/ WARN$/ warning/' -e 's/ NOTICE$/ notice/' |
    sort >"$d/table.codes"
n_enum=$(grep -o 'LA_F_[A-Z_]*' "$srcdir/src/findings.h" | grep -v '^LA_F_COUNT$' | sort -u |
    wc -l)
n_rows=$(wc -l <"$d/table.codes")
[ "$n_rows" -gt 0 ] && [ "$n_rows" -eq "$n_enum" ]
ok $? "findings.c's table has a row for each of the $n_enum codes of enum la_code ($n_rows)"
grep -v '^#' "$srcdir/tests/data/spec-codes.txt" | awk 'NF { print $1, $2, $3 }' >"$d/spec.codes"
while read -r code sev status; do
    case $status in
    spec | extra)
        grep -qx "$code $sev" "$d/table.codes"
        ok $? "$code ($status) is in the table as $sev" ;;
    planned)
        ! grep -q "^$code " "$d/table.codes"
        ok $? "$code is planned: not in the table until it has docs and moves to spec" ;;
    *) ok 1 "spec-codes.txt: $code has an unknown status '$status'" ;;
    esac
done <"$d/spec.codes"
sed 's/\\-/-/g' "$man" >"$d/man.txt"
while read -r code sev; do
    grep -q "^$code [a-z]* \(spec\|extra\)$" "$d/spec.codes"
    ok $? "$code is in spec-codes.txt (as the SPEC's or an extra)"
    grep -q -E "^\.BR? $code( |\$)|\\\\fB$code\\\\f" "$d/man.txt"
    ok $? "$code is documented in the man page"
    # the FINDINGS section's entries say the severity: .BR code " (error)"
    said=$(sed -n "s/^\.BR $code \" (\([a-z]*\))\"\$/\1/p" "$d/man.txt")
    [ -z "$said" ] || [ "$said" = "$sev" ]
    ok $? "$code's severity in the man page (${said:-not said}) is the table's ($sev)"
done <"$d/table.codes"
finish
