#!/bin/sh
# config-file.sh - .labelaudit.yaml, the project config file: found from the
# current directory up to the repository's root (.git), its keys the long
# options (applied through the command line's own parsers, which then win),
# per-path sections, --no-config, the report naming the file, and every
# malformed file or unknown key a usage error (exit 2) naming file and line.
. "$srcdir/tests/setup.sh"
s="$srcdir/samples"

if ! "$LABELAUDIT" --version | grep -q 'libyaml'; then
    echo "ok 1 # SKIP built without libyaml: .labelaudit.yaml is not read (a found one is exit 2, said)"
    finish
    exit
fi

r="$d/repo"
mkdir -p "$r/.git" "$r/sub/deeper" "$r/data"
cp "$s/stray-10.csv" "$r/data/train.csv"
cp -r "$s/voc-masks" "$r/data/masks"
cfg() { cat >"$r/.labelaudit.yaml"; }
in_dir() {   # in_dir DIR ARGS... : run labelaudit there
    dir=$1; shift
    (cd "$dir" && "$LABELAUDIT" "$@") >"$d/out" 2>"$d/err"
    rc=$?
}

cfg <<'YAML'
# the project's defaults
num-classes: 10
fail-on: warning
histogram: false
paths:
  data/masks:
    num-classes: 21
    ignore-index: 255
YAML
in_dir "$r" --json data/train.csv
[ "$(jqf '.config | [.num_classes, .config_file] | @json')" = '[10,".labelaudit.yaml"]' ]
ok $? "num-classes: 10 is -n 10; the JSON names the file ($(jqf '.config | [.num_classes, .config_file] | @json'))"
in_dir "$r/sub/deeper" data 2>/dev/null
in_dir "$r/sub/deeper" ../../data/train.csv
expect_out '^config: \.\./\.\./\.labelaudit\.yaml$' "found two folders up; the text report names it"
expect_out 'labels outside \[0, 10)' "... and its num-classes is used"
in_dir "$r" -n 11 --json data/train.csv
[ "$(jqf '.config.num_classes')" = 11 ]
ok $? "the command line wins (-n 11)"
in_dir "$r" --no-config --json data/train.csv
[ "$(jqf '.config | [.num_classes, has("config_file")] | @json')" = '[null,false]' ]
ok $? "--no-config: the file is not read, nor named"
in_dir "$r" --json --fail-on=never data/train.csv
expect_status 0 "fail-on: warning, and --fail-on=never on the command line"
cp -r "$r" "$d/nogit" && rm -r "$d/nogit/.git" && mkdir -p "$d/above/repo2/.git"
cp "$r/.labelaudit.yaml" "$d/above/"
in_dir "$d/above/repo2" --json "$r/data/train.csv"
[ "$(jqf '.config.num_classes')" = null ]
ok $? "the search stops at the repository's root (.git): a file above it is not read"

# per-path sections: a FILE at or below the path, or matching it as a glob
if "$LABELAUDIT" --version | grep -q '^Formats:.* png '; then
    in_dir "$r" --json data/masks
    [ "$(jqf '.config | [.num_classes, .ignore_index] | @json')" = '[21,255]' ]
    ok $? "paths: data/masks: its own num-classes and ignore-index"
    in_dir "$r/data" --json masks/2007_000032.png
    [ "$(jqf '.config | [.num_classes, .ignore_index] | @json')" = '[21,255]' ]
    ok $? "... for a file below it, from another folder"
    in_dir "$r" data/masks data/train.csv
    expect_status 2 "a run of FILEs some in a section, some not"
    expect_err "^labelaudit: \.labelaudit\.yaml:6: section 'data/masks' holds some FILEs, not 'data/train.csv'" \
        "... names the file, the section's line and the FILE left out"
else
    echo "ok $((n_tests += 1)) # SKIP per-path sections on masks: built without libspng"
fi
cfg <<'YAML'
paths:
  "data/*.csv":
    num-classes: 9
YAML
in_dir "$r" --json data/train.csv
[ "$(jqf '.config.num_classes')" = 9 ]
ok $? "a section's path as a glob"

# lists, booleans, paths relative to the file's folder
cfg <<'YAML'
num-classes: 10
batch-size: 3
histogram: true
annotations: [github, "gitlab:cq.json"]
html: report.html
YAML
in_dir "$r/sub" ../data/train.csv
[ -s "$r/report.html" ] && [ -s "$r/sub/cq.json" ] && grep -q '^::error ' "$d/out" &&
    grep -q 'batching: 1041 samples, batch 3' "$d/out" && grep -q 'class_weights\|weight=' "$d/out"
ok $? "a list gives the option once per item; true gives a switch; html: relative to the file's folder"
cfg <<'YAML'
histogram: false
YAML
in_dir "$r" -n 10 data/train.csv
! grep -q 'weight=' "$d/out"
ok $? "false: the switch is not given"

