/* sample_map.h - the sample (a list row, a JSON Lines record) of each
 * element, where samples are runs of elements of different lengths: the map
 * the Arrow and JSON Lines readers give the scan (la_notes.sample_of).
 *
 * Two threads use it: the reader's adds each sample's first element as it
 * meets it and publishes what it added before it hands those elements out;
 * the scan's looks samples up, in index order, and says how far it has
 * scanned. Safe by design, no lock: what is published is never written
 * again. The reader fills a piece of its own, unseen; publishing links it
 * after the last one (a release store that the scan's acquire load pairs
 * with) and starts the next. Only the scan frees pieces: those wholly before
 * the place it has passed, and never the last one (whose link the reader
 * writes). So the map costs 4 bytes a sample of the elements in flight
 * between the two threads, not of the file. */
#ifndef LA_SAMPLE_MAP_H
#define LA_SAMPLE_MAP_H

#include <stdint.h> /* uint64_t */

struct la_sample_map;

/** la_sample_map_new() : an empty map, or NULL out of memory. */
struct la_sample_map *la_sample_map_new(void);

/** la_sample_map_free() : once neither thread uses it (a void * for la_notes.free_ctx). */
void la_sample_map_free(void *map);

/* ---- the reader's thread ---- */

/** la_sample_map_start() : the next sample starts at element first (at or
 *  after the previous one's first: an empty sample shares it with the next).
 *  Unseen by the scan until published. @return 0, or -1 out of memory. */
int la_sample_map_start(struct la_sample_map *m, uint64_t first);

/** la_sample_map_publish() : what was started so far, for the scan: call it
 *  before handing out the elements of those samples. */
void la_sample_map_publish(struct la_sample_map *m);

/** la_sample_map_samples() : samples started so far (the reader's count). */
uint64_t la_sample_map_samples(const struct la_sample_map *m);

/* ---- the scan's thread ---- */

/** la_sample_map_sample_of() : the sample of element index (la_sample_of):
 *  the last published sample starting at or before it; LA_NO_SAMPLE when none
 *  does, or index lies before the place passed. Fast in index order. */
uint64_t la_sample_map_sample_of(void *map, uint64_t index);

/** la_sample_map_passed() : the scan will ask for no element before index
 *  again: the pieces wholly before it are freed. */
void la_sample_map_passed(void *map, uint64_t index);

#endif
