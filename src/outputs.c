/* outputs.c - see outputs.h. */
#include "outputs.h"

#include <errno.h>    /* errno */
#include <limits.h>   /* INT_MAX */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* malloc, strtol, getenv */
#include <string.h>   /* strcmp, strncmp, strrchr */
#include <sys/stat.h> /* stat, fstat */
#include <unistd.h>   /* getpid, readlink */

#include "msg.h"         /* la_err */
#include "options.h"     /* struct la_config */

// ---- names of descriptors ------------------------------------------------------

/* N when s is exactly prefix followed by a decimal N, else -1. */
static int fd_after(const char *s, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) != 0 || s[n] < '0' || s[n] > '9')
        return -1;
    char *end;
    errno = 0;
    long fd = strtol(s + n, &end, 10);
    return *end || errno || fd > INT_MAX ? -1 : (int)fd;
}

static int fd_of_name(const char *path)
{
    static const struct { const char *name; int fd; } fixed[] = {
        { "-", 1 }, { "/dev/stdin", 0 }, { "/dev/stdout", 1 }, { "/dev/stderr", 2 },
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(path, fixed[i].name) == 0)
            return fixed[i].fd;
    char self[64];
    snprintf(self, sizeof self, "/proc/%ld/fd/", (long)getpid());
    int fd = fd_after(path, "/dev/fd/");
    fd = fd >= 0 ? fd : fd_after(path, "/proc/self/fd/");
    fd = fd >= 0 ? fd : fd_after(path, "/proc/thread-self/fd/");
    return fd >= 0 ? fd : fd_after(path, self);
}

/* The descriptor that path names, through symbolic links of its own (a link to
 * /dev/stdout), or -1. Opening such a name would open the file behind the
 * descriptor afresh: at offset 0, without O_APPEND, or, renamed over, replaced. */
int la_descriptor_named(const char *path)
{
    char cur[4096], next[4096];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0; hops < 16; hops++) {
        int fd = fd_of_name(cur);
        if (fd >= 0)
            return fd;
        ssize_t n = readlink(cur, next, sizeof next - 1);
        if (n < 0)
            return -1;
        next[n] = '\0';
        const char *slash = strrchr(cur, '/');
        if (next[0] == '/' || !slash)
            snprintf(cur, sizeof cur, "%s", next);
        else
            snprintf(cur + (slash - cur) + 1, sizeof cur - (size_t)(slash - cur) - 1, "%s", next);
    }
    return -1;
}

/* stat() of target, or fstat() of the descriptor it names. @return 0 or -1. */
static int stat_target(const char *target, struct stat *st)
{
    int fd = la_descriptor_named(target);
    return fd >= 0 ? fstat(fd, st) : stat(target, st);
}

