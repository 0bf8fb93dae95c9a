/* fuzz_class_meta.h - what the class-count readers' targets (fuzz_model_config,
 * fuzz_tokenizer, fuzz_data_yaml) check of a la_class_meta: a refusal says
 * why in one line; what is accepted states a count within the readers' caps
 * and names no class past the names it keeps. */
#ifndef LA_FUZZ_CLASS_META_H
#define LA_FUZZ_CLASS_META_H

#include <stdio.h>  /* fprintf */
#include <stdlib.h> /* abort */
#include <string.h> /* strchr */

#include "class_meta.h"

static inline void fuzz_check_refusal(const char *what, const char *err)
{
    if (!err[0] || strchr(err, '\n')) {
        fprintf(stderr, "fuzz oracle: %s refused without a one-line reason: \"%s\"\n", what, err);
        abort();
    }
}

static inline void fuzz_check_meta(const char *what, const struct la_class_meta *m)
{
    if ((m->has_n && (m->n > LA_META_MAX_COUNT || !m->key)) ||
        m->n_names > LA_META_MAX_NAMES || (m->n_names && !m->names) ||
        strchr(m->problem, '\n')) {
        fprintf(stderr, "fuzz oracle: %s accepted an incoherent count (n %llu, %zu names)\n",
                what, (unsigned long long)m->n, m->n_names);
        abort();
    }
}

#endif
