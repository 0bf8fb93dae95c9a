/* tap.h - the TAP helpers every unit test shares (automake's tap-driver reads them).
 *
 *   TAP_OK(cond, "what %d", n);     one point; a failure also names file and line
 *   tap_ok(pass, "what"); tap_diag("note");
 *   return tap_done();              prints the plan "1..N" last, which TAP allows */
#ifndef LA_TAP_H
#define LA_TAP_H

#include <stdarg.h> /* va_list */
#include <stdio.h>  /* printf */

static int tap_count, tap_failed;

__attribute__((format(printf, 2, 3), unused))
static void tap_ok(int pass, const char *fmt, ...)
{
    va_list ap;
    tap_count++;
    tap_failed += !pass;
    printf("%sok %d - ", pass ? "" : "not ", tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* A diagnostic line, shown by TAP harnesses next to the failing point. */
__attribute__((format(printf, 1, 2), unused))
static void tap_diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

#define TAP_OK(cond, ...)                                                   \
    do {                                                                    \
        int tap_pass_ = (cond) ? 1 : 0;                                     \
        tap_ok(tap_pass_, __VA_ARGS__);                                     \
        if (!tap_pass_)                                                     \
            tap_diag("failed at %s:%d: %s", __FILE__, __LINE__, #cond);     \
    } while (0)

#define TAP_SKIP(...)                                                       \
    do {                                                                    \
        tap_count++;                                                        \
        printf("ok %d # SKIP ", tap_count);                                 \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
    } while (0)

__attribute__((unused))
static int tap_done(void)
{
    printf("1..%d\n", tap_count);
    if (tap_failed)
        tap_diag("%d of %d failed", tap_failed, tap_count);
    return tap_failed ? 1 : 0;
}

#endif
