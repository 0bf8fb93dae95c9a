#!/bin/sh
# install.sh - `make install DESTDIR=...` installs the binary, the man page
# and the bash and zsh completions where those shells look, and the
# Parquet/Arrow module where the binary finds it, nothing else; and
# `make uninstall` takes every one of them away again.
. "$srcdir/tests/setup.sh"
: "${builddir:?builddir must name the build folder (make check sets it)}"
make=${MAKE:-make}
root="$d/root"
# a make of its own: not the jobserver or the flags of the `make check` around it
unset MAKEFLAGS MFLAGS MAKELEVEL

# where the build puts a directory variable, as make expands it
dir_of() {
    printf 'show-dir:\n\t@echo "dir=$(%s)"\n' "$1" |
        $make -s --no-print-directory -C "$builddir" -f Makefile -f - show-dir | sed -n 's/^dir=//p'
}
bindir=$(dir_of bindir) man1dir=$(dir_of man1dir) pkglibdir=$(dir_of pkglibdir)
bashdir=$(dir_of bashcompletiondir) zshdir=$(dir_of zshcompletiondir)
case $zshdir in */zsh/site-functions) true ;; *) false ;; esac
ok $? "zsh completions go to DATADIR/zsh/site-functions ($zshdir)"
case $bashdir in */bash-completion/completions) true ;; *) false ;; esac
ok $? "bash completions go to bash-completion's completions folder ($bashdir)"

$make -s --no-print-directory -C "$builddir" install DESTDIR="$root" >"$d/log" 2>&1
ok $? "make install DESTDIR=..."
sed 's/^/# /' "$d/log" | tail -5
# the module only where Arrow was built in
module=
"$LABELAUDIT" --version | grep -q '^Formats: [^(]* parquet' && module="$pkglibdir/labelaudit-arrow.so"
printf '%s\n' "$bindir/labelaudit" "$man1dir/labelaudit.1" "$bashdir/labelaudit" \
    "$zshdir/_labelaudit" $module | sort >"$d/want"
(cd "$root" && find . ! -type d | sed 's|^\.||' | sort) >"$d/got"
cmp -s "$d/want" "$d/got"
ok $? "installed: the binary, the man page, the two completions, the Arrow module, nothing else"
cmp -s "$d/want" "$d/got" || diff "$d/want" "$d/got" | sed 's/^/# /'
"$root$bindir/labelaudit" --version >/dev/null
ok $? "the installed binary runs"
[ -x "$root$bindir/labelaudit" ] && [ ! -x "$root$man1dir/labelaudit.1" ] &&
    cmp -s "$srcdir/completions/labelaudit" "$root$bashdir/labelaudit" &&
    cmp -s "$srcdir/completions/_labelaudit" "$root$zshdir/_labelaudit"
ok $? "modes and contents as in the tree"
if [ -n "$module" ]; then
    (unset LABELAUDIT_ARROW_MODULE; "$root$bindir/labelaudit" -n 3 "$srcdir/samples/hf-sentiment.parquet") \
        >"$d/out" 2>&1
    grep -q 'hf-sentiment.parquet: parquet' "$d/out"
    ok $? "the installed binary loads the installed module"
fi

$make -s --no-print-directory -C "$builddir" uninstall DESTDIR="$root" >"$d/log" 2>&1
ok $? "make uninstall DESTDIR=..."
[ -z "$(cd "$root" && find . ! -type d)" ]
ok $? "make uninstall leaves no file behind"
finish
