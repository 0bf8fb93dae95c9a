/* msg.c - see msg.h. */
#include "msg.h"

#include <stdarg.h>  /* va_list */
#include <stdlib.h>  /* getenv */
#include <string.h>  /* strcmp, memcpy */
#include <time.h>    /* clock_gettime */
#include <unistd.h>  /* isatty */

#include "utf8.h"    /* la_escape */

static int g_quiet;
static int g_verbose;        /* -v without -q */
static int g_verbose_held;   /* la_verbose_hold */
static int g_color = LA_AUTO;
static int g_color_on;

void la_msg_setup(const struct la_config *cfg)
{
    g_quiet = cfg->quiet;
    g_verbose = cfg->verbose && !cfg->quiet;
    g_color = cfg->color;
    g_color_on = la_use_color(stdout);
}

size_t la_escape_ctl(char *dst, size_t cap, const char *text)
{
    return la_escape(dst, cap, text, LA_ESC_TERMINAL);
}

int la_fputs_escaped(const char *text, FILE *out)
{
    return la_fputs_escape(text, out, LA_ESC_TERMINAL);
}

/* "labelaudit: PATH: message" as one line, built whole: stderr is unbuffered,
 * and a line written in one go is not cut by another process's or by another
 * thread's (la_verbose runs on reader threads); a longer message is cut. */
static void say(const char *path, const char *fmt, va_list ap)
{
    char msg[8192], line[4 * sizeof msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = (size_t)snprintf(line, sizeof line, "labelaudit: ");
    if (path) {
        n += la_escape_ctl(line + n, sizeof line - n - 3, path);
        n += (size_t)snprintf(line + n, sizeof line - n, ": ");
    }
    n += la_escape_ctl(line + n, sizeof line - n - 1, msg);
    line[n++] = '\n';
    fwrite(line, 1, n, stderr);
}

void la_err(const char *path, const char *fmt, ...)
{
    if (g_quiet)
        return;
    fflush(stdout);
    va_list ap;
    va_start(ap, fmt);
    say(path, fmt, ap);
    va_end(ap);
}

int la_verbose_on(void)
{
    return g_verbose;
}

void la_verbose_hold(int hold)
{
    g_verbose_held = hold;
}

void la_verbose(const char *path, const char *fmt, ...)
{
    if (!g_verbose || g_verbose_held)
        return;
    va_list ap;
    va_start(ap, fmt);
    say(path, fmt, ap);
    va_end(ap);
}

int la_use_color(FILE *out)
{
    if (g_color != LA_AUTO)
        return g_color == LA_YES;
    const char *no_color = getenv("NO_COLOR");
    if (no_color && *no_color)
        return 0;
    const char *term = getenv("TERM");
    return isatty(fileno(out)) && !(term && strcmp(term, "dumb") == 0);
}

const char *la_c_err(void) { return g_color_on ? "\033[1;31m" : ""; }
const char *la_c_warn(void) { return g_color_on ? "\033[1;33m" : ""; }
const char *la_c_ok(void) { return g_color_on ? "\033[1;32m" : ""; }
const char *la_c_bold(void) { return g_color_on ? "\033[1m" : ""; }
const char *la_c_off(void) { return g_color_on ? "\033[0m" : ""; }

// ---- progress ------------------------------------------------------------------

/* The bar appears once a file has taken this long (a quick file never
 * flickers one), and is redrawn at most 5 times a second. */
#define PROGRESS_DELAY 1.0
#define PROGRESS_INTERVAL 0.2

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void la_progress_begin(struct la_progress *p, const struct la_config *cfg, const char *path,
                       int64_t total_bytes)
{
    *p = (struct la_progress){ 0 };
    p->path = path;
    p->total = total_bytes;
    if (cfg->quiet || cfg->progress == LA_NO)
        return;
    if (cfg->progress == LA_AUTO && (!isatty(2) || cfg->json))
        return;
    p->on = 1;
    p->delay = cfg->progress == LA_YES ? 0 : PROGRESS_DELAY;
    p->start = p->last = now();
}

void la_progress_update(struct la_progress *p, uint64_t done)
{
    if (!p->on)
        return;
    double t = now();
    if (t - p->last < PROGRESS_INTERVAL || t - p->start < p->delay)
        return;
    p->last = t;
    char shown[1024];
    la_escape_ctl(shown, sizeof shown, p->path);
    double secs = t - p->start, mbs = secs > 0 ? (double)done / 1e6 / secs : 0;
    if (p->total > 0) {
        double frac = (double)done / (double)p->total;
        if (frac > 1)
            frac = 1;
        int width = 30, fill = (int)(frac * width);
        double eta = frac > 0 ? secs / frac - secs : 0;
        fprintf(stderr, "\r%s [%.*s%*s] %3.0f%%  %.0f/%.0f MB  %.0f MB/s  ETA %.0fs ", shown,
                fill, "##############################", width - fill, "", frac * 100,
                (double)done / 1e6, (double)p->total / 1e6, mbs, eta);
    } else {
        fprintf(stderr, "\r%s %.0f MB  %.0f MB/s ", shown, (double)done / 1e6, mbs);
    }
    p->drawn = 1;
}

void la_progress_end(struct la_progress *p)
{
    if (p->on && p->drawn)
        fputs("\r\033[K", stderr);
    p->on = 0;
}
