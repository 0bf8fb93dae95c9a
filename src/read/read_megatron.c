/* read_megatron.c - Megatron-LM / NeMo indexed datasets: PREFIX.idx (the
 * index, megatron_idx.h) and PREFIX.bin (the tokens). FILE may be either
 * path or the prefix. One sequence is one sample; the report names each bad
 * token by its sequence, its document and its position in the sequence.
 *
 * A .bin written by megatron-core's builder holds its sequences back to back
 * from byte 0: it is offered to the scan as one run of values (reader.h), read
 * in place. Any other layout is read sequence by sequence with pread. */
#include "reader.h"
#include "label_notes.h"
#include "columns.h"      /* each sequence against the model's position table */
#include "megatron_idx.h"
#include "util.h"         /* la_last_at_most */

#include <errno.h>    /* errno */
#include <fcntl.h>    /* open */
#include <stdlib.h>   /* malloc, free */
#include <string.h>   /* strlen, strerror */
#include <sys/mman.h> /* mmap */
#include <sys/stat.h> /* fstat */
#include <unistd.h>   /* pread, close */

#define MEGATRON_CHUNK_BYTES (4u << 20)

/* What the scan and locate() need: the sequence starts (in tokens), and the
 * index for the documents (it points into the reader's mapping of the .idx,
 * which stays open until after locate()). */
struct megatron_places {
    uint64_t n;               /* sequences */
    uint64_t *start;          /* n + 1: token index of each sequence's first, then the total */
    struct la_megatron_idx x;
};

struct megatron_state {
    int bin_fd;
    unsigned char *idx_map;
    size_t idx_len;
    struct la_megatron_idx x;
    struct megatron_places *places;   /* owned by the notes once given to them */
    unsigned char *buf;
    uint64_t seq, in_seq;             /* next() position: sequence, token inside it */
    uint64_t next_index;
    int swap;
    char prefix[4096];
};

/* The prefix of path: without a trailing .idx or .bin. */
static void prefix_of(const char *path, char *out, size_t len)
{
    size_t n = strlen(path);
    if (n > 4 && (la_name_ends_in(path, ".idx") || la_name_ends_in(path, ".bin")))
        n -= 4;
    if (n >= len)
        n = len - 1;
    memcpy(out, path, n);
    out[n] = '\0';
}

static int map_index(struct la_reader *r, struct megatron_state *t)
{
    char path[4200];
    snprintf(path, sizeof path, "%s.idx", t->prefix);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return la_reader_set_error(r, "%s: %s (a Megatron dataset is PREFIX.idx and PREFIX.bin)",
                                   path, strerror(e));
    }
    t->idx_len = (size_t)st.st_size;
    if (t->idx_len == 0) {
        close(fd);
        return la_reader_set_error(r, "%s: byte 0: empty index", path);
    }
    t->idx_map = mmap(NULL, t->idx_len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (t->idx_map == MAP_FAILED) {
        t->idx_map = NULL;
        return la_reader_set_error(r, "%s: mmap: %s", path, strerror(errno));
    }
    return 0;
}

static int open_bin(struct la_reader *r, struct megatron_state *t, uint64_t *size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s.bin", t->prefix);
    struct stat st;
    t->bin_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (t->bin_fd < 0 || fstat(t->bin_fd, &st) != 0)
        return la_reader_set_error(r, "%s: %s (a Megatron dataset is PREFIX.idx and PREFIX.bin)",
                                   path, strerror(errno));
    *size = (uint64_t)st.st_size;
    return 0;
}

static void free_places(void *ctx)
{
    struct megatron_places *p = ctx;
    if (!p)
        return;
    free(p->start);
    free(p);
}

/* The sequence of a token index: the last start at or before it. */
static uint64_t sequence_of(void *ctx, uint64_t index)
{
    const struct megatron_places *p = ctx;
    if (p->n == 0 || index >= p->start[p->n])
        return LA_NO_SAMPLE;
    uint64_t lo = la_last_at_most(p->start, p->n, index);
    while (lo + 1 < p->n && p->start[lo + 1] == p->start[lo] && p->start[lo + 1] <= index)
        lo++;                               /* past empty sequences */
    return lo;
}

static uint64_t sequence_end(void *ctx, uint64_t seq)
{
    const struct megatron_places *p = ctx;
    return seq < p->n ? p->start[seq + 1] : p->start[p->n];
}

