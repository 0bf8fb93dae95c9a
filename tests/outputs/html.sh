#!/bin/sh
# html.sh - --html=FILE and --overlays=DIR: the page a person opens and the
# PNGs beside the masks.
#  - the overlays decode (through labelaudit's own PNG reader) and mark
#    exactly the bad pixels PIL counts (tests/data/html-bad-255.txt, made by
#    tests/gen/gen_html_truth.py); they are named after the masks and never
#    replace a file;
#  - the page is self-contained (no script, nothing fetched) and escapes
#    names from the input;
#  - in a real browser (headless Chromium, where installed; skipped and said
#    so where not; headless Chromium itself needs scripting on, and the page's
#    policy blocks every script, so what it shows is the page without one): it renders to a screenshot, and its DOM
#    has one histogram bar per class, the missing classes and the
#    out-of-range value marked, and a thumbnail of each bad mask, which
#    decodes and marks its bad pixels.
. "$srcdir/tests/setup.sh"
s="$srcdir/samples"
truth="$srcdir/tests/data/html-bad-255.txt"

formats=$("$LABELAUDIT" --version | sed -n 's/^Formats: \([^(]*\).*/\1/p')
case " $formats " in
*" png "*) has_png=1 ;;
*) has_png=0 ;;
esac

# magenta FILE.png : how many pixels of an overlay or thumbnail are bad (index
# 255), as labelaudit reads its indices (-n 255: only 255 is out of range)
magenta() {
    "$LABELAUDIT" --json -n 255 --format=png "$1" | jq -r '.files[0].invalid.above'
}
png_size() {   # png_size FILE.png : WxH
    "$LABELAUDIT" --json --format=png "$1" | jq -r '.files[0].shape | "\(.[1])x\(.[0])"'
}

# ---- --overlays ------------------------------------------------------------------
if [ $has_png -eq 1 ]; then
    run -n 21 --overlays="$d/ov" "$s/voc-masks"
    expect_status 1 "--overlays on the VOC masks (their findings: exit 1)"
    while read -r name bad size; do
        case $name in 2007_*) ;; *) continue ;; esac
        [ -f "$d/ov/$name" ] && [ "$(magenta "$d/ov/$name")" = "$bad" ] &&
            [ "$(png_size "$d/ov/$name")" = "$size" ]
        ok $? "overlay $name: $size, its $bad bad pixels (PIL's count of 255) marked"
    done <"$truth"
    [ "$(ls "$d/ov" | wc -l)" -eq 4 ]
    ok $? "one overlay per bad mask, nothing else"
    cp "$d/ov/2007_000039.png" "$d/keep.png"
    echo "mine" >"$d/ov/2007_000032.png"
    run -n 21 --overlays="$d/ov" "$s/voc-masks"
    expect_status 2 "--overlays where a file of other bytes exists: a usage error"
    expect_err "--overlays: $d/ov/2007_000032.png exists and differs: not overwritten" \
        "--overlays: an existing file is said"
    [ "$(cat "$d/ov/2007_000032.png")" = mine ] && cmp -s "$d/keep.png" "$d/ov/2007_000039.png"
    ok $? "--overlays never replaces a file"
    run -n 4 --max-report 3 --overlays="$d/ov-npy" "$s/masks.npy"
    [ "$(ls "$d/ov-npy" | tr '\n' ' ')" = "masks-sample-0.png masks-sample-1.png masks-sample-2.png " ]
    ok $? "an array of masks: one overlay per bad sample, --max-report of them, named after the file"
    # a/b.png and a_b.png both flatten to a_b.png, two reports' masks share a
    # name: each gets its own file, a file name keeps its own, -v says which is which
    mkdir -p "$d/flat/a" "$d/flat2"
    cp "$s/voc-masks/2007_000032.png" "$d/flat/a/b.png"
    cp "$s/voc-masks/2007_000039.png" "$d/flat/a_b.png"
    cp "$s/voc-masks/2007_000063.png" "$d/flat/a_b-2.png"
    cp "$s/voc-masks/2007_000129.png" "$d/flat2/a_b.png"
    run -v -n 21 --overlays="$d/ov-flat" "$d/flat" "$d/flat2"
    expect_status 1 "--overlays of masks whose names flatten alike: no clash with its own files"
    [ "$(ls "$d/ov-flat" | tr '\n' ' ')" = "a_b-2.png a_b-3.png a_b-4.png a_b.png " ]
    ok $? "... one overlay per mask, a suffix where the name was taken"
    for case in "flat/a_b.png a_b.png 2007_000039" "flat/a_b-2.png a_b-2.png 2007_000063" \
                "flat2/a_b.png a_b-3.png 2007_000129" "flat/a/b.png a_b-4.png 2007_000032"; do
        set -- $case
        bad=$(awk -v n="$3.png" '$1 == n { print $2 }' "$truth")
        grep -qx "labelaudit: $d/$1: overlay $d/ov-flat/$2" "$d/err" &&
            [ "$(magenta "$d/ov-flat/$2")" = "$bad" ]
        ok $? "... $1 is $2, as -v says (its $bad bad pixels)"
    done
    run -n 4 --overlays="$s/clean-10.csv" "$s/masks.npy"
    expect_status 3 "--overlays naming a file, not a folder"
    run -n 21 --overlays="$d/ov-clean" "$s/clean-10.csv"
    [ ! -e "$d/ov-clean" ] || [ -z "$(ls "$d/ov-clean")" ]
    ok $? "no overlay for labels that are not masks"
