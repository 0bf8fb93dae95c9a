#!/bin/sh
# stdin-memory.sh - standard input that goes on in the caller's memory
# (LABELAUDIT_STDIN_MEMORY, src/stdin_memory.h: how the Python package hands
# an array over without a copy): the report is the one the same .npy bytes
# give through a pipe, and a variable that is malformed, or names memory the
# binary cannot read, refuses standard input with one line naming it, exit 3.
. "$srcdir/tests/setup.sh"
hold="$builddir/tests/gen/hold_labels"

"$hold" "$d/y.npy"
"$LABELAUDIT" --json -n 10 -b 7 - <"$d/y.npy" >"$d/pipe.json"
"$hold" -- "$LABELAUDIT" --json -n 10 -b 7 - >"$d/memory.json" 2>"$d/err"
st=$?
test $st -eq 1 && cmp -s "$d/pipe.json" "$d/memory.json" && test ! -s "$d/err"
ok $? "the values read from the caller's memory: the very report of the same .npy through a pipe"
test "$(jq -c '.files[0].bad[-1] | [.index, .value]' "$d/memory.json")" = "[100002,-3]"
ok $? "read to the last value"
"$hold" -- "$LABELAUDIT" -n 10 - >"$d/text" 2>&1
"$LABELAUDIT" -n 10 - <"$d/y.npy" >"$d/text-pipe" 2>&1
cmp -s "$d/text" "$d/text-pipe"
ok $? "the text report too"

for spec in "%p:12" "x:1:2" "%p:1:2:3" "0:1:8" "%p:-1:8"; do
    "$hold" -x "$spec" -- "$LABELAUDIT" -n 10 - >"$d/out" 2>&1
    st=$?
    test $st -eq 3 && grep -q 'LABELAUDIT_STDIN_MEMORY=.*not PID:ADDRESS:LENGTH' "$d/out"
    ok $? "LABELAUDIT_STDIN_MEMORY=$spec refused by name, exit 3"
done
# an address no page is mapped at: the kernel refuses the read
"$hold" -x "%p:16:800824" -- "$LABELAUDIT" -n 10 - >"$d/out" 2>&1
st=$?
test $st -eq 3 && grep -q 'byte 0 of the memory LABELAUDIT_STDIN_MEMORY names: cannot read it from process' "$d/out"
ok $? "unreadable memory: one line saying where and why, exit 3"
# a FILE operand is not standard input: the variable does not touch it
LABELAUDIT_STDIN_MEMORY=1:2:3 "$LABELAUDIT" --json -n 10 -b 7 "$d/y.npy" | jq -c 'del(.files[0].path)' >"$d/file.json"
jq -c 'del(.files[0].path)' "$d/pipe.json" | cmp -s - "$d/file.json"
ok $? "a file operand is read as it is"
finish
