#!/bin/sh
# include-graph.sh - the pipeline reads top down in the #include lines.
#
# Every file of src/ and src/read/ sits in one layer of HACKING.md's table
# of the pipeline (read by tests/cli/layers.awk, which the check of calls,
# call-graph.sh, shares), top first. A file may include the headers of its
# own layer and of the layers under it, never one above: no lower stage calls
# back up. Nor may the modules (X.c with X.h) of one layer include each other
# round a cycle. (A header may sit lower than its code: reader.h, which every
# stage passes values through, lies under the readers and formats.c's table
# of them.) A file in no layer fails too: a new module is placed in the
# table when it is added. Reads the sources only; needs no build.
. "$srcdir/tests/setup.sh"

cd "$srcdir" || exit 1
files=$(ls src/*.c src/*.h src/*.cu src/read/*.c src/read/*.h 2>/dev/null)

# FILE LAYER-NUMBER LAYER-NAME, the first layer (from the top) that lists it
echo "$files" | awk -f tests/cli/layers.awk HACKING.md - > "$d/layer"
ok $? "HACKING.md's table of layers was read"

# FROM TO: each #include "X" of a file of ours, X found beside it or in src/, src/read/
: > "$d/edges"
for f in $files; do
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
    while read -r h; do
        for dir in "$(dirname "$f")" src src/read; do
            if [ -f "$dir/$h" ]; then
                echo "$f $dir/$h" | sed 's#/\./#/#g'
                break
            fi
        done
    done >> "$d/edges"
done

# every file is in a layer
unplaced=$(awk '$2 == 0 { print $1 }' "$d/layer")
[ -z "$unplaced" ]
ok $? "every file of src/ and src/read/ is in a layer${unplaced:+ (not: $(echo $unplaced))}"
[ -s "$d/edges" ] && [ "$(wc -l < "$d/edges")" -gt 100 ]
ok $? "the #include lines were read ($(wc -l < "$d/edges") of them)"

# no include goes up
awk 'NR == FNR { num[$1] = $2; name[$1] = $3; next }
     num[$2] > 0 && num[$1] > num[$2] {
         printf "%s (%s) includes %s (%s)\n", $1, name[$1], $2, name[$2]
     }' "$d/layer" "$d/edges" > "$d/up"
[ ! -s "$d/up" ]
ok $? "no file includes a header of a layer above its own"
sed 's/^/# up: /' "$d/up"

# no cycle among the modules of one layer: a module is the files X.c, X.h
# (X.cu) of one layer; take away, again and again, the modules that include
# none still there or that none still there includes: what is left lies on a
# cycle, or between two. (Across layers the rule above allows none.)
awk 'NR == FNR { num[$1] = $2; next }
     num[$1] == num[$2] {
         a = $1; b = $2; sub(/\.(c|h|cu)$/, "", a); sub(/\.(c|h|cu)$/, "", b)
         if (a != b) print a, b
     }' "$d/layer" "$d/edges" | sort -u > "$d/modules"
awk '{ from[NR] = $1; to[NR] = $2; mods[$1]; mods[$2] }
     END {
         do {
             gone = 0
             for (m in mods) { o[m] = 0; i[m] = 0 }
             for (e = 1; e <= NR; e++)
                 if ((from[e] in mods) && (to[e] in mods)) { o[from[e]]++; i[to[e]]++ }
             for (m in mods)
                 if (!o[m] || !i[m]) { delete mods[m]; gone = 1 }
         } while (gone)
         for (m in mods) print m
     }' "$d/modules" | sort > "$d/cycle"
[ ! -s "$d/cycle" ]
ok $? "no cycle among the includes of one layer's modules"
if [ -s "$d/cycle" ]; then
    sed 's/^/# on a cycle: /' "$d/cycle"
    awk 'NR == FNR { c[$1]; next } ($1 in c) && ($2 in c)' "$d/cycle" "$d/modules" |
        sed 's/^/# includes: /'
fi

finish
