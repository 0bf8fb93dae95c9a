# text-csv.awk - a CSV of text datasets, for the tests of the CSV reader's
# threads: an id, a quoted text column with doubled quotes (and a stray
# quote pair in every 7th), and a label 0-9, except every EVERY-th row,
# whose label "n/a" is not a number: a block that meets it stops there.
#
#   awk -v rows=20000 -v every=500 -f tests/gen/text-csv.awk
BEGIN {
    print "id,text,label"
    for (i = 0; i < rows; i++)
        printf "%d,\"w%d, \"\"q\"\" %s\",%s\n", i, i, (i % 7 ? "x" : "\"y\" z"), (i % every ? i % 10 : "n/a")
}
