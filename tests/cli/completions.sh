#!/bin/sh
# completions.sh - the bash and zsh completions (completions/) offer the
# options --help lists, and the bash one completes option values and files.
. "$srcdir/tests/setup.sh"
top=$(cd "$srcdir" && pwd)
bashc="$top/completions/labelaudit"
zshc="$top/completions/_labelaudit"

# Every long option of --help is offered by both (an option added to the
# program and not to the completions fails here).
"$LABELAUDIT" --help | grep -o -e '--[a-z][a-z-]*' | sort -u >"$d/help.opts"
for opt in $(cat "$d/help.opts"); do
    grep -q -e "$opt[= ']" -e "$opt\$" -e "$opt\[" "$bashc" && grep -q -e "$opt[=[},]" "$zshc"
    ok $? "$opt is completed by bash and zsh"
done

# complete WORDS... : what the bash completion offers for the last word.
complete_words() {
    bash --norc --noprofile -c '
        . "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _labelaudit labelaudit "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}" | sort' sh "$bashc" "$@"
}
[ "$(complete_words labelaudit --lo | tr '\n' ' ')" = "--loss= " ]
ok $? "bash: --lo completes to --loss="
[ "$(complete_words labelaudit --format = "" | tr '\n' ' ')" = "auto csv npy npz raw text tsv " ]
ok $? "bash: --format= offers the formats (readline splits at =)"
[ "$(complete_words labelaudit --loss b | tr '\n' ' ')" = "bce " ]
ok $? "bash: --loss b completes to bce"
[ "$(complete_words labelaudit --backend= | tr '\n' ' ')" = "auto cpu gpu " ]
ok $? "bash: --backend= offers auto, cpu, gpu"
[ "$(complete_words labelaudit --color '' | tr '\n' ' ')" = "always auto never " ]
ok $? "bash: --color offers auto, always, never"
mkdir "$d/w" && : >"$d/w/train.csv" && : >"$d/w/val.csv"
[ "$(cd "$d/w" && complete_words labelaudit -n 10 tr | tr '\n' ' ')" = "train.csv " ]
ok $? "bash: file names"
[ "$(cd "$d/w" && complete_words labelaudit --junit v | tr '\n' ' ')" = "val.csv " ]
ok $? "bash: --junit takes a file name"

if command -v zsh >/dev/null 2>&1; then
    zsh -n "$zshc"
    ok $? "zsh: the completion parses"
else
    n_tests=$((n_tests + 1)); echo "ok $n_tests - zsh: the completion parses # SKIP zsh not installed"
fi
head -1 "$zshc" | grep -qx '#compdef labelaudit'
ok $? "zsh: #compdef names the command"
finish
