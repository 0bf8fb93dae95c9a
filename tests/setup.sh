# setup.sh - sourced by every shell test (jq's tests/setup idea).
# Gives: $LABELAUDIT (the binary), $srcdir, a scratch dir $d removed on exit,
# and small assertion helpers that count into TAP output.
set -u
LC_ALL=C
export LC_ALL
# Apache Arrow's jemalloc (pyarrow's libarrow) starts an idle purge thread at
# load; it is named only once running, so LABELAUDIT_THREAD_PEAK may count it
# before: the thread-budget checks ask it not to start.
JE_ARROW_MALLOC_CONF=background_thread:false
export JE_ARROW_MALLOC_CONF
: "${LABELAUDIT:?LABELAUDIT must name the binary (make check sets it)}"
: "${srcdir:=.}"
unset NO_COLOR LABELAUDIT_CSV_SLOW LABELAUDIT_GZIP_ZLIB
d=$(mktemp -d "${TMPDIR:-/tmp}/labelaudit-test.XXXXXX")
trap 'rm -rf "$d"' EXIT
data="$srcdir/tests/data"
n_tests=0
n_failed=0

ok() {        # ok CONDITION-STATUS DESCRIPTION
    n_tests=$((n_tests + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $n_tests - $2"
    else
        n_failed=$((n_failed + 1))
        echo "not ok $n_tests - $2"
    fi
}

# run ARGS... : runs the binary, keeps stdout in $d/out, stderr in $d/err, status in $rc
run() {
    "$LABELAUDIT" "$@" >"$d/out" 2>"$d/err"
    rc=$?
}

expect_status() {   # expect_status N DESCRIPTION (after run)
    [ "$rc" -eq "$1" ]
    ok $? "$2 (exit $rc, want $1)"
    [ "$rc" -eq "$1" ] || { sed 's/^/# err: /' "$d/err" | head -5; }
}

expect_out() {      # expect_out REGEX DESCRIPTION
    grep -q -e "$1" "$d/out"
    ok $? "$2 (stdout has /$1/)"
}

expect_err() {      # expect_err REGEX DESCRIPTION
    grep -q -e "$1" "$d/err"
    ok $? "$2 (stderr has /$1/)"
}

# jqf FILTER : evaluate a jq filter on $d/out
jqf() { jq -r "$1" "$d/out"; }

# kill_mid_write SIG : start a run whose --indices-out=$d/o/idx.tsv is open
# (its input, the fifo $d/fifo, then waits for more labels) and send it SIG
# once its temporary file is in $d/o; rc is its status, $d/err its stderr
kill_mid_write() {
    "$LABELAUDIT" -n 10 --indices-out="$d/o/idx.tsv" "$d/fifo" >/dev/null 2>"$d/err" &
    pid=$!
    exec 3>"$d/fifo"
    printf '1\n20\n' >&3
    tries=0
    while ! ls -A "$d/o" | grep -q labelaudit && [ $tries -lt 50 ]; do
        sleep 0.1; tries=$((tries + 1))
    done
    kill -"$1" "$pid"
    wait "$pid" 2>/dev/null
    rc=$?
    exec 3>&-
}

# npy_head DESCR SHAPE : a .npy v1.0 header for a C-order array ('<i8',
# '(3, 4)' or '(5,)'), padded as numpy pads it; the data follows it
npy_head() {
    dict="{'descr': '$1', 'fortran_order': False, 'shape': $2, }"
    pad=$((64 - (10 + ${#dict} + 1) % 64))
    [ $pad -eq 64 ] && pad=0
    len=$((${#dict} + pad + 1))
    printf '\223NUMPY\001\000'
    printf "\\$(printf %03o $((len % 256)))\\$(printf %03o $((len / 256)))"
    printf '%s%*s\n' "$dict" $pad ''
}

expect_json() {     # expect_json FILTER VALUE DESCRIPTION
    got=$(jqf "$1" 2>&1)
    [ "$got" = "$2" ]
    ok $? "$3 ($1 = $got, want $2)"
}

finish() {
    echo "1..$n_tests"
    [ "$n_failed" -eq 0 ]
}

# absent_feature CMDLINE : the format or decompressor that CMDLINE's file names
# or --format need and this build lacks (./configure --without-X), printed with
# status 0; status 1 when the command can run here. What a name needs comes
# from the binary's own format table (--formats-needed); the folders of
# samples/ and tests/data/ that need a library by their contents are named here.
absent_feature() {
    [ -n "${la_features+x}" ] || la_features=" $("$LABELAUDIT" --version |
        sed -n -e 's/^Formats: \([^(]*\).*/\1/p' -e 's/^Decompression: \([^(]*\).*/\1/p' \
            -e 's/^Class-count metadata: \(.*\)/\1/p' |
        sed 's/ (not built.*//; s/ ([a-z]*)//g; s/,//g' | tr '\n' ' ') "
    # shellcheck disable=SC2086 # the command line's words, as the test split them
    { set -f; "$LABELAUDIT" --formats-needed $1; set +f
      printf '%s\n' "$1" | tr ' ' '\n' | while IFS= read -r word; do
        case $word in
        *voc-masks | *cityscapes | *SegmentationClass*) echo png ;;
        *yolo-nc3*) echo data.yaml ;;      # the class count from its data.yaml (libyaml)
        esac
      done; } | while IFS= read -r need; do
        case $la_features in *" $need "*) ;; *) echo "$need"; exit 0 ;; esac
    done | grep .
}
