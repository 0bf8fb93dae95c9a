/* ci_path.h - a file's path as a CI system attaches findings to it.
 *
 * GitHub and GitLab place an annotation, a SARIF result or a JUnit test
 * beside a file only when its path is relative to the repository's root:
 * "data/train.csv", not "/home/runner/work/x/x/data/train.csv" nor
 * "./data/train.csv". The root is the workspace: GITHUB_WORKSPACE, else
 * CI_PROJECT_DIR (GitLab), else the current directory. */
#ifndef LA_CI_PATH_H
#define LA_CI_PATH_H

#include <stddef.h> /* size_t */

/** la_ci_path() : path relative to the workspace, without "./" segments, in
 *  buf; a path outside the workspace stays as given (less its "./"), and
 *  standard input stays "-". @return buf. */
const char *la_ci_path(const char *path, char *buf, size_t len);

#endif
