#!/bin/sh
# csv-regress.sh - the CSV reader's hard cases end to end (stray quotes, the
# header guess, R's layout, the cut of cell text): the reader's own cases are in tests/unit/test_csv.c.
. "${srcdir:-.}/tests/setup.sh"

# stray quotes in free text lose no row, on both parsers
printf 'text,label\n"Great" movie,1\nbad film,9\nhe said "meh",0\nok,1\n' >"$d/reviews.csv"
for slow in 0 1; do
    LABELAUDIT_CSV_SLOW=$slow run --json -n 2 "$d/reviews.csv"
    expect_status 1 "stray quotes (LABELAUDIT_CSV_SLOW=$slow): the 9 is found"
    expect_json '.files[0].samples' 4 "stray quotes (LABELAUDIT_CSV_SLOW=$slow): 4 rows, as pandas"
    expect_json '.files[0].bad[0].index' 1 "stray quotes (LABELAUDIT_CSV_SLOW=$slow): the 9 is row 1"
done
unset LABELAUDIT_CSV_SLOW

# pd.Series(y).to_csv('y.csv', index=False) writes the header 0
{ echo 0; i=0; while [ $i -lt 15 ]; do echo $((i % 3)); i=$((i + 1)); done; } >"$d/y.csv"
run -b 14 "$d/y.csv"
expect_out 'column "0", int64, 15 labels' "pandas' header '0' is not a label"
expect_out "header: guessed yes (the first row is pandas' default column names" \
    "the report says the header was a guess, and why"
run --json "$d/y.csv"
expect_json '.files[0].header | "\(.present) \(.guessed)"' "true true" "JSON: header present, guessed"
run --json --header "$d/y.csv"
expect_json '.files[0].header | "\(.present) \(.guessed) \(.why)"' "true false null" \
    "JSON: --header is no guess"

# np.savetxt('y.csv', y, fmt='%d') of labels sorted by class writes the same
# file with no header: the guess stands, and says the other reading's count
run --json -b 14 "$d/y.csv"
expect_json '[.files[0].findings[] | select(.code == "ambiguous-header") | .severity] | join(",")' \
    warning "pandas' header '0' over numbers: the ambiguous-header warning"
expect_json '.files[0].findings[] | select(.code == "ambiguous-header") | .message' \
    "the first row \"0\" was taken for pandas' default header, but it may as well be data: 15 samples with it a header, 16 with it a row; --no-header if there is no header (np.savetxt writes none), --header if pandas wrote it" \
    "ambiguous-header: the sample count either way, and the options that decide"
expect_status 0 "ambiguous-header is a warning: exit 0"
run -b 14 "$d/y.csv"
expect_out "warning \[ambiguous-header\]: the first row \"0\" was taken for pandas' default header" \
    "ambiguous-header in the text report"
for opt in --header --no-header; do
    run --json $opt "$d/y.csv"
    expect_json '[.files[0].findings[].code] | index("ambiguous-header")' null \
        "$opt decides: no ambiguous-header"
done
expect_json '.files[0].samples' 16 "--no-header: the first row is the 16th sample"
printf '0,1\n0,3\n1,5\n' >"$d/two.csv"
run --json "$d/two.csv"
expect_json '.files[0].findings[] | select(.code == "ambiguous-header") | .message | .[0:20]' \
    'the first row "0,1" ' "two columns 0,1 over numbers: ambiguous too"
printf ',0\n0,3\n1,5\n' >"$d/indexed.csv"
run --json "$d/indexed.csv"
expect_json '[.files[0].findings[].code] | index("ambiguous-header")' null \
    "pandas' header with its empty index cell: no doubt"
printf '0,1\na.jpg,3\nb.jpg,5\n' >"$d/paths.csv"
run --json "$d/paths.csv"
expect_json '[.files[0].findings[].code] | index("ambiguous-header")' null \
    "0,1 over rows of text: a header, no doubt"

