#!/bin/sh
# gpu.sh - the CPU and GPU backends give the same report, but for "backend".
#
# For every --dtype, raw files are generated here (awk writes octal escapes,
# printf turns them into bytes: no Python, no compiler), with bad values at
# chunk-sized boundaries, and audited with --backend=cpu and --backend=gpu under
# several rules, and with over 2^20 bad entries in one window (read back in
# pieces). The --json documents (with the "backend" member removed), the
# exit statuses and the --indices-out files must be byte-identical.
#
# TAP, like every test here. The whole script is skipped ("1..0 # SKIP") when
# --backend=gpu exits 3 on a file the CPU reads: no GPU, no driver, or a build
# without CUDA.
. "$srcdir/tests/setup.sh"
tmp=$d

# gen DTYPE N SEED > FILE: N little-endian labels of DTYPE, mostly in [0, 10),
# about one in eight a value that breaks training, and the first and last of
# every 1024 values bad, so bad entries sit on both sides of chunk boundaries.
gen() {
    awk -v dt="$1" -v n="$2" -v seed="$3" '
    function floor(x) { return x == int(x) || x > 0 ? int(x) : int(x) - 1 }
    function rnd() { s = (s * 16807) % 2147483647; return s }   # Park-Miller: exact in doubles
    function byte(b) { out = out sprintf("\\%03o", b) }
    function int_bytes(x, size,    k, b) {                     # two s complement
        for (k = 0; k < size; k++) { b = x - 256 * floor(x / 256); byte(b); x = floor(x / 256) }
    }
    function bits_bytes(nbits,    k, j, b) {
        for (k = 0; k < nbits; k += 8) {
            b = 0
            for (j = 7; j >= 0; j--) b = b * 2 + bit[k + j]
            byte(b)
        }
    }
    # IEEE binary of x with E exponent and M mantissa bits; x is "nan", "inf",
    # "-inf", "-0" or a number exactly representable in that format
    function float_bytes(x, E, M,    k, sign, a, e, mant, bexp) {
        for (k = 0; k < 1 + E + M; k++) bit[k] = 0
        if (x == "nan" || x == "inf" || x == "-inf") {
            for (k = 0; k < E; k++) bit[M + k] = 1
            if (x == "nan") bit[M - 1] = 1
            if (x == "-inf") bit[M + E] = 1
        } else if (x == "-0") {
            bit[M + E] = 1
        } else if (x + 0 != 0) {
            sign = x < 0; a = sign ? -x : x + 0; e = 0
            while (a >= 2) { a /= 2; e++ }
            while (a < 1) { a *= 2; e-- }
            mant = (a - 1) * 2 ^ M; bexp = e + 2 ^ (E - 1) - 1
            for (k = 0; k < M; k++) { bit[k] = mant % 2; mant = int(mant / 2) }
            for (k = 0; k < E; k++) { bit[M + k] = bexp % 2; bexp = int(bexp / 2) }
            bit[M + E] = sign
        }
        bits_bytes(1 + E + M)
    }
    function emit(v) {
        if (dt == "float16") float_bytes(v, 5, 10)
        else if (dt == "float32") float_bytes(v, 8, 23)
        else if (dt == "float64") float_bytes(v, 11, 52)
        else if (v == "umax") { int_bytes(-1, 8) }
        else int_bytes(v, size)
    }
    BEGIN {
        s = seed + 1
        size = dt ~ /64/ ? 8 : dt ~ /32/ ? 4 : dt ~ /16/ ? 2 : 1
        nodd = split("-1 10 11 -100 255 12 -5 200 9", odd, " ")
        if (dt ~ /^float/) nodd = split("-1 10 -100 nan inf -inf 2.5 -0.5 -0 0 11 0.25", odd, " ")
        if (dt ~ /^float(32|64)$/) odd[++nodd] = "1024.5"
        if (dt == "uint64") odd[++nodd] = "umax"
        if (dt == "bool") nodd = split("2 255 1 0", odd, " ")
        out = ""
        for (i = 0; i < n; i++) {
            r = rnd()
            if (i % 1024 == 0) v = -1
            else if (i % 1024 == 1023) v = 10
            else if (r % 8 == 0) v = odd[1 + int(r / 8) % nodd]
            else v = r % (dt == "bool" ? 2 : 10)
            if (dt == "bool" && v == -1) v = 3
            if (dt == "bool" && v == 10) v = 2
            emit(v)
            if (i % 16 == 15) { print out; out = "" }
        }
        if (out != "") print out
    }' | while IFS= read -r line; do printf "$line"; done
}

# double FILE K: concatenate FILE with itself K times (2^K copies), for big inputs
double() {
    k=0
    while [ "$k" -lt "$2" ]; do
        cat "$1" "$1" > "$1.2" && mv "$1.2" "$1"
        k=$((k + 1))
    done
}

