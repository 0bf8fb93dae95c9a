/* limit_jsonl.c - the limit for bench/jsonl.sh: yajl alone over the same JSON
 * Lines, a block at a time, the "label" value of each record checked against
 * [0, N) with the least work (no queue, no chunks, no line rules). Usage:
 * limit_jsonl FILE N; prints the labels, min, max and the out-of-range count. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

struct limit { int depth, at_label; long long n, lo, hi, bad, classes; };

static int on_key(void *ctx, const unsigned char *k, size_t n)
{
    struct limit *l = ctx;
    l->at_label = l->depth == 1 && n == 5 && memcmp(k, "label", 5) == 0;
    return 1;
}

static int on_number(void *ctx, const char *s, size_t n)
{
    struct limit *l = ctx;
    if (l->at_label) {
        char tmp[32];
        memcpy(tmp, s, n < 31 ? n : 31);
        tmp[n < 31 ? n : 31] = '\0';
        long long v = strtoll(tmp, NULL, 10);
        l->lo = l->n == 0 || v < l->lo ? v : l->lo;
        l->hi = l->n == 0 || v > l->hi ? v : l->hi;
        l->bad += v < 0 || v >= l->classes;
        l->n++;
        l->at_label = 0;
    }
    return 1;
}

static int on_start(void *ctx) { ((struct limit *)ctx)->depth++; return 1; }
static int on_end(void *ctx) { ((struct limit *)ctx)->depth--; return 1; }

int main(int argc, char **argv)
{
    static const yajl_callbacks cb = { .yajl_number = on_number, .yajl_map_key = on_key,
                                       .yajl_start_map = on_start, .yajl_end_map = on_end,
                                       .yajl_start_array = on_start, .yajl_end_array = on_end };
    struct limit l = { .classes = argc > 2 ? atoll(argv[2]) : 0 };
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    yajl_handle h = yajl_alloc(&cb, NULL, &l);
    static unsigned char buf[1 << 20];
    size_t got;
    if (!f || !h)
        return 2;
    yajl_config(h, yajl_allow_multiple_values, 1);
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        if (yajl_parse(h, buf, got) != yajl_status_ok)
            return 3;
    if (yajl_complete_parse(h) != yajl_status_ok)
        return 3;
    printf("%lld %lld %lld %lld\n", l.n, l.lo, l.hi, l.bad);
    yajl_free(h);
    fclose(f);
    return 0;
}
