/* fuzz_data_yaml.c - a YOLO data.yaml through libyaml's event parser
 * (data_yaml.c): aliases never expanded, nesting bounded, and an accepted
 * file states nc or names. */
#include "fuzz_common.h"
#include "fuzz_class_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    struct la_class_meta m;
    memset(&m, 0, sizeof m);
    char err[512] = "";
    int rc = la_data_yaml_parse(buf, size, &m, err, sizeof err);
    if (rc != 0)
        fuzz_check_refusal("data.yaml", err);
    else if (!m.has_n)
        abort();
    else
        fuzz_check_meta("data.yaml", &m);
    la_class_meta_free(&m);
    free(buf);
    return 0;
}