# mistakes: exit 2, the file, its line, and what is wrong
bad_case() {   # bad_case DESCRIPTION MESSAGE-REGEX  (after the file is written)
    in_dir "$r/sub" ../data/train.csv
    [ "$rc" -eq 2 ] && grep -q -e "$2" "$d/err" && [ ! -s "$d/out" ]
    ok $? "$1 (exit $rc)"
    [ "$rc" -eq 2 ] || sed 's/^/# err: /' "$d/err" | head -3
}
printf 'fail-on: warning\nnum-clases: 10\n' >"$r/.labelaudit.yaml"
bad_case "an unknown key, with the close match" \
    "^labelaudit: \.\./\.labelaudit\.yaml:2: unknown key 'num-clases' (did you mean 'num-classes'?)$"
printf 'fail_on: warning\n' >"$r/.labelaudit.yaml"; bad_case "fail_on for fail-on" "yaml:1: unknown key 'fail_on' (did you mean 'fail-on'?)"
printf 'colours-please: 1\n' >"$r/.labelaudit.yaml"; bad_case "an unknown key far from any" "yaml:1: unknown key 'colours-please' (keys are long option names"
printf 'num-classes: ten\n' >"$r/.labelaudit.yaml"; bad_case "a value the option refuses, at its line" "yaml:1: invalid --num-classes 'ten'"
printf 'histogram: maybe\n' >"$r/.labelaudit.yaml"; bad_case "a switch neither true nor false" "yaml:1: 'histogram' is true or false, not 'maybe'"
printf 'help: true\n' >"$r/.labelaudit.yaml"; bad_case "help is no key" "yaml:1: unknown key 'help'"
printf 'no-config: true\n' >"$r/.labelaudit.yaml"; bad_case "no-config is no key" "yaml:1: unknown key 'no-config'"
printf 'num-classes: [1\n' >"$r/.labelaudit.yaml"; bad_case "not YAML" "yaml:2: not YAML"
printf -- '- 1\n- 2\n' >"$r/.labelaudit.yaml"; bad_case "a list, not a mapping" "yaml:1: the file is a mapping of long option names"
printf 'num-classes: {a: 1}\n' >"$r/.labelaudit.yaml"; bad_case "a mapping as a value" "yaml:1: 'num-classes' takes a value or a list of values"
printf 'x: &a 10\nnum-classes: *a\n' >"$r/.labelaudit.yaml"; bad_case "an alias" "yaml:2: an alias"
printf 'paths:\n  data:\n    paths: {}\n' >"$r/.labelaudit.yaml"; bad_case "paths inside a section" "yaml:3: 'paths' inside a path's section"
printf 'paths: [a]\n' >"$r/.labelaudit.yaml"; bad_case "paths as a list" "yaml:1: 'paths' is a mapping"
printf 'paths:\n  data: 10\n' >"$r/.labelaudit.yaml"; bad_case "a section that is no mapping" "yaml:2: a path's section is a mapping"
printf 'num-classes: 10\n---\nfail-on: warning\n' >"$r/.labelaudit.yaml"; bad_case "two documents" "yaml:2: more than one document"
printf '[a]: 1\n' >"$r/.labelaudit.yaml"; bad_case "a key that is a list" "yaml:1: a key is a long option's name"
printf 'num-classes: [[1]]\n' >"$r/.labelaudit.yaml"; bad_case "a list of lists" "yaml:1: a list of lists"
printf 'num-classes: "1\\0"\n' >"$r/.labelaudit.yaml"; bad_case "a NUL in a value" "yaml:1: a NUL byte"
head -c 1100000 /dev/zero | tr '\0' '#' >"$r/.labelaudit.yaml"; bad_case "a file past 1 MiB" "yaml: larger than 1048576 bytes"
chmod 000 "$r/.labelaudit.yaml" 2>/dev/null
if [ "$(id -u)" -ne 0 ]; then
    in_dir "$r" data/train.csv
    [ "$rc" -eq 2 ] && grep -q 'labelaudit: \.labelaudit\.yaml: Permission denied' "$d/err"
    ok $? "an unreadable file: exit 2, said"
fi
chmod 644 "$r/.labelaudit.yaml"
# an empty file, or one of comments only: no options, still named
: >"$r/.labelaudit.yaml"
in_dir "$r" --json data/train.csv
[ "$rc" -eq 0 ] && [ "$(jqf '.config.config_file')" = .labelaudit.yaml ]
ok $? "an empty file: no options, named"
printf '# nothing yet\n' >"$r/.labelaudit.yaml"
in_dir "$r" --json data/train.csv
[ "$rc" -eq 0 ]
ok $? "comments only: no options"
# --help and --version need no config file, even a broken one
printf 'num-clases: 10\n' >"$r/.labelaudit.yaml"
in_dir "$r" --help
[ "$rc" -eq 0 ] && grep -q -- '--no-config' "$d/out"
ok $? "--help runs past a broken file, and names --no-config"
in_dir "$r" --no-config data/train.csv
expect_status 0 "--no-config runs past a broken file"
finish
