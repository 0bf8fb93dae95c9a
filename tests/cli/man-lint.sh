#!/bin/sh
# man-lint.sh - the man page reads right, as man(1) shows it:
#  1. groff -ww -z -man finds nothing to warn about, nor mandoc -T lint at its
#     warning level (each skipped, and said, where it is not installed);
#  2. the sections come in man-pages(7)'s order, NAME SYNOPSIS DESCRIPTION
#     OPTIONS first and AUTHORS last, each once, nothing but prose after
#     AUTHORS (no example block left there);
#  3. every .TP entry of OPTIONS and FINDINGS ends where the next begins: its
#     text ends a sentence (not cut in the middle of one) and holds no other
#     entry's tag; each option and each finding code has one entry, the
#     codes' entries in FINDINGS only (not pasted into another section);
#  4. DESCRIPTION names every format the binary's --version lists, built or not.
. "$srcdir/tests/setup.sh"
man="$srcdir/man/labelaudit.1"

# ---- 1. the formatters' own checks -----------------------------------------------
if command -v groff >/dev/null 2>&1; then
    groff -ww -z -man "$man" >"$d/groff" 2>&1
    [ $? -eq 0 ] && [ ! -s "$d/groff" ]
    ok $? "groff -ww -z -man: no warnings"
    sed 's/^/# /' "$d/groff" | head -5
else
    echo "ok $((n_tests += 1)) # SKIP groff is not installed"
fi
if command -v mandoc >/dev/null 2>&1; then
    mandoc -T lint -W warning "$man" >"$d/mandoc" 2>&1
    [ ! -s "$d/mandoc" ]
    ok $? "mandoc -T lint -W warning: nothing"
    sed 's/^/# /' "$d/mandoc" | head -5
else
    echo "ok $((n_tests += 1)) # SKIP mandoc is not installed (apt-get install mandoc)"
fi

# ---- 2. the sections ---------------------------------------------------------------
order='NAME|SYNOPSIS|DESCRIPTION|OPTIONS|FINDINGS|JSON REPORT|EXIT STATUS|ENVIRONMENT|FILES|EXAMPLES|SEE ALSO|BUGS|AUTHORS'
sed -n 's/^\.SH "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$man" >"$d/sections"
awk -v order="$order" '
    BEGIN { n = split(order, want, "|"); for (i = 1; i <= n; i++) rank[want[i]] = i; last = 0 }
    !($0 in rank) { print "unknown section " $0; bad = 1; next }
    rank[$0] <= last { print $0 " out of order (or twice)"; bad = 1 }
    { last = rank[$0] }
    END { exit bad }' "$d/sections" >"$d/order"
ok $? "sections in order: $(tr '\n' ',' <"$d/sections" | sed 's/,$//')"
sed 's/^/# /' "$d/order"
[ "$(head -4 "$d/sections" | tr '\n' ' ')" = "NAME SYNOPSIS DESCRIPTION OPTIONS " ] &&
    [ "$(tail -1 "$d/sections")" = AUTHORS ]
ok $? "NAME SYNOPSIS DESCRIPTION OPTIONS first, AUTHORS last"
sed -n '/^\.SH AUTHORS/,$p' "$man" | sed 1d >"$d/authors"
! grep -q '^\.\(nf\|RS\|TP\|IP\|SS\|SH\)\|^labelaudit ' "$d/authors"
ok $? "nothing but prose after AUTHORS ($(wc -l <"$d/authors") lines)"

