/* scan.c - which backend scans: --backend=cpu|gpu|auto, with the CPU fallback. */
#include "scan.h"
#include "msg.h"        /* la_verbose: -v says which backend and why */
#include "options.h"    /* LA_BACKEND_* */

#include <stdio.h>    /* snprintf */

int la_auto_wants_gpu(const struct la_auto_hint *h, int threads)
{
    if (!h || h->unknown)
        return 0;
    if (h->in_place_float_bytes >= (int64_t)LA_GPU_MIN_BYTES && threads < LA_GPU_FLOAT_THREADS)
        return 1;
    return h->in_place_bytes >= (int64_t)LA_GPU_MIN_BYTES && threads < LA_GPU_INT_THREADS;
}

/* Why the auto rule (la_auto_wants_gpu) decided as it did, for -v. */
static void auto_why(const struct la_auto_hint *h, int threads, char *why, size_t len)
{
    double mib = 1.0 / (1 << 20), total = 0;
    if (h)
        total = (double)(h->in_place_bytes + h->parsed_bytes + h->other_bytes) * mib;
    if (!h || h->unknown)
        snprintf(why, len, "an input is not a regular file: the CPU could not read it again "
                 "if the GPU failed");
    else if (total < (double)LA_GPU_MIN_BYTES * mib)
        snprintf(why, len, "%lld bytes of input in all, under the %.0f MiB that pay for a "
                 "CUDA context", (long long)(h->in_place_bytes + h->parsed_bytes + h->other_bytes),
                 (double)LA_GPU_MIN_BYTES * mib);
    else if (h->in_place_bytes < (int64_t)LA_GPU_MIN_BYTES)
        snprintf(why, len, "%.3g MiB of the %.3g MiB read in place, under the %.0f MiB that "
                 "pay for a CUDA context (parsing bounds the rest)",
                 (double)h->in_place_bytes * mib, total, (double)LA_GPU_MIN_BYTES * mib);
    else if (la_auto_wants_gpu(h, threads))
        snprintf(why, len, "%.3g MiB read in place (%.3g MiB floats), -j %d",
                 (double)h->in_place_bytes * mib, (double)h->in_place_float_bytes * mib, threads);
    else
        snprintf(why, len, "-j %d: the CPU threads keep up (the GPU helps under %d for "
                 "integers, %d for floats)", threads, LA_GPU_INT_THREADS, LA_GPU_FLOAT_THREADS);
}

int la_scan_choose(struct la_scan_backend *b, int choice, int threads,
                   const struct la_auto_hint *hint, char *err, size_t errlen)
{
    char why[LA_ERR_LEN], rule[LA_ERR_LEN] = "";
    if (choice == LA_BACKEND_GPU) {
        if (!la_gpu_probe(why, sizeof why)) {
            snprintf(err, errlen, "no CUDA device available (%s)", why);
            return -1;
        }
        la_verbose(NULL, "backend gpu (--backend=gpu)");
        return la_scan_gpu_open(b, threads, err, errlen);
    }
    if (choice == LA_BACKEND_CPU) {
        la_verbose(NULL, "backend cpu (--backend=cpu), -j %d", threads);
        return la_scan_cpu_open(b, threads);
    }
    /* auto: the GPU pays for its start-up and transfers only where the CPU is slower */
    if (la_verbose_on())
        auto_why(hint, threads, rule, sizeof rule);
    if (!la_auto_wants_gpu(hint, threads)) {
        la_verbose(NULL, "backend cpu (auto: %s), -j %d", rule, threads);
        return la_scan_cpu_open(b, threads);
    }
    if (la_gpu_probe(why, sizeof why) && la_scan_gpu_open(b, threads, why, sizeof why) == 0) {
        la_verbose(NULL, "backend gpu (auto: %s)", rule);
        return 0;
    }
    la_verbose(NULL, "backend cpu (auto would use a GPU: %s; but %s), -j %d", rule, why,
               threads);
    return la_scan_cpu_open(b, threads);
}