else
    echo "ok $((n_tests += 1)) # SKIP --overlays: built without libspng"
fi

# ---- --html: the page itself -------------------------------------------------------
run -n 21 --html="$s/stray-10.csv" "$s/stray-10.csv"
expect_status 2 "--html naming an input is refused"
odd="$d/<i>a&b\".csv"
printf '0\n7\n' >"$odd"
run -n 3 --html="$d/odd.html" "$odd"
grep -qF '&lt;i&gt;a&amp;b&quot;.csv' "$d/odd.html" && ! grep -q '<i>' "$d/odd.html"
ok $? "--html escapes a file name"

# ---- --html: what each finding names, the chart (no browser needed) -------------
# a finding lists its first rows and their lines, files and lines, records
run -n 10 --html="$d/csv.html" "$s/stray-10.csv"
grep -q '<li>value 10, 3 times: row 17 (line 19), row 230 (line 232), row 1000 (line 1002)</li>' \
    "$d/csv.html"
ok $? "--html: a CSV's bad rows with their lines, by distinct value"
run --format=yolo -n 3 --html="$d/yolo.html" "$s/yolo-labels"
grep -q '<li>value 5, once: index 4, [^<]*yolo-labels/000003.txt line 1</li>' "$d/yolo.html" &&
    grep -q '<li>[^<]*yolo-labels/000003.txt line 2: cx 1.02' "$d/yolo.html"
ok $? "--html: YOLO's files and lines, the reader's own findings too"
run --format=coco --html="$d/coco.html" "$s/coco-instances.json"
grep -q '<li>annotation 2 (id 103, image_id 2): bbox \[50, 60, 0, 40\]' "$d/coco.html" &&
    grep -q '<title>class 1 (person): 2</title>' "$d/coco.html" &&
    grep -q '<tr><td class="n">1</td><td>person</td><td class="n">2</td></tr>' "$d/coco.html"
ok $? "--html: COCO's annotations, and the class names (chart and table)"
run --html="$d/tokens.html" "$s/hf-tokens"
grep -q '<li>value 9, once: index 440 (sample 41)</li>' "$d/tokens.html"
ok $? "--html: a token dataset's bad id, its index and sample (row)"
# every bar visible: 100000 of class 0 beside 3 of class 1 and one stray 7
{ echo label; seq 100000 | sed 's/.*/0/'; printf '1\n1\n1\n2\n7\n'; } >"$d/imb.csv"
run -n 5 --html="$d/imb.html" "$d/imb.csv"
grep -q '<figure class="histogram" data-scale="log"' "$d/imb.html" &&
    grep -q 'logarithmic scale' "$d/imb.html"
ok $? "--html: counts 30000 times apart: a logarithmic scale, said in the caption"
grep -o '<rect class="[a-z -]*" data-[a-z]*="[0-9-]*" data-count="[1-9][0-9]*"[^>]*height="[0-9.]*"' \
    "$d/imb.html" | sed 's/.*height="//; s/"//' >"$d/heights"
[ "$(wc -l <"$d/heights")" -eq 4 ] && awk '$1 < 3 { exit 1 }' "$d/heights"
ok $? "--html: each of the 4 bars at least 3 high ($(tr '\n' ' ' <"$d/heights"))"
r=0
for c in 100000 3 1; do
    grep -q "<text class=\"count\"[^>]*>$c</text>" "$d/imb.html" || r=1
