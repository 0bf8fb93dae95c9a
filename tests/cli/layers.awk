# layers.awk - HACKING.md's table of the pipeline's layers, for the checks
# that hold the code to it (tests/cli/include-graph.sh: the #include lines;
# tests/cli/call-graph.sh: the calls between the objects).
#
#   awk -f layers.awk HACKING.md FILES
#
# FILES holds one path a line (src/X.c, src/read/Y.h, relative to the tree's
# top). Prints, for each, "PATH NUMBER NAME": the first layer, from the top
# (1), whose patterns match it, or "PATH 0 none" for a file in no layer. The
# table is the one whose header row is "| layer | files | ...": a row's
# second cell holds shell patterns relative to src/ (plan.*, read/*), in
# backquotes or not.

# a shell pattern (* and ? only, as the table uses) as an anchored regex
function glob_re(p,    r, i, c) {
    r = "^"
    for (i = 1; i <= length(p); i++) {
        c = substr(p, i, 1)
        if (c == "*") r = r "[^/]*"
        else if (c == "?") r = r "[^/]"
        else if (c ~ /[.+^$(){}|\[\]\\]/) r = r "\\" c
        else r = r c
    }
    return r "$"
}

FNR == 1 { file++ }

# HACKING.md: the rows after the header "| layer | files |", up to the
# first line that is not a row
file == 1 {
    if (!intable) {
        if ($0 ~ /^\| *layer *\| *files *\|/) intable = 1
        next
    }
    if ($0 !~ /^\|/) { intable = 0; done = 1; next }
    if (done || $0 ~ /^\|[- |]*$/) next
    split($0, cell, "|")
    name = cell[2]; gsub(/[ `]/, "", name)
    nlayers++
    lname[nlayers] = name
    npat[nlayers] = split(cell[3], pat, " ")
    for (k = 1; k <= npat[nlayers]; k++) {
        p = pat[k]; gsub(/`/, "", p)
        re[nlayers, k] = glob_re("src/" p)
    }
    next
}

# FILES
NF {
    for (n = 1; n <= nlayers; n++)
        for (k = 1; k <= npat[n]; k++)
            if ($1 ~ re[n, k]) { print $1, n, lname[n]; next }
    print $1, 0, "none"
}

END { if (!nlayers) { print "layers.awk: no layer table in " ARGV[1] > "/dev/stderr"; exit 1 } }
