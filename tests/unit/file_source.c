/* file_source.c - see file_source.h. */
#include "file_source.h"

#include <stdlib.h> /* realloc, mkdtemp, getenv, system */
#include <string.h> /* memcpy, memset, strcmp */
#include <sys/stat.h> /* fstat */

#include "input.h"
#include "reader.h"

ssize_t la_source_read(struct la_source *s, void *buf, size_t n)
{
    size_t k = fread(buf, 1, n, s->f);
    if (k == 0 && ferror(s->f))
        return -1;
    s->off += k;
    return (ssize_t)k;
}

ssize_t la_source_read_full(struct la_source *s, void *buf, size_t n)
{
    return la_source_read(s, buf, n);
}

const char *la_source_path(const struct la_source *s) { return s->path; }

/* As input.c's: the descriptor of a regular file read as it is (not "-", not gzip). */
int la_source_plain_fd(const struct la_source *s)
{
    struct stat st;
    int fd = fileno(s->f);
    if (s->gzip || strcmp(s->path, "-") == 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    return fd;
}
uint64_t la_source_offset(const struct la_source *s) { return s->off; }
const char *la_source_error(const struct la_source *s) { (void)s; return "read error"; }

void fs_read_all(const struct la_reader_ops *ops, const char *path, const char *as, int gzip,
                 const struct la_read_opts *cfg, struct got *g)
{
    fs_read_swapped(ops, path, as, gzip, cfg, NULL, g);
}

void fs_read_swapped(const struct la_reader_ops *ops, const char *path, const char *as, int gzip,
                     const struct la_read_opts *cfg, const char *other, struct got *g)
{
    memset(g, 0, sizeof *g);
    struct la_source src = { fopen(path, "rb"), as ? as : path, gzip, 0 };
    if (other && src.f && rename(other, path) != 0)
        fclose(src.f), src.f = NULL;
    struct la_reader r = { .ops = ops, .src = &src, .opts = cfg };
    if (!src.f) {
        g->rc = 1;
        snprintf(g->err, sizeof g->err, "cannot open %.400s", path);
        return;
    }
    if (r.ops->open(&r) != 0) {
        g->rc = 1;
    } else {
        g->info = r.info;
        struct la_chunk c;
        int rc;
        while ((rc = r.ops->next(&r, &c)) == 1) {
            size_t sz = la_dtype_info(c.dtype)->size;
            if (c.first_index != g->n || c.count == 0)
                g->rc = 3;
            g->dtype = c.dtype;
            g->v = realloc(g->v, (g->n + c.count) * sz);
            memcpy(g->v + g->n * sz, c.values, c.count * sz);
            g->n += c.count;
            g->chunks++;
        }
        if (rc < 0)
            g->rc = 2;
    }
    memcpy(g->err, r.err, sizeof g->err);
    r.ops->close(&r);
    fclose(src.f);
}

int fs_make_dir(const char *name, char *dir, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, len, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    return mkdtemp(dir) ? 0 : -1;
}

void fs_remove_dir(const char *dir)
{
    if (getenv("KEEP_FIXTURES"))
        return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
}
