/* fuzz_tokenizer.c - a tokenizer.json streamed through yajl (tokenizer_json.c):
 * any nesting, any size, in bounded memory; an accepted one has a vocabulary
 * at least its base's, below the cap. */
#include "fuzz_common.h"
#include "fuzz_class_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    struct la_model m;
    memset(&m, 0, sizeof m);
    char err[512] = "";
    int rc = la_tokenizer_parse(buf, size, &m, err, sizeof err);
    if (rc != 0)
        fuzz_check_refusal("tokenizer.json", err);
    else if (!m.has_tokenizer || m.tokenizer_vocab < m.tokenizer_base ||
             m.tokenizer_vocab > LA_META_MAX_COUNT) {
        fprintf(stderr, "fuzz oracle: tokenizer.json vocabulary %llu, base %llu\n",
                (unsigned long long)m.tokenizer_vocab, (unsigned long long)m.tokenizer_base);
        abort();
    }
    la_model_free(&m);
    free(buf);
    return 0;
}
