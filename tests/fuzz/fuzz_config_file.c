/* fuzz_config_file.c - .labelaudit.yaml through config_file.c's libyaml
 * event parser: any bytes are refused with one line ("line N: why") or give
 * entries that each have a key, a value and a line; aliases never expanded. */
#include "fuzz_common.h"
#include "config_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_entries(const struct la_cfg_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!e[i].key || !e[i].value || e[i].line == 0 || strlen(e[i].key) > 127) {
            fprintf(stderr, "fuzz oracle: config entry %zu without key, value or line\n", i);
            abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct la_cfg_file f;
    char err[512] = "";
    if (la_config_file_parse((const char *)data, size, &f, err, sizeof err) != 0) {
        if (!err[0] || strchr(err, '\n') || f.n || f.n_sec) {
            fprintf(stderr, "fuzz oracle: config refused without a one-line reason: \"%s\"\n",
                    err);
            abort();
        }
        return 0;
    }
    check_entries(f.e, f.n);
    for (size_t s = 0; s < f.n_sec; s++) {
        if (!f.sec[s].path || !f.sec[s].path[0] || f.sec[s].line == 0)
            abort();
        check_entries(f.sec[s].e, f.sec[s].n);
    }
    la_config_file_free(&f);
    return 0;
}
