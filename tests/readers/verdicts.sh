# verdicts.sh - sourced by the column tests (columns.sh and its JSON Lines
# and CSV twins): the rows a report calls errors, and the loop that holds
# them to transformers' verdicts (tests/data/columns/verdicts.txt) for each
# fixture file in one format. Needs setup.sh's run, ok, expect_status, $d.

# The rows a report calls errors: a bad value in a column the model indexes
# (attention_mask's values only warn), a row past a hard position limit or
# of another length than its partner, a bad label (bad_sample_list holds
# numbers, or objects with a sample, as the reader's rows are kept).
cat >"$d/rows.jq" <<'JQ'
.files[0] as $f
| ([$f.findings[]? | select(.code == "seq-too-long") | .severity] | first // "none") as $long
| [ ($f.columns // [])[] | select(.name != "attention_mask") | .bad[].sample ]
  + [ ($f.lengths.bad // [])[] | select(.kind != "too-long" or $long == "error") | .sample ]
  + [ ($f.bad_sample_list // [])[] | (.sample? // .) ]
| unique | map(tostring) | join(" ")
JQ

# check_verdicts DIR EXT: each fixture DIR/FILE.EXT of verdicts.txt, audited
# with its family's model: its error rows are the rows whose forward pass
# raised, and the exit status says so.
check_verdicts() {
    for file in $(awk '!/^#/ { print $1 }' "$c/verdicts.txt" | uniq); do
        family=${file%-extra}
        want=$(awk -v f="$file" '$1 == f && $3 != "ok" { printf "%s%s", s, $2; s = " " }' \
               "$c/verdicts.txt")
        run --json --model "$c/$family" "$1/$file.$2"
        got=$(jq -r -f "$d/rows.jq" "$d/out")
        [ "$got" = "$want" ]
        ok $? "$file.$2: error rows [$got] are the rows transformers raised on"
        [ "$got" = "$want" ] || { echo "# want: [$want]"; sed 's/^/# err: /' "$d/err" | head -3; }
        if [ -n "$want" ]; then expect_status 1 "$file.$2: exit 1"
        else expect_status 0 "$file.$2: exit 0"; fi
    done
}
