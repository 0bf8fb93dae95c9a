/* read_arrow.h - what the rest of the tree asks the Arrow reader
 * (read_arrow.cc, C++) besides its ops in reader.h. */
#ifndef LA_READ_ARROW_H
#define LA_READ_ARROW_H

/** la_arrow_dataset_dir() : whether the folder path is one that Hugging Face
 *  `datasets` wrote: save_to_disk's (state.json and dataset_info.json) or a
 *  cache folder (dataset_info.json and .arrow shards). */
int la_arrow_dataset_dir(const char *path);

#endif