int la_output_is_input(const char *target, char *const *inputs, int n)
{
    struct stat out, in;
    if (stat_target(target, &out) != 0 || !S_ISREG(out.st_mode))
        return -1;
    for (int i = 0; i < n; i++) {
        int rc = strcmp(inputs[i], "-") == 0 ? fstat(0, &in) : stat(inputs[i], &in);
        if (rc == 0 && S_ISREG(in.st_mode) && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
            return i;
    }
    return -1;
}

#define TEMPORARY_PREFIX ".labelaudit-"   /* then mkstemp's six characters */
#define MAX_OUTPUTS 8                     /* la_outputs_check's six, standard output and error */
#define MAX_TEMPORARY 4

/* One output as the file system knows it. */
struct output {
    const char *option;     /* "--junit", for messages */
    const char *shown;      /* "--junit=", before the target */
    const char *target;     /* as given */
    int descriptor;         /* names a descriptor of the run: written through, never replaced */
    int exists;             /* dev, ino: the file's; else its folder's (when folder_known) */
    int regular;
    int folder_known;
    dev_t dev;
    ino_t ino;
    const char *name;       /* the last component of one that does not exist yet */
    char why[64];           /* for the walks */
};

/* Set before the first file is read, only read after: the walks may run on
 * reader threads. */
static struct output g_outputs[MAX_OUTPUTS];
static int g_n_outputs;
static struct { dev_t dev; ino_t ino; } g_temporary[MAX_TEMPORARY];
static int g_n_temporary;

/* A target that does not exist yet is the name it will have in its folder. */
static void identify_new(struct output *o)
{
    const char *slash = strrchr(o->target, '/');
    size_t dirlen = slash ? (size_t)(slash - o->target) : 0;
    char *dir = malloc(dirlen + 2);
    struct stat st;
    if (!dir)
        return;
    if (!slash)
        strcpy(dir, ".");
    else if (dirlen == 0)
        strcpy(dir, "/");
    else
        snprintf(dir, dirlen + 1, "%s", o->target);
    if (stat(dir, &st) == 0) {
        o->folder_known = 1;
        o->dev = st.st_dev;
        o->ino = st.st_ino;
        o->name = slash ? slash + 1 : o->target;
    }
    free(dir);
}

static void identify(struct output *o)
{
    struct stat st;
    int fd = la_descriptor_named(o->target);
    o->descriptor = fd >= 0;
    o->exists = fd >= 0 ? fstat(fd, &st) == 0 : stat(o->target, &st) == 0;
    if (o->exists) {
        o->regular = S_ISREG(st.st_mode);
        o->dev = st.st_dev;
        o->ino = st.st_ino;
    } else if (!o->descriptor) {
        identify_new(o);
    }
    snprintf(o->why, sizeof o->why, "an output of this run (%s)", o->option);
}

static int same_file(const struct output *a, const struct output *b)
{
    if (a->exists != b->exists || a->folder_known != b->folder_known)
        return 0;
    if (a->exists)
        return a->dev == b->dev && a->ino == b->ino;
    if (!a->folder_known)
        return strcmp(a->target, b->target) == 0;
    return a->dev == b->dev && a->ino == b->ino && strcmp(a->name, b->name) == 0;
}

/* Two outputs of which one would replace what the other writes: one file,
 * regular or new, not two descriptors (those append, one after the other). */
static int clash(const struct output *a, const struct output *b)
{
    return same_file(a, b) && !(a->descriptor && b->descriptor) && (!a->exists || a->regular);
}

/* Standard output or error that is a regular file (`> ds/report.txt`) is
 * written by this run too: the walks skip it, nothing more. */
static void add_standard_stream(const char *name, const char *as)
{
    struct output *o = &g_outputs[g_n_outputs];
    *o = (struct output){ .option = as, .target = name };
    identify(o);
    if (o->exists && o->regular)
        g_n_outputs++;
}

const char *la_outputs_step_summary(const struct la_config *cfg)
{
    const char *summary = getenv("GITHUB_STEP_SUMMARY");
    return (cfg->annotations & LA_ANNOT_GITHUB) && summary && *summary ? summary : NULL;
}

int la_outputs_check(const struct la_config *cfg)
{
    const struct { const char *option, *shown, *target; } named[] = {
        { "--indices-out", "--indices-out=", cfg->indices_out },
        { "--junit", "--junit=", cfg->junit },
        { "--sarif", "--sarif=", cfg->sarif },
        { "--annotations=gitlab", "--annotations=gitlab:", cfg->annotations_file },
        { "--html", "--html=", cfg->html },
        { "GITHUB_STEP_SUMMARY", "GITHUB_STEP_SUMMARY=", la_outputs_step_summary(cfg) },
    };
    _Static_assert(sizeof named / sizeof named[0] + 2 <= MAX_OUTPUTS, "room for every output");
    g_n_outputs = 0;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        if (!named[i].target)
            continue;
        int same = la_output_is_input(named[i].target, cfg->files, cfg->nfiles);
        if (same >= 0) {   /* replaced, or written into, while it is read: refused, as cat does */
            la_err(cfg->files[same], "input file is output file (%s%s)", named[i].shown,
                   named[i].target);
            return 1;
        }
        struct output *o = &g_outputs[g_n_outputs];
        *o = (struct output){ .option = named[i].option, .shown = named[i].shown,
                              .target = named[i].target };
        identify(o);
        for (int k = 0; k < g_n_outputs; k++)
            if (clash(&g_outputs[k], o)) {   /* one would replace the other: one lost */
                la_err(NULL, "%s is named by two outputs (%s%s and %s%s)", o->target,
                       g_outputs[k].shown, g_outputs[k].target, o->shown, o->target);
                return 1;
            }
        g_n_outputs++;
    }
    add_standard_stream("/dev/stdout", "standard output");
    add_standard_stream("/dev/stderr", "standard error");
    return 0;
}

void la_outputs_add_temporary(int fd)
{
    struct stat st;
    if (g_n_temporary < MAX_TEMPORARY && fstat(fd, &st) == 0) {
        g_temporary[g_n_temporary].dev = st.st_dev;
        g_temporary[g_n_temporary].ino = st.st_ino;
        g_n_temporary++;
    }
}

/* stat() of path, once: *done says whether it was tried, *ok whether it worked. */
static int stat_once(const char *path, struct stat *st, int *done, int *ok)
{
    if (!*done) {
        *ok = stat(path, st) == 0;
        *done = 1;
    }
    return *ok;
}

/* Whether path (whose last component is name) is new output o, in its folder. */
static int is_new_output(const struct output *o, const char *path, const char *name)
{
    if (!o->folder_known || strcmp(name, o->name) != 0)
        return 0;
    size_t dirlen = strlen(path) - strlen(name);
    char *dir = malloc(dirlen + 2);
    struct stat st;
    int same = 0;
    if (dir) {
        snprintf(dir, dirlen + 1, "%s", path);   /* keeps the slash: "ds/" is ds */
        same = stat(dirlen ? dir : ".", &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino;
        free(dir);
    }
    return same;
}

const char *la_output_of_run(const char *path, const char *name, ino_t ino, int *own)
{
    struct stat st;
    int done = 0, ok = 0;
    *own = 0;
    if (strncmp(name, TEMPORARY_PREFIX, strlen(TEMPORARY_PREFIX)) == 0 &&
        strlen(name) == strlen(TEMPORARY_PREFIX) + 6) {
        for (int i = 0; i < g_n_temporary; i++)
            if ((ino == 0 || ino == g_temporary[i].ino) && stat_once(path, &st, &done, &ok) &&
                st.st_dev == g_temporary[i].dev && st.st_ino == g_temporary[i].ino) {
                *own = 1;
                return "a temporary file of this run";
            }
        return "a temporary file of labelaudit (of a run that was killed, or runs now)";
    }
    for (int i = 0; i < g_n_outputs; i++) {
        const struct output *o = &g_outputs[i];
        if (o->exists && o->regular && (ino == 0 || ino == o->ino) &&
            stat_once(path, &st, &done, &ok) && st.st_dev == o->dev && st.st_ino == o->ino)
            return o->why;
        if (!o->exists && is_new_output(o, path, name))
            return o->why;
    }
    return NULL;
}