static int places_build(struct megatron_state *t)
{
    struct megatron_places *p = calloc(1, sizeof *p);
    uint64_t n = t->x.sequences;
    if (!p || n >= SIZE_MAX / sizeof(uint64_t) - 1 ||
        !(p->start = malloc((size_t)(n + 1) * sizeof *p->start))) {
        free_places(p);
        return -1;
    }
    p->n = n;
    p->x = t->x;
    uint64_t at = 0;
    for (uint64_t i = 0; i < n; i++) {
        p->start[i] = at;
        at += (uint64_t)la_megatron_length(&t->x, i);
    }
    p->start[n] = at;
    t->places = p;
    return 0;
}

/* Name each bad token: its sequence, document and position. */
static int megatron_locate(struct la_notes *n, const uint64_t *index, size_t count)
{
    const struct megatron_places *p = n->ctx;
    for (size_t i = 0; i < count; i++) {
        uint64_t s = sequence_of(n->ctx, index[i]);
        if (s == LA_NO_SAMPLE)
            continue;
        uint64_t pos = index[i] - p->start[s], doc = la_megatron_document_of(&p->x, s);
        char where[LA_NOTE_LEN], in_doc[48] = " (no document)";
        if (doc != UINT64_MAX)
            snprintf(in_doc, sizeof in_doc, " (document %llu)", (unsigned long long)doc);
        snprintf(where, sizeof where, "sequence %llu%s token %llu", (unsigned long long)s,
                 in_doc, (unsigned long long)pos);
        cJSON *o = cJSON_CreateObject();
        if (o) {
            cJSON_AddNumberToObject(o, "index", (double)index[i]);
            cJSON_AddNumberToObject(o, "sample", (double)s);
            if (doc == UINT64_MAX)
                cJSON_AddNullToObject(o, "document");
            else
                cJSON_AddNumberToObject(o, "document", (double)doc);
            cJSON *at = cJSON_AddArrayToObject(o, "at");
            cJSON_AddItemToArray(at, cJSON_CreateNumber((double)pos));
        }
        if (la_notes_problem(n, LA_P_AT, index[i], s, where, "", o) != 0)
            return -1;
    }
    return 0;
}

/* Megatron's GPT and BERT datasets cut their samples across sequences, so a
 * long sequence (a document) is no crash by itself. */
#define PACKED_FIX "Megatron's GPT and BERT datasets cut samples of --seq-length tokens " \
                   "across sequences, so these alone do not crash; a loader that feeds one " \
                   "sequence as one sample does: truncate them, or give --seq-len to check " \
                   "the samples"

/* The lengths against the model's position table (--model: columns.h):
 * with --seq-len, the training samples (Megatron's --seq-length positions,
 * windows of L + 1 ids); else each sequence, whose lengths the .idx holds
 * (no read of the .bin). */
static int check_lengths(struct la_reader *r, const struct megatron_state *t)
{
    const struct la_read_opts *o = la_read_opts_or_default(r->opts);
    if (!o->columns || o->columns->model.length == LA_LEN_NONE)
        return 0;
    if (o->seq_len) {
        uint64_t tail = t->x.tokens % o->seq_len;
        return la_column_check_blocks(o->columns, o->seq_len, t->x.tokens / o->seq_len + !!tail,
                                      tail ? tail : o->seq_len, LA_FEED_WHOLE, r->notes);
    }
    struct la_column_check *c = la_column_check_stream(o->columns, "", "sequence", PACKED_FIX);
    if (!c)
        return -1;
    for (uint64_t i = 0; i < t->x.sequences; i++)
        la_column_check_length(c, i, (uint64_t)la_megatron_length(&t->x, i));
    return la_column_check_finish(c, r->notes);
}

/* The report's "megatron" object and the layout the scan and report use. */
static int give_notes(struct la_reader *r, struct megatron_state *t)
{
    struct la_notes *n = r->notes;
    if (!n)
        return 0;
    n->json = cJSON_CreateObject();
    if (!n->json)
        return -1;
    cJSON_AddStringToObject(n->json, "prefix", t->prefix);
    cJSON_AddNumberToObject(n->json, "sequences", (double)t->x.sequences);
    cJSON_AddNumberToObject(n->json, "documents",
                            (double)(t->x.doc_entries ? t->x.doc_entries - 1 : 0));
    cJSON_AddNumberToObject(n->json, "tokens", (double)t->x.tokens);
    cJSON_AddNumberToObject(n->json, "dtype_code", t->x.code);
    cJSON_AddBoolToObject(n->json, "multimodal", t->x.multimodal);
    n->has_samples = 1;
    n->samples = t->x.sequences;
    n->sample_of = sequence_of;
    n->sample_end = sequence_end;
    n->sample_ctx = t->places;
    n->samples_ordered = 1;
    n->locate = megatron_locate;
    n->ctx = t->places;
    n->free_ctx = free_places;
    t->places = NULL;         /* the notes own them now */
    if (check_lengths(r, t) != 0)
        return -1;
    return la_notes_line(n, "megatron: %llu sequences in %llu documents, %llu tokens (%s)",
                         (unsigned long long)t->x.sequences,
                         (unsigned long long)(t->x.doc_entries ? t->x.doc_entries - 1 : 0),
                         (unsigned long long)t->x.tokens, la_dtype_info(t->x.dtype)->name);
}

