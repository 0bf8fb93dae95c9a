/* scan.c - which backend scans: --backend=cpu|gpu|auto, with the CPU fallback. */
#include "scan.h"
#include "input.h"      /* la_source_*: format, compression, first bytes */
#include "msg.h"        /* la_verbose: -v says which backend and why */
#include "npy_header.h" /* la_npy_parse_header: a .npy file's dtype */
#include "options.h"    /* la_config */

#include <stdio.h>    /* snprintf */
#include <string.h>   /* strcmp */
#include <sys/stat.h> /* stat */

int la_auto_wants_gpu(const struct la_auto_hint *h, int threads)
{
    if (!h || h->unknown)
        return 0;
    if (h->in_place_float_bytes >= (int64_t)LA_GPU_MIN_BYTES && threads < LA_GPU_FLOAT_THREADS)
        return 1;
    return h->in_place_bytes >= (int64_t)LA_GPU_MIN_BYTES && threads < LA_GPU_INT_THREADS;
}

/* Add one regular file of size bytes to h, as its reader will see it: in
 * place when it is not compressed and is a .npy (its header parses; its dtype
 * says whether it holds floats) or raw (--dtype makes every file raw but an
 * .npy or .npz, whose magic bytes win: la_source_format). */
static void hint_file(const struct la_config *cfg, const char *path, int64_t size,
                      struct la_auto_hint *h)
{
    char err[LA_ERR_LEN];
    struct la_source *src;
    if (la_source_open(path, &src, err, sizeof err) != 0) {
        h->parsed_bytes += size;  /* the audit will report it; it scans nothing */
        return;
    }
    size_t len;
    const unsigned char *head = la_source_peek(src, &len);
    struct la_npy_header npy;
    int in_place = 0, is_float = 0;
    if (!la_source_is_compressed(src) && head) {
        if (la_npy_parse_header(head, len, &npy, err, sizeof err) >= 0) {
            in_place = 1;
            is_float = la_dtype_is_float(npy.dtype);
        } else if (cfg->has_dtype && !(len >= 2 && head[0] == 'P' && head[1] == 'K')) {
            in_place = 1;
            is_float = la_dtype_is_float((enum la_dtype)cfg->dtype);
        }
    }
    if (in_place) {
        h->in_place_bytes += size;
        h->in_place_float_bytes += is_float ? size : 0;
    } else {
        h->parsed_bytes += size;
    }
    la_source_close(src);
}

void la_auto_hint_of(const struct la_config *cfg, struct la_auto_hint *h)
{
    memset(h, 0, sizeof *h);
    int64_t total = 0;
    for (int i = 0; i < cfg->nfiles; i++) {
        struct stat st;
        if (strcmp(cfg->files[i], "-") == 0 || stat(cfg->files[i], &st) != 0 ||
            !S_ISREG(st.st_mode))
            h->unknown = 1;
        else
            total += (int64_t)st.st_size;
    }
    if (cfg->backend != LA_BACKEND_AUTO || h->unknown || total < (int64_t)LA_GPU_MIN_BYTES) {
        h->parsed_bytes = total; /* too little to matter: nothing is opened */
        return;
    }
    for (int i = 0; i < cfg->nfiles; i++) {
        struct stat st;
        if (stat(cfg->files[i], &st) == 0)
            hint_file(cfg, cfg->files[i], (int64_t)st.st_size, h);
    }
}

/* Why the auto rule (la_auto_wants_gpu) decided as it did, for -v. */
static void auto_why(const struct la_auto_hint *h, int threads, char *why, size_t len)
{
    double mib = 1.0 / (1 << 20), total = 0;
    if (h)
        total = (double)(h->in_place_bytes + h->parsed_bytes) * mib;
    if (!h || h->unknown)
        snprintf(why, len, "an input is not a regular file: the CPU could not read it again "
                 "if the GPU failed");
    else if (total < (double)LA_GPU_MIN_BYTES * mib)
        snprintf(why, len, "%lld bytes of input in all, under the %.0f MiB that pay for a "
                 "CUDA context", (long long)(h->in_place_bytes + h->parsed_bytes),
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
