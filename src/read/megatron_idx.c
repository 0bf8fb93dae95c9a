/* megatron_idx.c - see megatron_idx.h. */
#include "megatron_idx.h"

#include <stdio.h>  /* snprintf */
#include <string.h> /* memcmp, memcpy */

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int32_t la_megatron_length(const struct la_megatron_idx *x, uint64_t i)
{
    const unsigned char *p = x->lengths + i * 4;
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

int64_t la_megatron_pointer(const struct la_megatron_idx *x, uint64_t i)
{
    return (int64_t)le64(x->pointers + i * 8);
}

int64_t la_megatron_doc_entry(const struct la_megatron_idx *x, uint64_t i)
{
    return (int64_t)le64(x->doc_index + i * 8);
}

uint64_t la_megatron_document_of(const struct la_megatron_idx *x, uint64_t seq)
{
    if (x->doc_entries < 2 || (uint64_t)la_megatron_doc_entry(x, x->doc_entries - 1) <= seq)
        return UINT64_MAX;
    uint64_t lo = 0, hi = x->doc_entries - 1;   /* doc[lo] <= seq < doc[hi] */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)la_megatron_doc_entry(x, mid) <= seq)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The dtype of a code, as megatron-core's DType enum numbers them. */
static int dtype_of_code(int code, enum la_dtype *dt)
{
    static const enum la_dtype by_code[] = { LA_DT_COUNT, LA_DT_UINT8, LA_DT_INT8, LA_DT_INT16,
                                             LA_DT_INT32, LA_DT_INT64, LA_DT_FLOAT64,
                                             LA_DT_FLOAT32, LA_DT_UINT16 };
    if (code < 1 || code > 8)
        return -1;
    *dt = by_code[code];
    return 0;
}

/* The bytes the header's counts need: the header and the three arrays (the
 * sequence modes not counted). @return 0, or -1 when that overflows. */
static int needed_bytes(uint64_t s, uint64_t d, uint64_t *out)
{
    if (s > UINT64_MAX / 16 || d > UINT64_MAX / 16)
        return -1;
    uint64_t n = LA_MEGATRON_HEADER_LEN + 12 * s;
    if (n > UINT64_MAX - 8 * d)
        return -1;
    *out = n + 8 * d;
    return 0;
}

static int parse_header(const unsigned char *buf, size_t len, struct la_megatron_idx *x,
                        char *err, size_t errlen)
{
    if (len < LA_MEGATRON_MAGIC_LEN || memcmp(buf, LA_MEGATRON_MAGIC, LA_MEGATRON_MAGIC_LEN) != 0) {
        snprintf(err, errlen, "byte 0: not a Megatron index (no MMIDIDX magic)");
        return -1;
    }
    if (len < LA_MEGATRON_HEADER_LEN) {
        snprintf(err, errlen, "byte %zu: truncated header (%d bytes needed)", len,
                 LA_MEGATRON_HEADER_LEN);
        return -1;
    }
    uint64_t version = le64(buf + 9);
    if (version != 1) {
        snprintf(err, errlen, "byte 9: version %llu (megatron-core writes 1)",
                 (unsigned long long)version);
        return -1;
    }
    x->code = buf[17];
    if (dtype_of_code(x->code, &x->dtype) != 0) {
        snprintf(err, errlen, "byte 17: dtype code %d (known: 1 uint8, 2 int8, 3 int16, "
                 "4 int32, 5 int64, 6 float64, 7 float32, 8 uint16)", x->code);
        return -1;
    }
    x->itemsize = la_dtype_info(x->dtype)->size;
    x->sequences = le64(buf + 18);
    x->doc_entries = le64(buf + 26);
    uint64_t need;
    if (needed_bytes(x->sequences, x->doc_entries, &need) != 0 || need > len) {
        snprintf(err, errlen, "byte %zu: truncated: %llu sequences and %llu document entries "
                 "need more bytes than the index holds", len,
                 (unsigned long long)x->sequences, (unsigned long long)x->doc_entries);
        return -1;
    }
    x->multimodal = len == need + x->sequences && x->sequences > 0;
    if (len != need && !x->multimodal) {
        snprintf(err, errlen, "byte %llu: %llu bytes after the document index (the header's "
                 "counts account for %llu bytes)", (unsigned long long)need,
                 (unsigned long long)(len - need), (unsigned long long)need);
        return -1;
    }
    x->lengths = buf + LA_MEGATRON_HEADER_LEN;
    x->pointers = x->lengths + 4 * x->sequences;
    x->doc_index = x->pointers + 8 * x->sequences;
    return 0;
}

