/* megatron_idx.h - the index (.idx) of a Megatron-LM / NeMo indexed dataset,
 * parsed from a buffer with every count and offset checked against the two
 * files' sizes (no C library reads it). The layout, as megatron-core's
 * indexed_dataset.py (_IndexWriter) writes it, all little-endian:
 *
 *   9 bytes   "MMIDIDX\0\0"
 *   uint64    version, 1
 *   uint8     dtype code: 1 uint8, 2 int8, 3 int16, 4 int32, 5 int64,
 *             6 float64, 7 float32, 8 uint16
 *   uint64    S, the sequence count
 *   uint64    D, the document index's entries (documents + 1)
 *   int32[S]  sequence lengths, in tokens
 *   int64[S]  sequence pointers, byte offsets into the .bin
 *   int64[D]  document index: 0, then the sequence each document ends before
 *   int8[S]   sequence modes, only in multimodal datasets
 *
 * Kept apart from the reader (read_megatron.c) so that the fuzzer exercises
 * exactly this. */
#ifndef LA_MEGATRON_IDX_H
#define LA_MEGATRON_IDX_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t, int64_t */
#include "dtype.h"

#define LA_MEGATRON_MAGIC "MMIDIDX\0\0"
#define LA_MEGATRON_MAGIC_LEN 9
#define LA_MEGATRON_HEADER_LEN 34

struct la_megatron_idx {
    enum la_dtype dtype;
    unsigned itemsize;
    int code;                        /* the dtype code as stored */
    uint64_t sequences;              /* S */
    uint64_t doc_entries;            /* D: documents + 1 */
    int multimodal;                  /* a sequence-mode array follows */
    uint64_t tokens;                 /* the sum of the lengths */
    int contiguous;                  /* the sequences lie back to back from byte 0 of the .bin */
    const unsigned char *lengths;    /* S int32, within the parsed buffer */
    const unsigned char *pointers;   /* S int64 */
    const unsigned char *doc_index;  /* D int64 */
};

/** la_megatron_idx_parse() : parse buf (the whole .idx, len bytes) against a
 *  .bin of bin_size bytes. @return 0, or -1 with err set: "byte N: ..." for
 *  the header, "sequence I (document J): ..." or "document J: ..." for an
 *  entry. x points into buf afterwards. */
int la_megatron_idx_parse(const unsigned char *buf, size_t len, uint64_t bin_size,
                          struct la_megatron_idx *x, char *err, size_t errlen);

/** la_megatron_length(), la_megatron_pointer(), la_megatron_doc_entry() : entry i. */
int32_t la_megatron_length(const struct la_megatron_idx *x, uint64_t i);
int64_t la_megatron_pointer(const struct la_megatron_idx *x, uint64_t i);
int64_t la_megatron_doc_entry(const struct la_megatron_idx *x, uint64_t i);

/** la_megatron_document_of() : the document holding sequence seq, or
 *  UINT64_MAX when it lies after the last document's end (a writer that
 *  never called end_document for it). Valid on a parsed index only. */
uint64_t la_megatron_document_of(const struct la_megatron_idx *x, uint64_t seq);

#endif
