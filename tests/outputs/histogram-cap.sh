#!/bin/sh
# histogram-cap.sh - a histogram of many classes is printed in
# memory proportional to the report (--json -n 1048576 on a 2-line file took
# 245 MB: a cJSON item per bin), and above the SPEC's cap of 1,048,576
# classes the text report says that missing classes were not checked.
# Peak RSS is measured with /usr/bin/time -v where it exists.
. "$srcdir/tests/setup.sh"
printf '0\n1\n' >"$d/two.txt"

# The JSON document alone is 11 MB; ASan's shadow and quarantine need more.
if grep -q __asan_init "$LABELAUDIT" 2>/dev/null; then max_kb=786432; else max_kb=98304; fi
if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
    /usr/bin/time -v -o "$d/time" "$LABELAUDIT" --json -n 1048576 "$d/two.txt" >"$d/out" 2>"$d/err"
    rc=$?
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$d/time")
    [ -n "$kb" ] && [ "$kb" -le "$max_kb" ]
    ok $? "--json -n 1048576: peak RSS ${kb:-?} KiB <= ${max_kb} KiB"
else
    "$LABELAUDIT" --json -n 1048576 "$d/two.txt" >"$d/out" 2>"$d/err"
    rc=$?
    echo "ok $((n_tests += 1)) # SKIP peak RSS: no /usr/bin/time (Debian package time)"
fi
expect_status 0 "-n 1048576: missing classes are a warning"
expect_json '.files[0].histogram | length' "1048576" "the histogram has every class"
expect_json '.files[0].histogram[0:3] | map(tostring) | join(",")' "1,1,0" "and their counts"
expect_json '.files[0].missing_classes | length' "1048574" "every missing class is listed"
expect_json '.files[0].missing_classes[0:2] | map(tostring) | join(",")' "2,3" \
    "from the first missing one"
expect_json '.files[0].missing_classes[-1]' "1048575" "to the last"
expect_json '[.files[0].findings[].code] | join(",")' "missing-classes" "the finding is there"

echo "# --- above the cap: no histogram, and the text report says what was skipped"
run --json -n 1048577 "$d/two.txt"
expect_json '.files[0].histogram' "null" "-n 1048577: histogram null (SPEC)"
expect_json '.files[0].missing_classes' "null" "-n 1048577: missing_classes null"
run -n 1048577 "$d/two.txt"
expect_out "classes: -n 1048577 is above 1048576: no histogram, and missing classes were not checked" \
    "the text report says missing classes were not checked"
run -n 1048576 "$d/two.txt"
grep -q "were not checked" "$d/out"
[ $? -ne 0 ]
ok $? "-n 1048576 (at the cap) is checked"
finish
