/* read_wds.c - WebDataset shards: a tar archive (through libarchive) whose
 * members are grouped into samples by key, as webdataset's tariterators.py
 * does; each sample's label is one member holding an integer in text.
 *
 * The tar is read as a stream from the source (input.h), so a .tar.gz, .tar.xz
 * or .tar.zst shard and standard input work alike: the source decompresses,
 * libarchive only parses tar. Memory is bounded: one chunk of labels, the
 * current key, and at most LABEL_MAX_BYTES of the label member; every other
 * member's data is skipped unread.
 *
 * A sample without a label member is a sample (in the batches) with no
 * label: the labels are the elements, numbered without gaps, and each one's
 * sample is its key's ordinal, mapped through the runs of samples without a
 * label (one entry per run, so a shard that misses every label costs one). */
#include "config.h"
#include "reader.h"
#include "label_notes.h"
#include "util.h"   /* la_grow_n */

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>  /* errno, ERANGE */
#include <pthread.h> /* pthread_mutex_t */
#include <stdlib.h> /* malloc, realloc, free */
#include <string.h> /* strchr, strrchr, strlen, memcpy, strcmp */

#define WDS_CHUNK 65536          /* labels per chunk */
#define WDS_READ_BYTES 65536     /* bytes per read from the source */
#define LABEL_MAX_BYTES 256      /* a label member longer than this is not an integer worth reading */

/* webdataset's label members, in the order one is preferred over the next. */
static const char *const default_keys[] = { "cls", "label", "target", "idx" };
#define N_DEFAULT_KEYS (sizeof default_keys / sizeof default_keys[0])

/* A run of samples without a label, met before the label of index `label`:
 * from that label on, a label's sample is its index + `missing` (all runs so far). */
struct gap {
    uint64_t label;
    uint64_t missing;
};

struct wds_state {
    struct archive *ar;
    unsigned char readbuf[WDS_READ_BYTES];
    int64_t values[WDS_CHUNK];
    size_t n_values;
    uint64_t first_index;        /* of values[0] */
    uint64_t labels;             /* labels so far: the next one's index */
    uint64_t samples;            /* keys seen so far: the current sample's ordinal is samples - 1 */
    /* the sample of each label (wds_sample_of), read by the scan's thread
     * while this reader's thread adds to it: under the lock */
    struct gap *gaps;
    size_t n_gaps, cap_gaps;
    pthread_mutex_t gaps_lock;
    char *key;                   /* the current sample's key, NULL before the first */
    size_t key_cap;
    /* the current sample's label: the best member seen (rank into the key list) */
    int label_rank;              /* -1: none yet */
    unsigned seen;               /* bit per rank: that member was met (a duplicate is refused) */
    char label_text[LABEL_MAX_BYTES + 1];
    int label_too_long;
    uint64_t label_bytes;
    uint64_t missing;            /* samples without a label member */
    char unparsable[LABEL_MAX_BYTES + 64];
    int pending_unparsable;      /* flushed values first, then this cell */
    uint64_t unparsable_index;
    int at_end;
};

/* The sample (key ordinal) of label `index`: notes->sample_of. */
static uint64_t wds_sample_of(void *ctx, uint64_t index)
{
    struct wds_state *t = ctx;
    pthread_mutex_lock(&t->gaps_lock);
    size_t lo = 0, hi = t->n_gaps;       /* the runs met before label index */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->gaps[mid].label <= index)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t missing = lo ? t->gaps[lo - 1].missing : 0;
    pthread_mutex_unlock(&t->gaps_lock);
    return index + missing;
}

/* One more sample without a label, before the label of index t->labels. */
static int add_gap(struct wds_state *t)
{
    pthread_mutex_lock(&t->gaps_lock);
    int rc = 0;
    if (t->n_gaps && t->gaps[t->n_gaps - 1].label == t->labels) {
        t->gaps[t->n_gaps - 1].missing++;
    } else if (la_grow_n(&t->gaps, &t->cap_gaps, t->n_gaps + 1, sizeof *t->gaps, 16) != 0) {
        rc = -1;
    } else {
        uint64_t before = t->n_gaps ? t->gaps[t->n_gaps - 1].missing : 0;
        t->gaps[t->n_gaps++] = (struct gap){ t->labels, before + 1 };
    }
    pthread_mutex_unlock(&t->gaps_lock);
    return rc;
}