# audit BACKEND NAME ARGS...: the JSON report without "backend", and the exit status
audit() {
    be=$1 name=$2
    shift 2
    "$LABELAUDIT" --backend="$be" --json "$@" > "$tmp/$name.$be.raw" 2> "$tmp/$name.$be.err"
    echo "exit $?" >> "$tmp/$name.$be.err"
    sed -e 's/"backend":[[:space:]]*"[a-z]*",\{0,1\}[[:space:]]*//' \
        "$tmp/$name.$be.raw" > "$tmp/$name.$be.json"
}

# Skip unless --backend=gpu can run.
gen int64 64 1 > "$tmp/probe.raw"
"$LABELAUDIT" --backend=cpu --format=raw --dtype=int64 -q "$tmp/probe.raw"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
    echo "Bail out! the CPU backend cannot read the probe file (exit $rc)"
    exit 1
fi
"$LABELAUDIT" --backend=gpu --format=raw --dtype=int64 "$tmp/probe.raw" \
    > /dev/null 2> "$tmp/probe.err"
if [ $? -eq 3 ]; then
    echo "1..0 # SKIP --backend=gpu: $(head -1 "$tmp/probe.err")"
    exit 0
fi

for dt in bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 float32 float64; do
    gen "$dt" 4096 "$n_tests" > "$tmp/$dt.small.raw"
    cp "$tmp/$dt.small.raw" "$tmp/$dt.big.raw"
    double "$tmp/$dt.big.raw" 9           # 2 Mi values: several chunks and sub-chunks
    for size in small big; do
        f=$tmp/$dt.$size.raw
        set -- 1 "-n 10" 2 ""
        [ "$size" = small ] && set -- "$@" 3 "--loss=bce" \
            4 "-n 10 --ignore-index=none --max-report=3" 5 "-n 2 --ignore-index=255"
        while [ $# -gt 0 ]; do
            case_id=$1 opts=$2
            shift 2
            name=$dt.$size.$case_id
            for be in cpu gpu; do
                # shellcheck disable=SC2086 # opts is a word list on purpose
                audit "$be" "$name" --format=raw --dtype="$dt" $opts \
                    --indices-out="$tmp/$name.$be.tsv" "$f"
            done
            same=0
            cmp -s "$tmp/$name.cpu.json" "$tmp/$name.gpu.json" &&
                cmp -s "$tmp/$name.cpu.err" "$tmp/$name.gpu.err" || same=1
            if [ -f "$tmp/$name.cpu.tsv" ] || [ -f "$tmp/$name.gpu.tsv" ]; then
                cmp -s "$tmp/$name.cpu.tsv" "$tmp/$name.gpu.tsv" || same=1
            fi
            ok "$same" "$dt $size ${opts:-(defaults)}: cpu and gpu reports identical"
            if [ "$same" -ne 0 ]; then
                diff "$tmp/$name.cpu.json" "$tmp/$name.gpu.json" | head -10 | sed 's/^/# /'
                diff "$tmp/$name.cpu.err" "$tmp/$name.gpu.err" | head -4 | sed 's/^/# /'
            fi
            rm -f "$tmp/$name".*
        done
    done
    # Over 2^20 bad entries in one scan() call (the device buffer of old): 2^20 +
    # 1000 all-ones values (-1, the type's maximum, NaN or 255: all bad with
    # -n 10), the small file, 5000 more, the small file again. The GPU compacts
    # them in order and reads them back in pieces; counts, the first
    # --max-report entries and every --indices-out line must not change.
    size=$(($(wc -c < "$tmp/$dt.small.raw") / 4096))
    head -c $(((1048576 + 1000) * size)) /dev/zero | tr '\000' '\377' > "$tmp/$dt.ones"
    head -c $((5000 * size)) "$tmp/$dt.ones" > "$tmp/$dt.ones2"
    cat "$tmp/$dt.ones" "$tmp/$dt.small.raw" "$tmp/$dt.ones2" "$tmp/$dt.small.raw" \
        > "$tmp/$dt.over.raw"
    name=$dt.over
    for be in cpu gpu; do
        audit "$be" "$name" --format=raw --dtype="$dt" -n 10 --max-report=50 \
            --indices-out="$tmp/$name.$be.tsv" "$tmp/$dt.over.raw"
    done
    same=0
    cmp -s "$tmp/$name.cpu.json" "$tmp/$name.gpu.json" &&
        cmp -s "$tmp/$name.cpu.err" "$tmp/$name.gpu.err" &&
        cmp -s "$tmp/$name.cpu.tsv" "$tmp/$name.gpu.tsv" || same=1
    ok "$same" "$dt: over 2^20 bad entries in a window: cpu and gpu reports identical"
    [ "$same" -ne 0 ] && diff "$tmp/$name.cpu.json" "$tmp/$name.gpu.json" | head -10 | sed 's/^/# /'
    rm -f "$tmp/$dt".* "$tmp/$name".*
done
finish
