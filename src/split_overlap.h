/* split_overlap.h - the same sample in two splits (split-overlap, SPEC
 * "Splits"): the files below two split folders compared by their path
 * below the folder, each pair of equal paths confirmed by equal bytes
 * (CIFAR-style exports number each split's images from 0001 alike, which
 * are other images), or with --overlap=hash by their bytes alone, whatever
 * their names. Hidden files and the split folder's own metadata (README,
 * data.yaml, labels.cache, dataset_info.json, ...) take no part. Memory: 8 bytes a file (a 64-bit key), the names of the
 * first few matches, no list of paths: 10^7 files in 80 MB a split. */
#ifndef LA_SPLIT_OVERLAP_H
#define LA_SPLIT_OVERLAP_H

#include <stdint.h> /* uint64_t */
#include <stddef.h> /* size_t */

#define LA_OVERLAP_EXAMPLES 3

struct la_split_keys {
    uint64_t *keys;            /* sorted: a key per file (its path's, or its bytes') */
    size_t n, cap;
    int failed;                /* a file could not be read, or out of memory */
};

struct la_overlap {
    uint64_t count;            /* files of the first split also in the second */
    size_t n_examples;
    char examples[LA_OVERLAP_EXAMPLES][512];   /* their paths below the first split */
};

/** la_split_keys_of() : the keys of the files below dir (hidden ones left
 *  out), by path or, by_content, by their bytes. @return 0, or -1 (k->failed). */
int la_split_keys_of(const char *dir, int by_content, struct la_split_keys *k);

/** la_split_overlap() : the files of split folder a also in b (keys as
 *  la_split_keys_of gave them with by_content), each match by path
 *  confirmed by the two files' bytes. */
void la_split_overlap(const char *a, const struct la_split_keys *ka, const char *b,
                      const struct la_split_keys *kb, int by_content, struct la_overlap *o);

void la_split_keys_free(struct la_split_keys *k);

#endif