done
ok $r "--html: each bar's count printed over it"
grep -q '<text class="tick"[^>]*>10000</text>' "$d/imb.html"
ok $? "--html: a count axis with its numbers"
! grep -q 'break-all' "$d/imb.html" && ! grep -q 'max-width:60em' "$d/imb.html"
ok $? "--html: captions break between words; the page is not held to 60em"
# 1000 classes: every label inside the chart, apart from the stray value's
awk 'BEGIN { srand(1); print "label"; for (i = 0; i < 20000; i++) print int(rand() * 1000); print 1000 }' \
    >"$d/c1000.csv"
run -n 1000 --html="$d/c1000.html" "$d/c1000.csv"
vw=$(sed -n 's/.*<figure class="histogram"[^>]*><svg [^>]*viewBox="0 0 \([0-9]*\) .*/\1/p' "$d/c1000.html")
grep -o '<text class="label" x="[0-9.]*"[^>]*>[0-9]*<' "$d/c1000.html" |
    sed 's/.*x="\([0-9.]*\)".*>\([0-9]*\)</\1 \2/' >"$d/labels"
[ -n "$vw" ] && [ "$(wc -l <"$d/labels")" -ge 10 ] &&
    awk -v w="$vw" '{ half = length($2) * 3.5; if ($1 - half < 0 || $1 + half > w) exit 1 }
        NR > 1 && $1 - px < (length($2) + length(pl)) * 3.5 { exit 1 } { px = $1; pl = $2 }' "$d/labels"
ok $? "--html: 1000 classes: $(wc -l <"$d/labels") labels, none clipped, none overlapping"

if [ $has_png -eq 0 ]; then   # the page's masks: the VOC PNGs
    echo "ok $((n_tests += 1)) # SKIP --html on masks: built without libspng"
    finish
    exit
fi
page="$d/report.html"
run -n 21 -b 3 --html="$page" "$s/voc-masks" "$s/stray-10.csv"
expect_status 1 "--html on masks and a CSV"
[ -s "$page" ] && ! grep -qi '<script\|<link\|src="http\|href="http\|url(' "$page"
ok $? "--html: no script, nothing fetched from anywhere"
"$LABELAUDIT" --json -n 21 -b 3 "$s/voc-masks" "$s/stray-10.csv" >"$d/plain.json"
"$LABELAUDIT" --json -n 21 -b 3 --html="$d/j.html" --overlays="$d/ov-j" "$s/voc-masks" \
    "$s/stray-10.csv" >"$d/with.json"
cmp -s "$d/plain.json" "$d/with.json" && [ -s "$d/j.html" ]
ok $? "--html and --overlays leave the JSON byte for byte as it is"
grep -q "default-src 'none'" "$page"
ok $? "--html: its content security policy forbids loading anything"
# ---- --html in a browser -----------------------------------------------------------------
browser=
for b in chromium chromium-browser google-chrome; do
    command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
done
if [ -z "$browser" ]; then
    echo "ok $((n_tests += 1)) # SKIP the page in a browser: Chromium is not installed (apt-get install chromium)"
    finish
    exit
fi
# Root (in CI containers) needs --no-sandbox; a fresh profile in $d
chrome() {
    HOME="$d" timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$d/profile" "$@" 2>>"$d/chrome.err"
}
chrome --screenshot="$d/shot.png" --window-size=1000,1600 "file://$page" >/dev/null
[ -s "$d/shot.png" ] && [ "$(head -c 8 "$d/shot.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]
ok $? "$browser renders the page to a screenshot"
chrome --dump-dom "file://$page" >"$d/dom.html"
[ -s "$d/dom.html" ]
ok $? "$browser gives the page's DOM"
# the first file's section: the masks, -n 21
sed -n '/<section class="file" id="file-1">/,/<\/section>/p' "$d/dom.html" >"$d/dom1"
bars=$(grep -o '<rect class="bar[" ]' "$d/dom1" | wc -l)
[ "$bars" -eq 21 ]
ok $? "the histogram has one bar per class ($bars of 21)"
run --json -n 21 "$s/voc-masks"
missing=$(jqf '.files[0].missing_classes | length')
[ "$(grep -o '<rect class="bar missing"' "$d/dom1" | wc -l)" -eq "$missing" ]
ok $? "each of the $missing missing classes is marked"
grep -q '<rect class="out-of-range" data-value="255"' "$d/dom1"
ok $? "the out-of-range value 255 has its marked bar"
thumbs=$(grep -o '<img class="thumbnail"' "$d/dom1" | wc -l)
[ "$thumbs" -eq "$(jqf '.files[0].bad_samples')" ] && [ "$thumbs" -eq 4 ]
ok $? "each bad mask has its thumbnail ($thumbs)"
sed -n '/<section class="file" id="file-2">/,/<\/section>/p' "$d/dom.html" >"$d/dom2"
grep -q '<rect class="bar' "$d/dom2" && ! grep -q '<img' "$d/dom2"
ok $? "the CSV's section: its histogram, no thumbnails"
grep -q '<rect class="last-batch-fill"' "$d/dom1"
ok $? "-b 3: the last batch is drawn"
# each thumbnail decodes and marks the image's bad pixels (64 x 48: drawn 1:1)
grep -o 'data-path="[^"]*" data-bad="[0-9]*"><img[^>]*src="data:image/png;base64,[^"]*"' \
    "$d/dom1" >"$d/figs"
