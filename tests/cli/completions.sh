#!/bin/sh
# completions.sh - the bash and zsh completions (completions/) offer the
# options --help lists, and the bash one completes option values and files.
. "$srcdir/tests/setup.sh"
top=$(cd "$srcdir" && pwd)
bashc="$top/completions/labelaudit"
zshc="$top/completions/_labelaudit"
bindir=$(dirname "$LABELAUDIT")   # the completions ask `labelaudit --version`

# Every long option of --help is offered by both (an option added to the
# program and not to the completions fails here).
"$LABELAUDIT" --help | grep -o -e '--[a-z][a-z-]*' | sort -u >"$d/help.opts"
for opt in $(cat "$d/help.opts"); do
    grep -q -e "$opt[= ']" -e "$opt\$" -e "$opt\[" "$bashc" && grep -q -e "$opt[=[},]" "$zshc"
    ok $? "$opt is completed by bash and zsh"
done

# complete WORDS... : what the bash completion offers for the last word.
complete_words() {
    PATH="$bindir:$PATH" bash --norc --noprofile -c '
        . "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _labelaudit labelaudit "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}" | sort' sh "$bashc" "$@"
}
[ "$(complete_words labelaudit --lo | tr '\n' ' ')" = "--loss= " ]
ok $? "bash: --lo completes to --loss="
# the formats: those the binary lists (--version), and every one it knows
# in the lists kept for when it cannot be asked
"$LABELAUDIT" --version | sed -n 's/^Formats: \([^(]*\).*/\1/p' | tr ' ' '\n' | grep . >"$d/built"
"$LABELAUDIT" --version | sed -n 's/^Formats: .*(not built: \([^)]*\)).*/\1/p' | tr ' ' '\n' |
    grep . >"$d/absent"
{ echo auto; cat "$d/built"; } | sort >"$d/want"
complete_words labelaudit --format = "" >"$d/got"
cmp -s "$d/want" "$d/got"
ok $? "bash: --format= offers auto and the $(wc -l <"$d/built") formats --version lists (readline splits at =)"
cat "$d/built" "$d/absent" | sort >"$d/all"
bash --norc --noprofile -c '. "$1"; printf "%s\n" $_labelaudit_all_formats' sh "$bashc" | sort >"$d/bash.all"
cmp -s "$d/all" "$d/bash.all"
ok $? "bash: the formats offered without the binary are every format --version names"
sed -n '/formats=(auto csv/,/)$/p' "$zshc" | sed 's/.*formats=(auto//; s/)$//' | tr ' ' '\n' |
    grep . | sort >"$d/zsh.all"
cmp -s "$d/all" "$d/zsh.all"
ok $? "zsh: the formats offered without the binary are every format --version names"
# The options readers read, each a row of reader_options.c's table (its unit
# test prints them): bash offers a row's values after it, and nothing where it
# has none (a name, a number); zsh lists the same values; both know -X.
"$bindir/tests/unit/test_reader_options" --dump >"$d/read-options"
[ -s "$d/read-options" ]
ok $? "reader_options.c's table has rows"
tab=$(printf '\t')
while IFS=$tab read -r name short arg values formats; do
    [ "$arg" = - ] && continue
    [ "$values" = - ] && values=
    want=$(printf '%s\n' $values | grep . | sort | tr '\n' ' ')
    [ "$(complete_words labelaudit "--$name" '' | grep . | tr '\n' ' ')" = "$want" ]
    ok $? "bash: --$name offers ${values:-nothing} (the table's row)"
    zsh_row=$(grep -e "--$name=[[}]" "$zshc")
    [ -n "$zsh_row" ]
    ok $? "zsh: --$name has its line"
    if [ -n "$values" ]; then
        printf '%s\n' "$zsh_row" | grep -qF ":($values)'"
    else
        ! printf '%s\n' "$zsh_row" | grep -q ':(.*)'"'"
    fi
    ok $? "zsh: --$name offers ${values:-nothing} (the table's row)"
    if [ "$short" != - ]; then
        grep -q -e "|-$short|" -e " -$short " -e "-$short)" "$bashc" &&
            printf '%s\n' "$zsh_row" | grep -q -e "{-$short+,--$name=}"
        ok $? "bash and zsh: -$short is --$name"
    fi
done <"$d/read-options"
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

