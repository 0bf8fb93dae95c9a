/* bad_values.h - the distinct bad values of a file: each with its exact count
 * and the first samples holding it, so that a rare stray value (a 6 among
 * forty 5s) is named however many entries come before it.
 *
 * The table keeps the LA_BAD_VALUES smallest distinct values (numbers
 * ascending, then NaN, then unparsable cells by their text). That choice
 * makes it exact with bounded memory and the same whatever order parts are
 * folded in: a value among the smallest of the whole is among the smallest
 * of every part that holds it, so each part counted all of its entries; a
 * value pushed out is larger than every one kept, and the largest kept only
 * falls, so it never returns. Entries of values left out are the stats'
 * total minus the counts listed (la_bad_values_listed). */
#ifndef LA_BAD_VALUES_H
#define LA_BAD_VALUES_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */
#include "dtype.h"  /* struct la_num */

/* The sample of an entry that counts in none (a COCO annotation of an image
 * the file does not list). */
#define LA_NO_SAMPLE UINT64_MAX

#define LA_BAD_VALUES 64
#define LA_BAD_VALUE_FIRST 3

struct la_bad_value {
    struct la_num value;
    char *text;             /* an unparsable cell (owned); NULL for a number */
    int verdict;            /* enum la_verdict */
    uint64_t count;         /* entries holding it */
    int n_first;
    /* the first LA_BAD_VALUE_FIRST distinct samples holding it, in index
     * order, and the index of its first entry in each */
    uint64_t first_index[LA_BAD_VALUE_FIRST];
    uint64_t first_sample[LA_BAD_VALUE_FIRST];
};

struct la_bad_values {
    struct la_bad_value *v; /* n of them, ascending; room for LA_BAD_VALUES once one came */
    size_t n;
    size_t last;            /* the slot found last: runs of one value (a mask's 255s) */
};

/** la_bad_value_cmp() : the table's order: numbers ascending, NaN, then
 *  unparsable cells by their bytes. 0: the same value. */
int la_bad_value_cmp(struct la_num a, const char *a_text, struct la_num b, const char *b_text);

/** la_bad_values_find() : value's slot (text copied), added with no count
 *  when it is among the smallest; NULL when it is not kept (or out of memory). */
struct la_bad_value *la_bad_values_find(struct la_bad_values *t, struct la_num value,
                                        const char *text, int verdict);

/** la_bad_value_place() : note an entry of x at index, in sample (in index
 *  order after those noted so far): kept when its sample is a new one among
 *  the first LA_BAD_VALUE_FIRST. */
void la_bad_value_place(struct la_bad_value *x, uint64_t index, uint64_t sample);

/** la_bad_values_settled() : 1 when an entry of number v needs no place:
 *  v is kept with all its first samples, or can never be kept. */
int la_bad_values_settled(const struct la_bad_values *t, struct la_num v);

/** la_bad_values_in_order() : the kept values as the reports list them, in
 *  order of first appearance (their first sample; within one sample, the
 *  table's order), into out (room for LA_BAD_VALUES). @return how many. */
size_t la_bad_values_in_order(const struct la_bad_values *t, const struct la_bad_value **out);

/** la_bad_values_merge() : fold src (a later part, in index order) into dst. */
void la_bad_values_merge(struct la_bad_values *dst, const struct la_bad_values *src);

/** la_bad_values_shift() : move every place by index and sample (a dataset's source). */
void la_bad_values_shift(struct la_bad_values *t, uint64_t index, uint64_t sample);

/** la_bad_values_listed() : the entries the kept values count. */
uint64_t la_bad_values_listed(const struct la_bad_values *t);

/** la_bad_values_reset() : empty, keeping the room. */
void la_bad_values_reset(struct la_bad_values *t);

void la_bad_values_free(struct la_bad_values *t);

#endif
