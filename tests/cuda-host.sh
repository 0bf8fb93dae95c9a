#!/bin/sh
# cuda-host.sh - the CUDA kernel's fold, run on the CPU, against the CPU reference.
#
# No GPU is needed: bench/gpu_bench --host-check runs the kernel's per-element
# fold (fold_one() in src/scan_cuda.cu, __host__ __device__) serially in a
# grid-stride order, through the backend's own host assembly (apply_chunk(),
# key_to_num(), the BAD_CAP overflow rescan), for every dtype and rule, and
# compares every accumulated field with la_scan_chunk_cpu_ref(). It prints TAP.
# A build without CUDA has no gpu_bench: the whole script is skipped.
bench=${builddir:-.}/bench/gpu_bench
if [ ! -x "$bench" ]; then
    echo "1..0 # SKIP built without CUDA (no bench/gpu_bench)"
    exit 0
fi
exec "$bench" --host-check
