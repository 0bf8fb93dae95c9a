/* arrow_module.h - the one symbol the Parquet/Arrow module exports.
 *
 * read_arrow.cc, the only reader that needs C++ and Apache Arrow's libraries,
 * is built as its own shared object, labelaudit-arrow.so, which the binary
 * loads on the first Parquet, Arrow or `datasets` file (arrow_module.c). The
 * binary itself links neither libarrow nor libstdc++: a CSV audit does not
 * depend on which pyarrow is installed, or whether one is.
 *
 * The module calls back into the binary (la_reader_set_error, the pool, ...),
 * whose la_* symbols the link exports (src/labelaudit.dynlist). A module of
 * another build would see other structs: `abi` is checked first, and a
 * mismatch refuses those files by name rather than misreading them. */
#ifndef LA_ARROW_MODULE_H
#define LA_ARROW_MODULE_H

#include "reader.h"

/* Raised whenever struct la_reader, la_read_opts, la_notes or this struct
 * change shape: a module must come from the same build as the binary. */
#define LA_ARROW_MODULE_ABI 1

/* The module's file name, looked for beside the binary, in ../lib/labelaudit
 * from it, and in the configured pkglibdir ($LABELAUDIT_ARROW_MODULE first). */
#define LA_ARROW_MODULE_NAME "labelaudit-arrow.so"

struct la_arrow_module {
    int abi;                                /* LA_ARROW_MODULE_ABI of its build */
    const char *version;                    /* PACKAGE_VERSION of its build */
    const struct la_reader_ops *file;       /* a Parquet or Arrow file */
    const struct la_reader_ops *folder;     /* a `datasets` folder of them */
};

#ifdef __cplusplus
extern "C" {
#endif
/* Defined by read_arrow.cc: in the module, or linked in directly (the fuzz
 * targets), where arrow_module.c's weak reference finds it. */
extern const struct la_arrow_module la_arrow_module_entry;
#ifdef __cplusplus
}
#endif

#endif