/* libarchive pulls the source's (decompressed) bytes through this. */
static la_ssize_t source_read(struct archive *a, void *client, const void **buf)
{
    struct la_reader *r = client;
    struct wds_state *t = r->state;
    ssize_t got = la_source_read(r->src, t->readbuf, sizeof t->readbuf);
    if (got < 0) {
        archive_set_error(a, EIO, "%s", la_source_error(r->src));
        return -1;
    }
    *buf = t->readbuf;
    return got;
}

static int wds_open(struct la_reader *r)
{
    struct wds_state *t = calloc(1, sizeof *t);
    if (!t)
        return la_reader_set_error(r, "out of memory");
    r->state = t;
    t->label_rank = -1;
    pthread_mutex_init(&t->gaps_lock, NULL);
    r->info.dtype = LA_DT_INT64;
    r->info.ndim = 1;
    /* the "wds" object of the JSON report: its problems, the samples seen */
    if (r->notes && !(r->notes->json = cJSON_CreateObject()))
        return la_reader_set_error(r, "out of memory");
    if (r->notes) {
        r->notes->sample_of = wds_sample_of;
        r->notes->sample_ctx = t;
        r->notes->samples_ordered = 1;
    }
    t->ar = archive_read_new();
    if (!t->ar)
        return la_reader_set_error(r, "out of memory");
    /* tar only, no filters: the source already decompressed the shard */
    archive_read_support_format_tar(t->ar);
    if (archive_read_open(t->ar, r, NULL, source_read, NULL) != ARCHIVE_OK)
        return la_reader_set_error(r, "%s", archive_error_string(t->ar));
    return 0;
}

/* The label member's key list: --key alone, else webdataset's usual ones. */
static int label_rank_of(const struct la_reader *r, const char *ext)
{
    const char *key = la_read_opts_or_default(r->opts)->key;
    if (key)
        return strcmp(ext, key) == 0 ? 0 : -1;
    for (size_t i = 0; i < N_DEFAULT_KEYS; i++)
        if (strcmp(ext, default_keys[i]) == 0)
            return (int)i;
    return -1;
}

/* webdataset skips its metadata members: `__NAME__` at the top, and any
 * path matching skip_meta = r"__[^/]*__($|/)" from its start. */
static int is_meta(const char *name)
{
    if (name[0] != '_' || name[1] != '_')
        return 0;
    size_t seg = strcspn(name, "/");
    return seg >= 4 && name[seg - 1] == '_' && name[seg - 2] == '_';
}

/* webdataset's base_plus_ext: re.match(r"^((?:.*\/|)[^.]+)[.]([^/]*)$", name)
 * (its first slash written \/ here, which is the same to Python's re).
 * Its directory part (any text up to a slash, or nothing) is greedy, so the
 * split after the last slash is tried first, then the earlier ones, then
 * none; from each, the base runs to the first dot, must not be empty, and no
 * slash may follow that dot. Python's `.` matches no newline, so a directory
 * part holding one is never tried.
 * @return the length of the key, with *ext the extension; 0: no key (skipped). */
static size_t base_plus_ext(const char *name, const char **ext)
{
    size_t n = strlen(name);
    const char *nl = strchr(name, '\n');
    size_t max_dir = nl ? (size_t)(nl - name) : n;   /* the dir part ends at or before here */
    for (size_t s = n; ; s--) {
        int candidate = s == 0 || (name[s - 1] == '/' && s <= max_dir);
        if (candidate) {
            const char *dot = strchr(name + s, '.');
            if (dot && dot > name + s && !strchr(dot, '/')) {
                *ext = dot + 1;
                return (size_t)(dot - name);
            }
        }
        if (s == 0)
            return 0;
    }
}

/* Python's int() on bytes: ASCII whitespace around, a sign, digits with
 * single underscores between them. @return 0 with *v, -1 when not one, or
 * when it does not fit int64 (torch would refuse it too). */
static int parse_python_int(const char *s, int64_t *v)
{
    static const char ws[] = " \t\n\r\v\f";
    s += strspn(s, ws);
    int negative = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    uint64_t mag = 0, limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    int digits = 0;
    for (; *s; s++) {
        if (*s == '_' && digits && s[1] >= '0' && s[1] <= '9')
            continue;
        if (*s < '0' || *s > '9')
            break;
        unsigned d = (unsigned)(*s - '0');
        if (mag > (limit - d) / 10)
            return -1;
        mag = mag * 10 + d;
        digits++;
    }
    if (!digits || s[strspn(s, ws)] != '\0')
        return -1;
    *v = negative ? (int64_t)(0 - mag) : (int64_t)mag;
    return 0;
}