static int megatron_open(struct la_reader *r)
{
    struct megatron_state *t = calloc(1, sizeof *t);
    if (!t)
        return la_reader_set_error(r, "out of memory");
    t->bin_fd = -1;
    r->state = t;
    if (strcmp(r->path, "-") == 0)
        return la_reader_set_error(r, "a Megatron dataset is read from its two files "
                                   "(PREFIX.idx and PREFIX.bin), not from standard input");
    prefix_of(r->path, t->prefix, sizeof t->prefix);
    uint64_t bin_size = 0;
    char err[LA_ERR_LEN];
    if (map_index(r, t) != 0 || open_bin(r, t, &bin_size) != 0)
        return -1;
    if (la_megatron_idx_parse(t->idx_map, t->idx_len, bin_size, &t->x, err, sizeof err) != 0)
        return la_reader_set_error(r, "%s%s%s", la_name_ends_in(r->path, ".idx") ? "" : t->prefix,
                                   la_name_ends_in(r->path, ".idx") ? "" : ".idx: ", err);
    if (places_build(t) != 0 || !(t->buf = malloc(MEGATRON_CHUNK_BYTES)))
        return la_reader_set_error(r, "out of memory");
    r->info.dtype = t->x.dtype;
    r->info.ndim = 1;
    r->info.shape[0] = t->x.tokens;
    r->info.shape_known = 1;
    t->swap = t->x.itemsize > 1 && la_host_is_big_endian();
    if (t->x.contiguous && !t->swap) {
        r->has_run = 1;
        r->run = (struct la_file_run){ t->bin_fd, 0, t->x.tokens, t->x.dtype };
    }
    if (give_notes(r, t) != 0)
        return la_reader_set_error(r, "out of memory");
    return 0;
}

/* The next tokens, in sequence order, at most a chunk of them. */
static int megatron_next(struct la_reader *r, struct la_chunk *out)
{
    struct megatron_state *t = r->state;
    while (t->seq < t->x.sequences &&
           t->in_seq >= (uint64_t)la_megatron_length(&t->x, t->seq)) {
        t->seq++;
        t->in_seq = 0;
    }
    if (t->seq >= t->x.sequences)
        return 0;
    uint64_t left = (uint64_t)la_megatron_length(&t->x, t->seq) - t->in_seq;
    uint64_t fit = MEGATRON_CHUNK_BYTES / t->x.itemsize;
    size_t n = (size_t)(left < fit ? left : fit);
    uint64_t at = (uint64_t)la_megatron_pointer(&t->x, t->seq) + t->in_seq * t->x.itemsize;
    size_t want = n * t->x.itemsize, got = 0;
    while (got < want) {
        ssize_t k = pread(t->bin_fd, t->buf + got, want - got, (off_t)(at + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return la_reader_set_error(r, "%s.bin: byte %llu: %s", t->prefix,
                                       (unsigned long long)(at + got),
                                       k < 0 ? strerror(errno) : "file shrank while being read");
        got += (size_t)k;
    }
    if (t->swap)
        la_byteswap(t->buf, n, t->x.itemsize);
    *out = (struct la_chunk){ t->x.dtype, t->buf, n, t->next_index, NULL };
    t->next_index += n;
    t->in_seq += n;
    return 1;
}

static void megatron_close(struct la_reader *r)
{
    struct megatron_state *t = r->state;
    if (!t)
        return;
    if (t->idx_map)
        munmap(t->idx_map, t->idx_len);
    if (t->bin_fd >= 0)
        close(t->bin_fd);
    free_places(t->places);
    free(t->buf);
    free(t);
    r->state = NULL;
}

int la_megatron_magic(const unsigned char *head, size_t len)
{
    return len >= LA_MEGATRON_MAGIC_LEN && memcmp(head, LA_MEGATRON_MAGIC, LA_MEGATRON_MAGIC_LEN) == 0;
}

const struct la_reader_ops la_reader_megatron = { megatron_open, megatron_next, megatron_close };
