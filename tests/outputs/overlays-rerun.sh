#!/bin/sh
# overlays-rerun.sh - the same --overlays command run twice exits as the
# first run did: an overlay already there with the same bytes is the first
# run's, kept silently; one with other bytes is never replaced and is a usage
# error (exit 2) naming --overlays and the file, not an unreadable input.
. "$srcdir/tests/setup.sh"
s="$srcdir/samples"
if absent_feature "$s/voc-masks" >/dev/null; then
    echo "ok 1 # SKIP --overlays: built without $(absent_feature "$s/voc-masks")"
    echo "1..1"
    exit 0
fi
run -n 21 --overlays="$d/ov" "$s/voc-masks"
expect_status 1 "the first run: the masks' findings"
ls "$d/ov" >"$d/first"
cp -r "$d/ov" "$d/ov-first"
run -n 21 --overlays="$d/ov" "$s/voc-masks"
expect_status 1 "the second run of the same command exits as the first"
[ ! -s "$d/err" ]
ok $? "... and says nothing of the overlays it finds there, same bytes"
ls "$d/ov" | cmp -s - "$d/first" && diff -r "$d/ov" "$d/ov-first" >/dev/null
ok $? "... and leaves them as they were"
printf 'other bytes' >"$d/ov/2007_000039.png"
run -n 21 --overlays="$d/ov" "$s/voc-masks"
expect_status 2 "an overlay there with other bytes: a usage error"
expect_err "^labelaudit: --overlays: $d/ov/2007_000039.png exists and differs: not overwritten" \
    "... naming --overlays and the file"
[ "$(grep -c 'exists' "$d/err")" -eq 1 ]
ok $? "... only that file is said (the others are the first run's)"
[ "$(cat "$d/ov/2007_000039.png")" = "other bytes" ]
ok $? "... and it is not replaced"
cp "$d/ov-first/2007_000039.png" "$d/ov/2007_000039.png"
head -c 100 "$d/ov-first/2007_000032.png" >"$d/ov/2007_000032.png"
run -n 21 --overlays="$d/ov" "$s/voc-masks"
expect_status 2 "an overlay cut short (the first bytes only) differs too"
finish
