/* ci_path.c - see ci_path.h. */
#include "ci_path.h"

#include <limits.h> /* PATH_MAX */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* getenv, realpath */
#include <string.h> /* strlen, strncmp */
#include <unistd.h> /* getcwd */

/* "a/./b" and "./a" lose their "./": the same file, as a CI names it. */
static void drop_dot_segments(char *s)
{
    char *out = s;
    const char *in = s;
    while (*in) {
        int at_start = in == s || in[-1] == '/';
        if (at_start && in[0] == '.' && in[1] == '/') {
            in += 2;
            while (*in == '/')
                in++;
            continue;
        }
        *out++ = *in++;
    }
    *out = '\0';
}

/* The rest of path after root and a slash, or NULL when path is not inside root. */
static const char *inside(const char *path, const char *root)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    if (n == 0 || strncmp(path, root, n) != 0)
        return NULL;
    if (n == 1 && root[0] == '/')
        return path + 1;
    return path[n] == '/' ? path + n + 1 : NULL;
}

static const char *workspace(void)
{
    const char *w = getenv("GITHUB_WORKSPACE");
    if (!w || !*w)
        w = getenv("CI_PROJECT_DIR");
    return w && *w ? w : NULL;
}

/* The workspace as given, then as the file system resolves it (a link). */
static const char *relative_to_workspace(const char *abs, char *resolved)
{
    const char *w = workspace();
    char cwd[PATH_MAX];
    if (!w)
        w = getcwd(cwd, sizeof cwd);
    if (!w)
        return NULL;
    const char *rest = inside(abs, w);
    if (!rest && realpath(w, resolved))
        rest = inside(abs, resolved);
    return rest;
}

const char *la_ci_path(const char *path, char *buf, size_t len)
{
    char abs[2 * PATH_MAX], resolved[PATH_MAX], cwd[PATH_MAX];
    if (strcmp(path, "-") == 0 || len == 0) {
        snprintf(buf, len, "%s", path);
        return buf;
    }
    if (path[0] == '/')
        snprintf(abs, sizeof abs, "%s", path);
    else if (getcwd(cwd, sizeof cwd))
        snprintf(abs, sizeof abs, "%s/%s", cwd, path);
    else
        abs[0] = '\0';
    drop_dot_segments(abs);
    const char *rest = abs[0] ? relative_to_workspace(abs, resolved) : NULL;
    snprintf(buf, len, "%s", rest && *rest ? rest : path);
    drop_dot_segments(buf);
    if (!buf[0])                 /* "./" itself: the workspace */
        snprintf(buf, len, ".");
    return buf;
}
