/* hf_splits.h - the splits of a `datasets` cache folder (SPEC "Splits"):
 * load_dataset writes split S of builder B as B-S.arrow, or as shards
 * B-S-00000-of-00002.arrow, ..., beside dataset_info.json; .map() and
 * .filter() leave their cache-*.arrow there too, which belong to no split.
 * Plain C, so a build without Arrow plans the same reports. */
#ifndef LA_HF_SPLITS_H
#define LA_HF_SPLITS_H

#include <stddef.h> /* size_t */

/* A split name as datasets allows it (\w+(\.\w+)*), at most this long. */
#define LA_HF_SPLIT_MAX 128

/** la_hf_split_of() : the split that file name `name` holds, into split
 *  (splitlen >= LA_HF_SPLIT_MAX). @return 1, or 0 for a name of no split (a
 *  cache-*.arrow, or no {builder}-{split}[-NNNNN-of-NNNNN].arrow). */
int la_hf_split_of(const char *name, char *split, size_t splitlen);

/** la_hf_cache_splits() : the splits of the cache folder dir, from the names
 *  of its .arrow files that match glob (NULL: all): train, then validation
 *  (valid, val, dev), then test, then the others by name. A folder with a
 *  state.json (save_to_disk: one Dataset) has none. @return their count
 *  (0: none) with *names malloc'd (la_hf_splits_free), or -1 out of memory. */
int la_hf_cache_splits(const char *dir, const char *glob, char ***names);
void la_hf_splits_free(char **names, int n);

/** la_split_rank() : where split name s goes in a list of splits: train, then
 *  validation (valid, val, dev), then test, then the others (one rank). */
int la_split_rank(const char *s);
/** la_split_order() : qsort's comparison of two split names (char *):
 *  la_split_rank's order, then by name. */
int la_split_order(const void *a, const void *b);

#endif