# ---- real command lines, typed at an interactive shell on a terminal ----
# type_line SHELL KEYS : type KEYS (printf escapes: \t is Tab) at SHELL's
# prompt on a terminal that script(1) gives it, then make the line a comment
# (C-a #) and run that, and print the line as the shell held it, read back
# from its history: what completion inserted, quoting and all. SHELL is
# bash, bash-completion (bash with bash-completion's _init_completion) or zsh.
cat >"$d/rc.bash" <<EOF
PS1='READY> '
HISTFILE=/dev/null
[ -n "\${WITH_BC-}" ] && . /usr/share/bash-completion/bash_completion
. '$bashc'
bind 'set bell-style none'
bind 'set enable-bracketed-paste off' 2>/dev/null
PROMPT_COMMAND='printf "LINE<%s>\\n" "\$(HISTTIMEFORMAT= history 1 | sed "s/^ *[0-9]* *//")"'
EOF
mkdir "$d/zsh"
cat >"$d/zsh/.zshrc" <<EOF
PS1='READY> '
HISTSIZE=100
setopt interactive_comments
unsetopt beep
fpath=('$top/completions' \$fpath)
autoload -U compinit && compinit -u -D
precmd() { print -r -- "LINE<\$(fc -ln -1 2>/dev/null)>" }
EOF
wait_out() {   # wait_out TEXT : until the terminal showed TEXT (10 s at most)
    i=0
    until grep -aq -e "$1" "$d/pty.out" 2>/dev/null; do
        i=$((i + 1))
        [ "$i" -le 200 ] || return 1
        sleep 0.05
    done
}
type_line() {
    rm -f "$d/pty.in" "$d/pty.out"
    mkfifo "$d/pty.in" || return 1
    sh_cmd="bash --rcfile $d/rc.bash -i" with_bc=
    [ "$1" = zsh ] && sh_cmd="zsh -i"
    [ "$1" = bash-completion ] && with_bc=1
    (cd "$d/w" && WITH_BC=$with_bc ZDOTDIR="$d/zsh" PATH="$bindir:$PATH" \
        script -qfc "$sh_cmd" /dev/null <"$d/pty.in" >"$d/pty.out" 2>&1) &
    pty_pid=$!
    exec 3>"$d/pty.in"
    wait_out 'READY> ' && printf "$2" >&3 && printf '\001#\n' >&3 && wait_out 'LINE<#'
    printf 'exit\n' >&3
    exec 3>&-
    wait "$pty_pid"
    tr -d '\r' <"$d/pty.out" | grep -a -o 'LINE<#.*>' | sed 's/^LINE<#//; s/>$//'
}
# check_line SHELL KEYS WANT : the line after KEYS is WANT
check_line() {
    got=$(type_line "$1" "$2")
    [ "$got" = "$3" ]
    ok $? "$1: typing '$(printf '%s' "$2" | sed 's/\\t/<Tab>/g')' gives '$3' (got '$got')"
}
shells=
if command -v script >/dev/null 2>&1 && command -v mkfifo >/dev/null 2>&1; then
    shells=bash
    [ -f /usr/share/bash-completion/bash_completion ] && shells="$shells bash-completion"
fi
for sh in $shells; do
    check_line "$sh" 'labelaudit --annot\t' 'labelaudit --annotations='
    check_line "$sh" 'labelaudit --annot\t\t' 'labelaudit --annotations=git'
    check_line "$sh" 'labelaudit --annotations=gitl\t' 'labelaudit --annotations=gitlab:'
    check_line "$sh" 'labelaudit --format=safe\t' 'labelaudit --format=safetensors '
    check_line "$sh" 'labelaudit --format=yo\t' 'labelaudit --format=yolo '
    check_line "$sh" 'labelaudit --format hd\t' 'labelaudit --format hdf5 '
    check_line "$sh" 'labelaudit --lo\tb\t-n 3 tr\t' 'labelaudit --loss=bce -n 3 train.csv '
    check_line "$sh" 'labelaudit --junit=v\t' 'labelaudit --junit=val.csv '
done
if [ -z "$shells" ]; then
    n_tests=$((n_tests + 1)); echo "ok $n_tests - bash on a terminal # SKIP no script(1)"
fi
if [ -n "$shells" ] && command -v zsh >/dev/null 2>&1; then
    check_line zsh 'labelaudit --format=safe\t' 'labelaudit --format=safetensors'
    check_line zsh 'labelaudit --format=yo\t' 'labelaudit --format=yolo'
    check_line zsh 'labelaudit --lo\tb\t' 'labelaudit --loss=bce'
    type_line zsh 'labelaudit --format=\t' >/dev/null
    sed 's/\x1b\[[0-9;?]*[a-zA-Z]/ /g; s/\x1b./ /g' "$d/pty.out" | tr -s '\000-\040' '\n' |
        grep -x -f "$d/want" | sort -u >"$d/listed"
    cmp -s "$d/want" "$d/listed"
    ok $? "zsh: --format= lists auto and every format --version lists$(comm -23 "$d/want" \
        "$d/listed" | tr '\n' ' ' | sed 's/^./ (missing: &/; s/ $/)/')"
else
    n_tests=$((n_tests + 1)); echo "ok $n_tests - zsh on a terminal # SKIP zsh or script(1) not installed"
fi

if command -v zsh >/dev/null 2>&1; then
    zsh -n "$zshc"
    ok $? "zsh: the completion parses"
else
    n_tests=$((n_tests + 1)); echo "ok $n_tests - zsh: the completion parses # SKIP zsh not installed"
fi
head -1 "$zshc" | grep -qx '#compdef labelaudit'
ok $? "zsh: #compdef names the command"
finish
