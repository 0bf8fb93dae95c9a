/* fuzz_path_reader.h - the harness of the readers that open their path
 * themselves (coco, yolo: label_notes.h): the bytes go to a memfd, the reader
 * reads /proc/self/fd/N, every chunk is checked and the bad entries located
 * as audit.c locates them. The oracles, beyond the sanitizers: chunks come
 * in index order with no gap; an error is one printable line; the notes'
 * JSON prints. Included by fuzz_coco.c and fuzz_yolo.c only. */
#ifndef LA_FUZZ_PATH_READER_H
#define LA_FUZZ_PATH_READER_H

#include "label_notes.h"
#include "reader.h"

#include <stdio.h>    /* snprintf, fprintf */
#include <stdlib.h>   /* abort, free */
#include <string.h>   /* strchr */
#include <sys/mman.h> /* memfd_create */
#include <unistd.h>   /* write, close */

#define FUZZ_FAIL(...) do { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); } while (0)

static void fuzz_check_line(const char *msg)
{
    if (!msg[0] || strchr(msg, '\n'))
        FUZZ_FAIL("error is not one line: [%s]", msg);
}

/* Read path (a file or a folder) with ops, checking every chunk. */
static void fuzz_read_path(const char *path, const struct la_reader_ops *ops)
{
    struct la_reader r = { .ops = ops, .path = path, .notes = la_notes_new(4) };
    uint64_t next = 0, bad[4];
    size_t n_bad = 0;
    if (r.notes && ops->open(&r) == 0) {
        struct la_chunk c;
        int rc;
        while ((rc = ops->next(&r, &c)) == 1) {
            if (c.first_index != next || c.count == 0)
                FUZZ_FAIL("chunk at %llu, want %llu", (unsigned long long)c.first_index,
                          (unsigned long long)next);
            if ((c.unparsable || next % 7 == 3) && n_bad < 4)
                bad[n_bad++] = next;     /* some entries to locate, as audit.c would */
            next += c.count;
        }
        if (rc < 0)
            fuzz_check_line(r.err);
        else if (r.notes->locate && n_bad && r.notes->locate(r.notes, bad, n_bad) != 0)
            FUZZ_FAIL("locate failed");
        char *json = r.notes->json ? cJSON_PrintUnformatted(r.notes->json) : NULL;
        free(json);
    } else if (r.notes) {
        fuzz_check_line(r.err);
    }
    if (ops->close)
        ops->close(&r);
    la_notes_free(r.notes);
}

__attribute__((unused))
static void fuzz_path_reader(const uint8_t *data, size_t size, const struct la_reader_ops *ops)
{
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        return;
    for (size_t done = 0; done < size;) {
        ssize_t k = write(fd, data + done, size - done);
        if (k <= 0) {
            close(fd);
            return;
        }
        done += (size_t)k;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    fuzz_read_path(path, ops);
    close(fd);
}

#endif
