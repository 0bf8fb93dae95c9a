/* ring.h - the hand-over between one producer thread and one consumer through a
 * fixed number of slots, which each side owns in turn. The slots are the
 * caller's; the ring only counts them and puts either side to sleep. Used by
 * the reader thread (audit.c) and the gzip inflater (input.c).
 *
 * What the producer writes before la_ring_fill() (a slot, or its final status
 * before la_ring_fill(g, 0)) is seen by the consumer once la_ring_wait_filled()
 * returns: the mutex orders it. */
#ifndef LA_RING_H
#define LA_RING_H

#include <pthread.h> /* pthread_mutex_t, pthread_cond_t */
#include <stdint.h>  /* uint64_t */

struct la_ring {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned slots;
    uint64_t filled, taken;   /* slots handed over; slots given back */
    int done;                 /* the producer has finished */
    int quit;                 /* the consumer asks the producer to stop */
};

void la_ring_init(struct la_ring *g, unsigned slots);
void la_ring_destroy(struct la_ring *g);

/** la_ring_wait_free() : producer. @return the index of a free slot, or -1 once
 *  the consumer has quit. */
long la_ring_wait_free(struct la_ring *g);

/** la_ring_fill() : producer. more = 1 hands the slot from la_ring_wait_free()
 *  over; more = 0 finishes the stream instead (that slot is not used). */
void la_ring_fill(struct la_ring *g, int more);

/** la_ring_wait_filled() : consumer. @return the index of the oldest filled
 *  slot, or -1 when the producer has finished and every slot was taken. */
long la_ring_wait_filled(struct la_ring *g);

/** la_ring_take() : consumer. Give the oldest filled slot back. */
void la_ring_take(struct la_ring *g);

/** la_ring_quit() : consumer. Ask the producer to stop (it still finishes). */
void la_ring_quit(struct la_ring *g);

#endif
