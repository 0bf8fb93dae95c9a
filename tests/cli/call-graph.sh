#!/bin/sh
# call-graph.sh - the pipeline reads top down in the calls, too.
#
# include-graph.sh holds the #include lines to HACKING.md's table of layers;
# a call needs no include of its callee's own header (a function declared in
# one module's header and defined in another's file, an extern written
# where it is used), so this check reads what the linker reads: the symbols
# each object of src/ and src/read/ defines and those it uses (nm). A module
# may call (or take the address of) what its own layer and the layers under
# it define, never a layer above; and no modules call each other round a
# circle, in one layer or across them. Each failure names the caller's file,
# the symbol and the callee's file.
#
# tests/cli/call-graph.allow lists the calls that still break a rule, one
# "CALLER-FILE SYMBOL" a line, each with why, while the branch that removes
# it is under way: an allowed call is taken out of the graph before both
# rules, and an entry that matches no call any more fails, so the list only
# shrinks.
. "$srcdir/tests/setup.sh"

command -v nm >/dev/null 2>&1 || { absent_feature "nm (binutils)"; finish; exit 0; }

# OBJECT SOURCE: each object of the build, with the source it was built from
# (a per-target object, src/read/labelaudit_arrow_so-read_arrow.o, has its
# target's name before a '-'; an object whose source is gone is left out)
: > "$d/objects"
for o in "$builddir"/src/*.o "$builddir"/src/read/*.o; do
    [ -f "$o" ] || continue
    rel=${o#"$builddir"/}
    dir=${rel%/*} base=${rel##*/}
    base=${base%.o}
    base=${base#*-}
    for ext in c cu cc; do
        if [ -f "$srcdir/$dir/$base.$ext" ]; then
            echo "$o $dir/$base.$ext" >> "$d/objects"
            break
        fi
    done
done
[ "$(wc -l < "$d/objects")" -gt 50 ]
ok $? "the build's objects were found ($(wc -l < "$d/objects") of them)"

# FILE LAYER-NUMBER LAYER-NAME
awk '{ print $2 }' "$d/objects" | awk -f "$srcdir/tests/cli/layers.awk" "$srcdir/HACKING.md" - \
    > "$d/layer"
ok $? "HACKING.md's table of layers was read"
unplaced=$(awk '$2 == 0 { print $1 }' "$d/layer")
[ -z "$unplaced" ]
ok $? "every object's source is in a layer${unplaced:+ (not: $(echo $unplaced))}"

# SYMBOL FILE: what each object defines; FILE SYMBOL: what each uses
: > "$d/defs"
: > "$d/uses"
while read -r o src; do
    nm -P -g --defined-only "$o" | awk -v f="$src" '{ print $1, f }' >> "$d/defs"
    nm -P -u "$o" | awk -v f="$src" '{ print f, $1 }' >> "$d/uses"
done < "$d/objects"

# CALLER SYMBOL CALLEE: a use that another of our objects defines
awk 'NR == FNR { def[$1] = $2; next }
     ($2 in def) && def[$2] != $1 { print $1, $2, def[$2] }' "$d/defs" "$d/uses" |
    sort -u > "$d/calls"
[ "$(wc -l < "$d/calls")" -gt 200 ]
ok $? "the calls between objects were read ($(wc -l < "$d/calls") of them)"

# the allowed ones out, and every allowed one still there
allow="$srcdir/tests/cli/call-graph.allow"
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$allow" 2>/dev/null | awk '{ print $1, $2 }' > "$d/allow"
awk 'FILENAME == ARGV[1] { a[$1 " " $2]; next } !(($1 " " $2) in a)' "$d/allow" "$d/calls" > "$d/graph"
awk 'FILENAME == ARGV[1] { c[$1 " " $2]; next } !(($1 " " $2) in c)' "$d/calls" "$d/allow" > "$d/stale"
[ ! -s "$d/stale" ]
ok $? "every call in call-graph.allow is still made (delete the others)"
sed 's/^/# no such call: /' "$d/stale"

# no call goes up
awk 'NR == FNR { num[$1] = $2; name[$1] = $3; next }
     num[$3] > 0 && num[$1] > num[$3] {
         printf "%s (%s) calls %s of %s (%s)\n", $1, name[$1], $2, $3, name[$3]
     }' "$d/layer" "$d/graph" > "$d/up"
[ ! -s "$d/up" ]
ok $? "no object calls a function of a layer above its own"
sed 's/^/# up: /' "$d/up"

# no circle of calls among the modules (X.c, X.cu: the file without its
# extension; the CSV reader is one module in four files, read_csv.c and its
# csv_*.c, which share read_csv.h's private struct la_csv): the strongly
# connected components of the graph of modules (Tarjan's), each printed with
# the calls inside it
awk 'function module(f) { sub(/\.[a-z]+$/, "", f); sub(/\/csv_[a-z_]+$/, "/read_csv", f); return f }
     { a = module($1); b = module($3)
       if (a != b) print a, b }' "$d/graph" | sort -u > "$d/modules"
awk 'function visit(v,    k, w) {
         index_of[v] = low[v] = ++count
         stack[++top] = v; on[v] = 1
         for (k = 1; k <= nout[v]; k++) {
             w = out[v, k]
             if (!(w in index_of)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
             else if (on[w] && index_of[w] < low[v]) low[v] = index_of[w]
         }
         if (low[v] == index_of[v]) {
             n = 0; line = ""
             do { w = stack[top--]; on[w] = 0; n++; line = line " " w } while (w != v)
             if (n > 1) print substr(line, 2)
         }
     }
     { out[$1, ++nout[$1]] = $2; mods[$1]; mods[$2] }
     END { for (m in mods) if (!(m in index_of)) visit(m) }' "$d/modules" > "$d/circle"
[ ! -s "$d/circle" ]
ok $? "no circle of calls among the modules"
while read -r members; do
    echo "# circle: $members"
    echo "$members" | tr ' ' '\n' |
        awk 'FILENAME == ARGV[1] { c[$1]; next }
             { a = $1; b = $3; sub(/\.[a-z]+$/, "", a); sub(/\.[a-z]+$/, "", b) }
             (a in c) && (b in c) && a != b { print "#   " $1 " calls " $2 " of " $3 }' - "$d/graph"
done < "$d/circle"

finish