/* A chunk of the labels gathered so far, if any. */
static int flush_values(struct wds_state *t, struct la_chunk *out)
{
    if (!t->n_values)
        return 0;
    *out = (struct la_chunk){ .dtype = LA_DT_INT64, .values = t->values, .count = t->n_values,
                              .first_index = t->first_index };
    t->first_index += t->n_values;
    t->n_values = 0;
    return 1;
}

/* Its problem's index is where its label would be among the labels. */
static int note_missing(struct la_reader *r, struct wds_state *t, uint64_t sample)
{
    t->missing++;
    if (add_gap(t) != 0)
        return la_reader_set_error(r, "out of memory");
    if (!r->notes)
        return 0;
    char where[LA_NOTE_LEN];
    snprintf(where, sizeof where, "key %s", t->key);
    la_one_line(where);
    /* out of memory only loses the place: the count still stands */
    (void)la_notes_problem(r->notes, LA_F_MISSING_LABEL, t->labels, sample, where,
                           "no label member", NULL);
    return 0;
}

/* The current sample is complete: its label joins the values, or is an
 * unparsable cell, or is missing (its one finding is missing-label). @return 1
 * when out holds a chunk to hand over first (values before an unparsable
 * cell), -1 out of memory. */
static int finish_sample(struct la_reader *r, struct wds_state *t, struct la_chunk *out)
{
    if (!t->key)
        return 0;
    int64_t v;
    int flushed = 0;
    if (t->label_rank < 0) {
        if (note_missing(r, t, t->samples - 1) != 0)
            return -1;
    } else if (t->label_too_long || parse_python_int(t->label_text, &v) != 0) {
        t->pending_unparsable = 1;
        t->unparsable_index = t->labels++;
        if (t->label_too_long)
            snprintf(t->unparsable, sizeof t->unparsable, "(a %llu-byte label member)",
                     (unsigned long long)t->label_bytes);
        else
            snprintf(t->unparsable, sizeof t->unparsable, "%s", t->label_text);
        flushed = flush_values(t, out);   /* the values before it go first */
    } else {
        if (t->n_values == WDS_CHUNK)
            flushed = flush_values(t, out);
        if (t->n_values == 0)
            t->first_index = t->labels;
        t->values[t->n_values++] = v;
        t->labels++;
    }
    t->label_rank = -1;
    t->seen = 0;
    t->label_too_long = 0;
    return flushed;
}

/* The unparsable cell decided by finish_sample, once the values before it are out. */
static int take_unparsable(struct wds_state *t, struct la_chunk *out)
{
    if (!t->pending_unparsable)
        return 0;
    t->pending_unparsable = 0;
    *out = (struct la_chunk){ .dtype = LA_DT_INT64, .count = 1,
                              .first_index = t->unparsable_index, .unparsable = t->unparsable };
    return 1;
}

static int start_sample(struct wds_state *t, const char *name, size_t key_len)
{
    if (key_len + 1 > t->key_cap) {
        char *k = realloc(t->key, key_len + 1);
        if (!k)
            return -1;
        t->key = k;
        t->key_cap = key_len + 1;
    }
    memcpy(t->key, name, key_len);
    t->key[key_len] = '\0';
    t->samples++;
    return 0;
}

/* Keep a label member's text when it outranks the one seen, if any. */
static int read_label(struct la_reader *r, struct wds_state *t, struct archive_entry *e,
                      int rank, const char *name)
{
    if (t->seen & (1u << rank))
        return la_reader_set_error(r, "byte %llu: %s: a second member of this name in the "
                                   "sample (webdataset stops with `duplicate file name`)",
                                   (unsigned long long)la_source_offset(r->src), name);
    t->seen |= 1u << rank;
    if (t->label_rank >= 0 && t->label_rank < rank)
        return 0;
    t->label_rank = rank;
    t->label_bytes = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
    t->label_too_long = t->label_bytes > LABEL_MAX_BYTES;
    if (t->label_too_long)
        return 0;
    la_ssize_t got = archive_read_data(t->ar, t->label_text, LABEL_MAX_BYTES);
    if (got < 0)
        return la_reader_set_error(r, "byte %llu: %s: %s",
                                   (unsigned long long)la_source_offset(r->src), name,
                                   archive_error_string(t->ar));
    t->label_text[got] = '\0';
    if (strlen(t->label_text) != (size_t)got)   /* a NUL byte: not text */
        snprintf(t->label_text, sizeof t->label_text, "(binary bytes)");
    return 0;
}

