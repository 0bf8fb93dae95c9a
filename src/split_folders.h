/* split_folders.h - the splits a dataset root keeps as folders (SPEC
 * "Splits"): a DatasetDict saved with save_to_disk (dataset_dict.json
 * naming its splits, one folder each), or folders named train,
 * val/valid/validation and test (an ImageFolder, a YOLO export, masks or
 * label files per split). A `datasets` cache folder's splits are files, not
 * folders: read/hf_splits.h. */
#ifndef LA_SPLIT_FOLDERS_H
#define LA_SPLIT_FOLDERS_H

#include <stddef.h> /* size_t */

/** la_split_folders() : the splits of root as its folders' names, train
 *  first, then validation, then test (la_split_order). A DatasetDict's are
 *  the splits its dataset_dict.json names that are folders of root; else
 *  root's folders when each of them that is not hidden has a split's name,
 *  two of them at least (one alone is the dataset, not a split of it).
 *  @return their count (0: root keeps no splits) with *names malloc'd
 *  (la_hf_splits_free), -1 when out of memory, or -2 with why filled when
 *  dataset_dict.json cannot be read. */
int la_split_folders(const char *root, char ***names, char *why, size_t whylen);

struct la_layout;

/** la_layout_splits() : the splits of a layout's root, each a folder or a
 *  file of labels: YOLO's data.yaml train/val/test (image folders, their
 *  labels where Ultralytics' img2label_paths puts them; relative to the
 *  data.yaml's folder), or labels/ holding split folders; nnU-Net's labelsTr
 *  and labelsTs (train, test); COCO's annotations/instances_train*.json and
 *  instances_val*.json. names[i] is split i, paths[i] its labels (both
 *  malloc'd; la_hf_splits_free each). @return the count (0: none, fewer
 *  than two are none), or -1 out of memory. */
int la_layout_splits(const char *root, const struct la_layout *l, char ***names,
                     char ***paths);

#endif