i=0
while IFS= read -r fig; do
    i=$((i + 1))
    name=$(printf '%s\n' "$fig" | sed 's|.*data-path="[^"]*/\([^"/]*\)".*|\1|')
    printf '%s\n' "$fig" | sed 's|.*base64,||; s|"$||' | base64 -d >"$d/thumb$i.png"
    want=$(awk -v n="$name" '$1 == n { print $2 }' "$truth")
    [ -n "$want" ] && [ "$(magenta "$d/thumb$i.png")" = "$want" ]
    ok $? "thumbnail of $name: decodes, its $want bad pixels marked"
done <"$d/figs"
[ $i -eq 4 ]
ok $? "four thumbnails checked"
# a 1280 px window: the page uses its width, every bar is seen in the
# screenshot's pixels (tests/outputs/png_colours reads them), and the DOM
# the browser built has the rows, names, counts and bars of the page
colours="$builddir/tests/outputs/png_colours"
chrome --screenshot="$d/imb.png" --window-size=1280,900 "file://$d/imb.html" >/dev/null
if [ -x "$colours" ] && "$colours" "$d/imb.png" 33aa77 dd00dd dd0000 >"$d/px"; then
    sed 's/^/# /' "$d/px"
    green=$(sed -n '/^33aa77/{n;p;}' "$d/px"); magenta=$(sed -n '/^dd00dd/{n;p;}' "$d/px")
    red=$(sed -n '/^dd0000/{n;p;}' "$d/px")
    case "$green $magenta $red" in
    "bars 3 "*" bars 1 "*" bars 2 "*) r=0 ;;
    *) r=1 ;;
    esac
    [ $r -eq 0 ] && echo "$green $magenta" | tr ' ' '\n' | grep : | awk -F: '$2 < 3 { exit 1 }'
    ok $? "the screenshot: 3 green bars, the stray value's magenta one, 2 red stubs, each 3 px or more"
    [ "$(awk '/^33aa77/ { print $4 }' "$d/px")" -gt 500 ] && [ "$(awk '/^dd00dd/ { print $4 }' "$d/px")" -gt 1000 ]
    ok $? "the screenshot: the chart spans the 1280 px window (its last bar past x 1000)"
else
    echo "ok $((n_tests += 1)) # SKIP the screenshot's pixels: no png_colours (built without libspng)"
fi
chrome --dump-dom --window-size=1280,900 "file://$d/coco.html" >"$d/coco-dom.html"
grep -q '<li>annotation 2 (id 103, image_id 2)' "$d/coco-dom.html" &&
    grep -q '<td>person</td>' "$d/coco-dom.html"
ok $? "the DOM: COCO's annotations, the class names"
chrome --dump-dom --window-size=1280,900 "file://$d/imb.html" >"$d/imb-dom.html"
grep -o '<rect class="[a-z -]*" data-[a-z]*="[0-9-]*" data-count="[1-9][0-9]*"[^>]*height="[0-9.]*"' \
    "$d/imb-dom.html" | sed 's/.*height="//; s/"//' | awk '$1 >= 3 { n++ } END { exit n != 4 }' &&
    [ "$(grep -o '<text class="count"' "$d/imb-dom.html" | wc -l)" -eq 4 ]
ok $? "the DOM: 4 bars, each at least 3 high, each with its count"
# a large mask is shown downscaled, its thin 255 outlines kept
run -n 21 --html="$d/big.html" "$srcdir/tests/data/masks/voc512.png"
chrome --dump-dom "file://$d/big.html" >"$d/big-dom.html"
grep -o 'base64,[^"]*' "$d/big-dom.html" | sed 's|base64,||' | base64 -d >"$d/big.png"
[ "$(png_size "$d/big.png")" = 171x171 ] && [ "$(magenta "$d/big.png")" -gt 0 ]
ok $? "a 512 x 512 mask: a 171 x 171 thumbnail (at most 192 a side), its bad pixels still marked"
finish
