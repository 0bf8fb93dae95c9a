#!/bin/sh
# fuzz-replay.sh - replay every fuzz seed and every input a fuzzer ever crashed
# on (tests/fuzz/corpus/TARGET, tests/fuzz/regress/TARGET) through the fuzz
# targets built without libFuzzer (tests/fuzz/replay_TARGET). Under the
# sanitizer build, a regression is an ASan/UBSan report and a failed test.
. "$srcdir/tests/setup.sh"
replay() {    # replay TARGET: its seeds and past crashes
    t=$1
    bin="$builddir/tests/fuzz/replay_$t"
    for dir in corpus regress; do
        for f in "$srcdir/tests/fuzz/$dir/$t"/*; do
            [ -f "$f" ] || continue
            "$bin" "$f" >"$d/out" 2>"$d/err"
            st=$?
            ok $st "$t: $dir/$(basename "$f")"
            [ $st -eq 0 ] || sed 's/^/# /' "$d/err" | head -20
        done
    done
}
for t in csv text npy_header npy npz gzip raw decode pt pickle safetensors megatron_idx mds litdata; do
    replay "$t"
done
# the mask readers' targets exist where configure found their library
for t in png tiff nifti yolo coco jsonl hdf5 mat wds model_config tokenizer data_yaml config_file arrow; do   # coco, jsonl, tokenizer: where yajl was found; hdf5, mat: libhdf5, libmatio; wds: libarchive; data_yaml, config_file: libyaml; arrow: Apache Arrow
    [ -x "$builddir/tests/fuzz/replay_$t" ] && replay "$t"
done
finish