# ---- 3. the entries ---------------------------------------------------------------------
# One record per .TP entry of the section: "LINE<TAB>TAG<TAB>BODY" (the body's
# lines joined by \n), from the tag to the next .TP, .SS or .SH.
entries() {   # entries SECTION
    awk -v sec="$1" '
        /^\.SH/ { flush(); on = ($0 == ".SH " sec || $0 == ".SH \"" sec "\"") ; next }
        !on { next }
        /^\.(TP|SS)/ { flush(); if ($0 ~ /^\.TP/) { want_tag = 1 } ; next }
        want_tag { tag = $0; line = NR; want_tag = 0; body = ""; open = 1; next }
        open { body = body $0 "\\n" }
        function flush() { if (open) print line "\t" tag "\t" body; open = 0 }
        END { flush() }' "$man"
}
entries OPTIONS >"$d/options"
entries FINDINGS >"$d/findings"
[ "$(wc -l <"$d/options")" -ge 40 ] && [ "$(wc -l <"$d/findings")" -ge 20 ]
ok $? "$(wc -l <"$d/options") option entries, $(wc -l <"$d/findings") finding entries"
# the text of a body: macro lines' words kept, roff escapes and fonts dropped
cat "$d/options" "$d/findings" | awk -F'\t' '
    {
        n = split($3, l, /\\n/); text = ""; first = ""
        for (i = 1; i <= n; i++) {
            s = l[i]
            if (s ~ /^\.(nf|fi|RS|RE|PP|IP|sp|br|in)/) continue
            if (s ~ /^\.\\"/) continue
            if (first == "") first = s
            sub(/^\.[A-Z]+ /, "", s); gsub(/\\f[BIRP]|\\&|"/, "", s); gsub(/\\-/, "-", s)
            if (s != "") text = s
        }
        # the last line of prose ends a sentence (a stray quote or bracket after it)
        if (text !~ /[.:!?][)\047"]*$/) print $1 ": " $2 ": ends mid-sentence: " text
    }' >"$d/sentences"
[ ! -s "$d/sentences" ]
ok $? "every entry ends a sentence"
sed 's/^/# /' "$d/sentences" | head -10
# another entry's tag inside a body: a line of tag form (\-\-name =\fIX or
# \-\-name alone on a .B/.BR line followed by the same as a .TP tag elsewhere)
cut -f2 "$d/options" | sort >"$d/tags"
cut -f3 "$d/options" | sed 's/\\n/\n/g' | grep -Fx -f "$d/tags" | grep '\\-\\-[a-z-]* =' >"$d/inside"
[ ! -s "$d/inside" ]
ok $? "no option's text holds another option's tag"
sed 's/^/# /' "$d/inside" | head -5
dups=$(uniq -d "$d/tags")
[ -z "$dups" ]
ok $? "each option has one entry${dups:+ (twice: $dups)}"
# finding codes: entries ".BR code \" (severity)\"", in FINDINGS only
sed 's/\\-/-/g' "$man" >"$d/man.txt"
grep -n '^\.BR [a-z][a-z-]* " (\(error\|warning\))"$' "$d/man.txt" | cut -d: -f1 >"$d/code-lines"
start=$(grep -n '^\.SH FINDINGS' "$man" | cut -d: -f1)
end=$(awk -v s="$start" 'NR > s && /^\.SH/ { print NR; exit }' "$man")
outside=$(awk -v s="$start" -v e="$end" '$1 < s || $1 > e' "$d/code-lines" | tr '\n' ' ')
[ -s "$d/code-lines" ] && [ -z "$outside" ]
ok $? "the $(wc -l <"$d/code-lines") finding entries are all in FINDINGS${outside:+ (not: lines $outside)}"
codes=$(sed -n 's/^\.BR \([a-z][a-z-]*\) " (\(error\|warning\))"$/\1/p' "$d/man.txt" | sort |
    uniq -d)
[ -z "$codes" ]
ok $? "each finding code has one entry${codes:+ (twice: $codes)}"

# ---- 4. DESCRIPTION names every format ---------------------------------------------------
formats=$("$LABELAUDIT" --version | sed -n 's/^Formats: //p' | tr -d '()' | sed 's/not built://')
sed -n '/^\.SH DESCRIPTION/,/^\.SH OPTIONS/p' "$man" | sed 's/\\f[BIRP]//g; s/\\-/-/g' >"$d/desc"
n=0
unnamed=
for f in $formats; do
    n=$((n + 1))
    grep -qw -- "$f" "$d/desc" || unnamed="$unnamed $f"
done
[ "$n" -ge 10 ] && [ -z "$unnamed" ]
ok $? "DESCRIPTION names the $n formats of --version${unnamed:+ (not:$unnamed)}"
# a build with Arrow reads Parquet and Arrow files (issue 41 item 23)
! grep -q 'no build has an Arrow reader' "$man"
ok $? "the page does not say that no build reads Parquet"
finish