/* The document index: 0 first, never decreasing, its last the sequence count. */
static int check_documents(const struct la_megatron_idx *x, char *err, size_t errlen)
{
    if (x->doc_entries == 0) {
        snprintf(err, errlen, "byte 26: an empty document index (a writer stores 0 first)");
        return -1;
    }
    int64_t prev = 0;
    for (uint64_t d = 0; d < x->doc_entries; d++) {
        int64_t e = la_megatron_doc_entry(x, d);
        if (d == 0 && e != 0) {
            snprintf(err, errlen, "document index entry 0 is %lld, not 0", (long long)e);
            return -1;
        }
        if (e < prev || (uint64_t)e > x->sequences) {
            snprintf(err, errlen, "document %llu: ends before sequence %lld, %s",
                     (unsigned long long)(d - 1), (long long)e,
                     e < prev ? "before the previous document's end (out of order)"
                              : "past the last sequence");
            return -1;
        }
        prev = e;
    }
    /* the last entry closes the last document: megatron-core asserts it is the
     * sequence count (sequence_lengths.shape[0] == document_indices[-1]), and a
     * shorter index leaves the sequences after it in no document */
    if ((uint64_t)prev != x->sequences) {
        uint64_t at = (uint64_t)(x->doc_index - x->lengths) + LA_MEGATRON_HEADER_LEN +
                      8 * (x->doc_entries - 1);
        snprintf(err, errlen, "byte %llu: the document index ends at sequence %lld, but the "
                 "index holds %llu sequences (megatron-core refuses a dataset whose last "
                 "document entry is not its sequence count)", (unsigned long long)at,
                 (long long)prev, (unsigned long long)x->sequences);
        return -1;
    }
    return 0;
}

/* Every sequence within the .bin: a length >= 0, its bytes before bin_size. */
static int check_sequences(struct la_megatron_idx *x, uint64_t bin_size, char *err,
                           size_t errlen)
{
    uint64_t expect = 0;
    x->tokens = 0;
    x->contiguous = 1;
    for (uint64_t i = 0; i < x->sequences; i++) {
        int32_t n = la_megatron_length(x, i);
        int64_t p = la_megatron_pointer(x, i);
        uint64_t doc = la_megatron_document_of(x, i);
        char in_doc[48] = "";
        if (doc != UINT64_MAX)
            snprintf(in_doc, sizeof in_doc, " (document %llu)", (unsigned long long)doc);
        if (n < 0) {
            snprintf(err, errlen, "sequence %llu%s: length %d", (unsigned long long)i, in_doc, n);
            return -1;
        }
        uint64_t bytes = (uint64_t)n * x->itemsize;
        if (p < 0 || (uint64_t)p > bin_size || bytes > bin_size - (uint64_t)p) {
            snprintf(err, errlen, "sequence %llu%s: %d tokens at byte %lld run past the end of "
                     "the .bin (%llu bytes)", (unsigned long long)i, in_doc, n, (long long)p,
                     (unsigned long long)bin_size);
            return -1;
        }
        if ((uint64_t)p != expect)
            x->contiguous = 0;
        expect = (uint64_t)p + bytes;
        if (x->tokens > UINT64_MAX - (uint64_t)n) {
            snprintf(err, errlen, "sequence %llu%s: more tokens than 2^64",
                     (unsigned long long)i, in_doc);
            return -1;
        }
        x->tokens += (uint64_t)n;
    }
    return 0;
}

int la_megatron_idx_parse(const unsigned char *buf, size_t len, uint64_t bin_size,
                          struct la_megatron_idx *x, char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    if (parse_header(buf, len, x, err, errlen) != 0 || check_documents(x, err, errlen) != 0)
        return -1;
    return check_sequences(x, bin_size, err, errlen);
}
