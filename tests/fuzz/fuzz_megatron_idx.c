/* fuzz_megatron_idx.c - the Megatron .idx parser (src/read/megatron_idx.h) over
 * a buffer, against .bin sizes of 0, a few bytes, 1 MiB and the most: it must
 * never read past len, and what it accepts must be coherent (the arrays within
 * the buffer, every sequence within the .bin, documents in order). */
#include "fuzz_common.h"

#include <stdio.h>  /* fprintf */
#include <stdlib.h> /* abort, malloc, free */
#include <string.h> /* memcpy, strncmp, strchr */

#include "megatron_idx.h"

static void fail(const char *why)
{
    fprintf(stderr, "fuzz oracle: %s\n", why);
    abort();
}

static void check_err(const char *err)
{
    if (!err[0] || strchr(err, '\n') ||
        (strncmp(err, "byte ", 5) != 0 && strncmp(err, "sequence ", 9) != 0 &&
         strncmp(err, "document ", 9) != 0))
        fail("an error that names no byte, sequence or document");
}

static void check_accepted(const struct la_megatron_idx *x, size_t len, uint64_t bin_size)
{
    uint64_t need = LA_MEGATRON_HEADER_LEN + 12 * x->sequences + 8 * x->doc_entries;
    if (need + (x->multimodal ? x->sequences : 0) != len || x->doc_entries == 0)
        fail("accepted an index whose counts do not account for its bytes");
    uint64_t tokens = 0;
    for (uint64_t i = 0; i < x->sequences; i++) {
        int32_t n = la_megatron_length(x, i);
        int64_t p = la_megatron_pointer(x, i);
        if (n < 0 || p < 0 || (uint64_t)p + (uint64_t)n * x->itemsize > bin_size)
            fail("accepted a sequence outside the .bin");
        tokens += (uint64_t)n;
        uint64_t d = la_megatron_document_of(x, i);
        if (d != UINT64_MAX && !(d + 1 < x->doc_entries &&
                                 (uint64_t)la_megatron_doc_entry(x, d) <= i &&
                                 i < (uint64_t)la_megatron_doc_entry(x, d + 1)))
            fail("a sequence's document does not hold it");
    }
    if (tokens != x->tokens)
        fail("tokens is not the sum of the lengths");
    for (uint64_t d = 1; d < x->doc_entries; d++)
        if (la_megatron_doc_entry(x, d) < la_megatron_doc_entry(x, d - 1))
            fail("accepted a document index out of order");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint64_t bin_sizes[] = { 0, 16, 1u << 20, UINT64_MAX };
    /* an exact-size copy, so ASan sees any read past len */
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    for (size_t k = 0; k < sizeof bin_sizes / sizeof *bin_sizes; k++) {
        struct la_megatron_idx x;
        char err[256] = "";
        if (la_megatron_idx_parse(buf, size, bin_sizes[k], &x, err, sizeof err) != 0)
            check_err(err);
        else
            check_accepted(&x, size, bin_sizes[k]);
    }
    free(buf);
    return 0;
}