/* One member: a new sample when its key changes. @return as finish_sample, or -1. */
static int take_member(struct la_reader *r, struct wds_state *t, struct archive_entry *e,
                       struct la_chunk *out)
{
    const char *name = archive_entry_pathname(e);
    if (archive_entry_filetype(e) != AE_IFREG || !name || is_meta(name))
        return 0;
    const char *ext;
    size_t key_len = base_plus_ext(name, &ext);
    if (key_len == 0)
        return 0;                        /* webdataset skips a name with no extension */
    int flushed = 0;
    if (!t->key || strlen(t->key) != key_len || memcmp(t->key, name, key_len) != 0) {
        if ((flushed = finish_sample(r, t, out)) < 0)
            return -1;
        if (start_sample(t, name, key_len) != 0)
            return la_reader_set_error(r, "out of memory");
    }
    char lower[64];
    size_t n = strlen(ext);
    if (n < sizeof lower) {              /* webdataset lowercases the extension */
        for (size_t i = 0; i <= n; i++)
            lower[i] = (char)(ext[i] >= 'A' && ext[i] <= 'Z' ? ext[i] - 'A' + 'a' : ext[i]);
        int rank = label_rank_of(r, lower);
        if (rank >= 0 && read_label(r, t, e, rank, name) != 0)
            return -1;
    }
    return flushed;
}

/* At the end: the samples counted (the keys, labelled or not: audit.c's
 * count of samples; the labels are the elements), and the missing-label finding. */
static int finish(struct la_reader *r, const struct wds_state *t)
{
    if (!r->notes)
        return 0;
    r->notes->has_samples = 1;
    r->notes->samples = t->samples;
    cJSON_AddNumberToObject(r->notes->json, "samples", (double)t->samples);
    cJSON_AddNumberToObject(r->notes->json, "missing_label", (double)t->missing);
    if (la_notes_line(r->notes, "  %llu %s (keys)", (unsigned long long)t->samples,
                      t->samples == 1 ? "sample" : "samples") != 0)
        return la_reader_set_error(r, "out of memory");
    if (!t->missing)
        return 0;
    const char *key = la_read_opts_or_default(r->opts)->key;
    struct la_finding *f = la_notes_finding(
        r->notes, LA_F_MISSING_LABEL, "training (KeyError in the collate or the loop)",
        "%llu %s without a %s member", (unsigned long long)t->missing,
        t->missing == 1 ? "sample" : "samples", key ? key : "cls, label, target or idx");
    if (f)
        snprintf(f->hint, sizeof f->hint, "the JSON's problems list their keys; "
                 "--key EXT reads the label from another member");
    return 0;
}

static int wds_next(struct la_reader *r, struct la_chunk *out)
{
    struct wds_state *t = r->state;
    for (;;) {
        if (take_unparsable(t, out))
            return 1;
        if (t->at_end)
            return flush_values(t, out);
        struct archive_entry *e;
        int rc = archive_read_next_header(t->ar, &e);
        if (rc == ARCHIVE_EOF) {
            t->at_end = 1;
            int flushed = finish_sample(r, t, out);
            if (flushed < 0 || finish(r, t) != 0)
                return -1;
            if (flushed)
                return 1;
            continue;
        }
        if (rc < ARCHIVE_WARN)
            return la_reader_set_error(r, "byte %llu: %s",
                                       (unsigned long long)la_source_offset(r->src),
                                       archive_error_string(t->ar));
        int taken = take_member(r, t, e, out);
        if (taken != 0)
            return taken;
    }
}

static void wds_close(struct la_reader *r)
{
    struct wds_state *t = r->state;
    if (!t)
        return;
    if (t->ar)
        archive_read_free(t->ar);
    free(t->key);
    free(t->gaps);
    pthread_mutex_destroy(&t->gaps_lock);
    free(t);
    r->state = NULL;
}

const struct la_reader_ops la_reader_wds = { wds_open, wds_next, wds_close };