# in a dataset of many files (a folder, --concat, --merge of their reports) too
mkdir "$d/ds" && cp "$d/y.csv" "$d/ds/a.csv" && printf '0\n1\n' >"$d/ds/b.csv"
printf 'label\n1\n' >"$d/ds/c.csv"
ambiguous='in 2 files the first row (0, or 0,1,...) was taken for pandas'"'"' default header, but it may as well be data: 17 samples with them headers, 19 with them rows'
run --json "$d/ds"
expect_json '.files[0].findings[] | select(.code == "ambiguous-header") | .message | split("; ")[0]' "$ambiguous" \
    "a folder: the files with an ambiguous header, the counts either way"
for f in a b c; do
    "$LABELAUDIT" --json "$d/ds/$f.csv" >"$d/ds-$f.json"
done
run --json --merge "$d/ds-a.json" "$d/ds-b.json" "$d/ds-c.json"
expect_json '.files[0].findings[] | select(.code == "ambiguous-header") | .message | split("; ")[0]' "$ambiguous" \
    "--merge of the files' reports: as the folder"
run --json --no-header "$d/ds"
expect_json '[.files[0].findings[].code] | index("ambiguous-header")' null \
    "a folder with --no-header: no ambiguous-header"

# an empty first label cell does not make a header
printf 'img0.jpg,\nimg1.jpg,3\nimg2.jpg,4\n' >"$d/noheader.csv"
run "$d/noheader.csv"
expect_status 1 "an empty first label cell is a bad row"
expect_out 'value "", [^:]*: row 0 (line 1)' "row 0 is reported, not taken for a header"
expect_out 'header: guessed no' "the report says the header was guessed absent"

# The label column by the names datasets use, and never a column of text
# audited for want of one: filename,class_id,split has its stray 10 found
printf 'filename,class_id,split\na.jpg,0,train\nb.jpg,10,train\nc.jpg,2,val\n' >"$d/split.csv"
run --json -n 3 "$d/split.csv"
expect_json '[.files[0].column, .files[0].invalid.above, .files[0].bad[0].value] | join(" ")' \
    "class_id 1 10" "class_id is a label column by name: the stray 10 is found"
for name in category_id category cls diagnosis label_id class_label class_idx target_id; do
    printf 'filename,%s,split\na.jpg,0,train\nb.jpg,1,val\n' "$name" >"$d/named.csv"
    run --json -n 3 "$d/named.csv"
    expect_json '.files[0].column' "$name" "'$name' names the label column"
done
printf 'path,cat_idx,score,split\na.jpg,0,0.9,train\nb.jpg,10,0.8,val\n' >"$d/unnamed.csv"
run -n 3 "$d/unnamed.csv"
expect_status 3 "the last column is text, others are numbers: nothing is audited"
expect_err "unnamed.csv: no column is named like labels, and the last one, 'split', holds text: choose the label column with -c; columns of numbers: cat_idx (-c 2), score (-c 3)$" \
    "the refusal names the columns of numbers and asks for -c"
run -n 3 -c cat_idx "$d/unnamed.csv"
expect_status 1 "-c cat_idx: the stray 10 is found"
run -n 3 -c split "$d/unnamed.csv"
expect_out '2 cells are not a number' "-c split: the text column is audited as asked"
printf 'a.jpg,1,train\nb.jpg,2,val\n' >"$d/headerless.csv"
run -n 3 "$d/headerless.csv"
expect_err "headerless.csv: no column is named like labels, and the last one holds text: choose the label column with -c; columns of numbers: -c 2$" \
    "headerless: the columns of numbers by number"
# issue 41 item 9: the last column of numbers beside another one: which is the label is a guess
printf 'image,diag,fold\na.png,0,0\nb.png,10,1\nc.png,2,2\nd.png,1,3\n' >"$d/diag-fold.csv"
run -n 5 "$d/diag-fold.csv"
expect_status 3 "two columns of numbers, none named as labels: nothing is audited (fold would pass)"
expect_err "diag-fold.csv: no column is named like labels, and 2 columns hold numbers: choose the label column with -c: diag (-c 2), fold (-c 3)$" \
    "the refusal names both and asks for -c"
