/* fuzz_model_config.c - the cJSON-read class-count files: a model's
 * config.json (the first byte even) and an nnU-Net dataset.json (odd), from a
 * buffer of exactly the input's size. */
#include "fuzz_common.h"
#include "fuzz_class_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf || size == 0) {
        free(buf);
        return 0;
    }
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    char err[512] = "";
    if (data[0] % 2 == 0) {
        struct la_model m;
        memset(&m, 0, sizeof m);
        if (la_model_config_parse(buf, size - 1, &m, err, sizeof err) != 0)
            fuzz_check_refusal("config.json", err);
        else
            fuzz_check_meta("config.json", &m.head);
        la_model_free(&m);
    } else {
        struct la_class_meta m;
        memset(&m, 0, sizeof m);
        if (la_nnunet_parse(buf, size - 1, &m, err, sizeof err) != 0)
            fuzz_check_refusal("dataset.json", err);
        else
            fuzz_check_meta("dataset.json", &m);
        la_class_meta_free(&m);
    }
    free(buf);
    return 0;
}
