/* walk.h - the files below a folder in the order Python's
 * `sorted(os.walk(top, followlinks=True))` and then `sorted(fnames)` give
 * them (torchvision's make_dataset): folders ordered by their whole path,
 * byte-wise, and within a folder the files by name. That is not a depth-first
 * order: "a/b c/x" comes after "a/b/y" because "a/b" < "a/b c".
 *
 * Links are followed, as followlinks=True does; a link back to a folder
 * already on the path (a cycle, on which os.walk would loop until the names
 * grow too long) is not entered again but named in `problems`. A sub-folder
 * that cannot be read is skipped (os.walk's default) and named there too. */
#ifndef LA_WALK_H
#define LA_WALK_H

#include <stddef.h> /* size_t */

struct la_walk {
    char **files;      /* full paths: top "/" relative path */
    unsigned char *types;  /* each file's d_type as readdir gave it (DT_REG, DT_LNK,
                              DT_FIFO, ...; DT_UNKNOWN where the file system said none) */
    size_t n_files;
    char **problems;   /* "PATH: why", for the report */
    size_t n_problems;
};

/** la_walk_tree() : fill w with the files below top (top itself a folder).
 *  @return 0, or -1 with err set (top unreadable, out of memory). */
int la_walk_tree(const char *top, struct la_walk *w, char *err, size_t errlen);

/** la_walk_subdirs() : the immediate entries of dir that are folders (links
 *  to folders included, hidden ones too), sorted byte-wise: os.scandir with
 *  entry.is_dir(), as torchvision's find_classes. names are the bare names.
 *  @return the count, or -1 with err set. */
long la_walk_subdirs(const char *dir, char ***names, char *err, size_t errlen);

void la_walk_free(struct la_walk *w);
void la_walk_free_names(char **names, long n);

/** la_path_join() : "a" "/" "b", malloc'd, or NULL. */
char *la_path_join(const char *dir, const char *name);

#endif
