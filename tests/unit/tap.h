/* tap.h - the few TAP macros the unit tests share (automake's tap-driver reads them).
 *
 *   TAP_OK(cond, "what"); ... return tap_done();
 * The plan line is printed at the end ("1..N"), which TAP allows. */
#ifndef LA_TAP_H
#define LA_TAP_H

#include <stdio.h> /* printf */

static int tap_count, tap_failed;

#define TAP_OK(cond, ...)                                                   \
    do {                                                                    \
        int tap_pass_ = (cond) ? 1 : 0;                                     \
        tap_count++;                                                        \
        tap_failed += !tap_pass_;                                           \
        printf("%sok %d - ", tap_pass_ ? "" : "not ", tap_count);           \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        if (!tap_pass_)                                                     \
            printf("# failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
    } while (0)

#define TAP_SKIP(...)                                                       \
    do {                                                                    \
        tap_count++;                                                        \
        printf("ok %d # SKIP ", tap_count);                                 \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
    } while (0)

static inline int tap_done(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

#endif
