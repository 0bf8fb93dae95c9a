/* replay.c - main() for a fuzz target without libFuzzer: feed it each file
 * named on the command line (a directory: each file in it), so that the seed
 * corpora and every crash found so far replay in `make check`, under the
 * sanitizer build too. Exit 0 when no input crashed (a crash aborts). */
#include "fuzz_common.h"

#include <dirent.h>   /* opendir, readdir */
#include <stdio.h>    /* fopen, fread, printf */
#include <stdlib.h>   /* malloc, realloc, free */
#include <string.h>   /* strcmp */
#include <sys/stat.h> /* stat */

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        return -1;
    }
    size_t len = 0, cap = 1 << 16;
    unsigned char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            unsigned char *bigger = realloc(buf, cap *= 2);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "replay: %s: out of memory\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    printf("replayed %s (%zu bytes)\n", path, len);
    return 0;
}

int main(int argc, char **argv)
{
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: no such file\n", argv[i]);
            failed = 1;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            failed |= replay_file(argv[i]) != 0;
            continue;
        }
        DIR *dir = opendir(argv[i]);
        struct dirent *e;
        while (dir && (e = readdir(dir))) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            failed |= replay_file(path) != 0;
        }
        if (dir)
            closedir(dir);
    }
    return failed;
}
