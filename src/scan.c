/* scan.c - which backend scans: --backend=cpu|gpu|auto, with the CPU fallback. */
#include "scan.h"

#include <stdio.h> /* snprintf */

int la_scan_choose(struct la_scan_backend *b, int choice, int threads, int64_t expected_bytes,
                   char *err, size_t errlen)
{
    char why[LA_ERR_LEN];
    if (choice == LA_BACKEND_GPU) {
        if (!la_gpu_probe(why, sizeof why)) {
            snprintf(err, errlen, "no CUDA device available (%s)", why);
            return -1;
        }
        return la_scan_gpu_open(b, threads, err, errlen);
    }
    /* auto: the GPU pays for its start-up and transfers only on large inputs */
    if (choice == LA_BACKEND_AUTO && expected_bytes >= (int64_t)LA_GPU_MIN_BYTES &&
        la_gpu_probe(why, sizeof why) && la_scan_gpu_open(b, threads, why, sizeof why) == 0)
        return 0;
    return la_scan_cpu_open(b, threads);
}
