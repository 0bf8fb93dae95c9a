/* fuzz_shards.h - the harness of the sharded-dataset readers (mds, litdata):
 * the input is an index.json, then the separator SHARD_SEP, then the bytes
 * of a shard, written into a fresh folder under each of the names the
 * format's index.json usually lists (so a mutated index still finds them);
 * the folder is read as fuzz_path_reader.h reads a path. Included by
 * fuzz_mds.c and fuzz_litdata.c only. */
#ifndef LA_FUZZ_SHARDS_H
#define LA_FUZZ_SHARDS_H

#include "fuzz_path_reader.h"

#include <stdlib.h>   /* mkdtemp */
#include <string.h>   /* memmem */

#define SHARD_SEP "@@SHARD@@"

static int fuzz_put(const char *dir, const char *name, const uint8_t *data, size_t size)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = fwrite(data, 1, size, f) == size ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

static void fuzz_shards(const uint8_t *data, size_t size, const struct la_reader_ops *ops,
                        const char *const *names)
{
    char dir[] = "/tmp/labelaudit-fuzz-XXXXXX";
    if (!mkdtemp(dir))
        return;
    const uint8_t *sep = memmem(data, size, SHARD_SEP, sizeof SHARD_SEP - 1);
    size_t index_len = sep ? (size_t)(sep - data) : size;
    const uint8_t *shard = sep ? sep + sizeof SHARD_SEP - 1 : data + size;
    size_t shard_len = (size_t)(data + size - shard);
    if (fuzz_put(dir, "index.json", data, index_len) == 0) {
        for (size_t i = 0; names[i]; i++)
            (void)fuzz_put(dir, names[i], shard, shard_len);
        fuzz_read_path(dir, ops);
    }
    char path[256];
    snprintf(path, sizeof path, "%s/index.json", dir);
    unlink(path);
    for (size_t i = 0; names[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

#endif
