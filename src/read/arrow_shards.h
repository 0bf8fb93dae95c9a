/* arrow_shards.h - the shards of a Parquet/Arrow source as read_arrow.cc
 * lists them, for the passes of the module that read them (arrow_columns.cc).
 * C++: part of the module labelaudit-arrow.so only. */
#ifndef LA_ARROW_SHARDS_H
#define LA_ARROW_SHARDS_H

#include <string>
#include <vector>

struct la_reader;

namespace la_arrow {

enum class Kind { PARQUET, IPC_FILE, IPC_STREAM };

struct Shard {
    std::string path, name;   /* name: as messages show it */
    Kind kind;
};

/** check_columns() : the columns beside the label column (primary), each
 *  against its table (r->opts->columns, columns.h), read in one pass over
 *  the shards: Parquet's column readers of those columns only, IPC's record
 *  batches of those fields. Findings and JSON into r->notes. @return 0, or
 *  -1 with r->err naming the shard and row group or batch. */
int check_columns(struct la_reader *r, const std::vector<Shard> &shards,
                  const std::string &primary);

} // namespace la_arrow

#endif