run -n 5 -c diag "$d/diag-fold.csv"
expect_status 1 "-c diag: the stray 10 is found"
printf '0.5,1\n0.25,3\n' >"$d/headerless-2.csv"
run -n 5 "$d/headerless-2.csv"
expect_status 0 "headerless: no names to go by, the last column (np.savetxt's layout)"
printf ',diag\n0,1\n1,10\n' >"$d/index.csv"
run -n 5 "$d/index.csv"
expect_status 1 "pandas' unnamed index column is no candidate: diag is audited"
printf 'image,fold\na.png,0\nbb.png,1\n' >"$d/one-number.csv"
run -n 5 "$d/one-number.csv"
expect_status 0 "one column of numbers: it is the labels"
printf 'path,label2\na.jpg,1\nb.jpg,x\nc.jpg,2\n' >"$d/mixed.csv"
run -n 3 "$d/mixed.csv"
expect_out '1 cell is not a number' "a last column of numbers and text is audited: its text is a finding"
printf 'name,tag\na,x\nb,y\n' >"$d/alltext.csv"
run -n 3 "$d/alltext.csv"
expect_out '2 cells are not a number' "no column of numbers at all: the last column is audited"

# R's write.csv layout, and a line of counts before the header
printf '"","label"\n"1",3\n"2",4\n' >"$d/r.csv"
run "$d/r.csv"
expect_status 0 "R's layout: a header one field short is accepted"
expect_out 'column "label", int64, 2 labels, range 3..4' "R's layout: the label column found by name"
printf '3,2,class_0,class_1\nalcohol,target\n14.2,0\n13.2,1\n13.1,2\n' >"$d/wine.csv"
run --skip-rows=1 "$d/wine.csv"
expect_out 'column "target", int64, 3 labels' "--skip-rows=1: sklearn's line of counts is skipped"
run --skip-rows=-1 "$d/wine.csv"
expect_status 2 "--skip-rows=-1 is a usage error"

# cell text is cut on a UTF-8 character boundary, in text input too
# (one ASCII byte, then 150 two-byte characters: byte 200 is mid-character)
{ printf 'x'; i=0; while [ $i -lt 150 ]; do printf '\303\251'; i=$((i + 1)); done; echo; } \
    >"$d/long.txt"
run --json "$d/long.txt"
expect_json '.files[0].bad[0].value | length' 100 "a cut text cell keeps whole characters"
# past the first rows, the text of other cells reaches libcsv as a
# stand-in; a quote left open in one at the end is still an error, and quoted
# newlines, doubled quotes, padding and empty cells read as the reference does
{
    echo 'id,text,label'
    i=0
    while [ $i -lt 200 ]; do
        printf '%d,"said ""hi"", then\nleft" ,%d\n%d,  ,%d\n%d,"",%d\n' $i $((i % 5)) $i $((i % 3)) $i 12
        i=$((i + 1))
    done
} >"$d/other.csv"
for j in 1 2; do
    LABELAUDIT_CSV_SLOW=1 run -j1 --json -n 10 --indices-out="$d/want.tsv" "$d/other.csv"
    run -j$j --json -n 10 --indices-out="$d/got.tsv" "$d/other.csv"
    expect_json '.files[0].samples' 600 "other cells (-j$j): 600 rows"
    cmp -s "$d/want.tsv" "$d/got.tsv"
    ok $? "other cells (-j$j): the bad rows and lines of the one-thread libcsv reference"
    printf '99,"never closed\n' >>"$d/other.csv"
    run -j$j -n 10 "$d/other.csv"
    expect_status 3 "other cells (-j$j): a quote open at the end is an error"
    expect_err "line 802: unterminated quoted field" "other cells (-j$j): on the line it opens"
    head -n 801 "$d/other.csv" >"$d/other.tmp" && mv "$d/other.tmp" "$d/other.csv"
done
# label first: the last line ends inside another cell, with no newline
{ echo label,id,text; i=0; while [ $i -lt 400 ]; do printf '%d,%d,"a ""b"""\n' $((i % 4)) $i; i=$((i + 1)); done
  printf '3,400,plain "text' ; } >"$d/first.csv"
for j in 1 2; do
    run -j$j --json -n 10 "$d/first.csv"
    expect_status 0 "label first (-j$j): a last line without newline ends in another cell"
    expect_json '.files[0].samples' 401 "label first (-j$j): 401 rows"
done

finish
