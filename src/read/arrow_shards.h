/* arrow_shards.h - the shards of a Parquet/Arrow source as read_arrow.cc
 * lists them, for the passes of the module that read them (arrow_columns.cc).
 * C++: part of the module labelaudit-arrow.so only. */
#ifndef LA_ARROW_SHARDS_H
#define LA_ARROW_SHARDS_H

#include <memory>
#include <string>
#include <vector>

struct la_reader;

namespace arrow {
class Array;
class Status;
}
namespace parquet {
namespace arrow {
class FileReader;
class ColumnReader;
}
}

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

/* The fold: the same check inside the label column's read of one Parquet
 * file (read_arrow.cc), so that the file is read once. The check keeps
 * column readers of the file reader's: fold_end_shard() drops them before
 * that reader goes. */
struct Fold;

/** fold_begin() : *out a fold of the plan's columns in pq's file, or NULL
 *  when there is nothing beside the label column (primary) to check.
 *  @return 0, or -1 with r->err. */
int fold_begin(struct la_reader *r, parquet::arrow::FileReader &pq, const std::string &primary,
               Fold **out);

/** fold_read() : the label column's next read of at most rows rows (from
 *  label_reader, validated in full) into *label, and the same rows of every
 *  other column into the check, read side by side on the fold's pool. */
arrow::Status fold_read(Fold *f, parquet::arrow::ColumnReader &label_reader, int64_t rows,
                        std::shared_ptr<arrow::Array> *label);

/** fold_end_shard() : the file's column readers dropped (its rows all read). */
void fold_end_shard(Fold *f);

/** fold_finish() : the findings into r->notes; f freed. @return 0, or -1. */
int fold_finish(struct la_reader *r, Fold *f);

void fold_free(Fold *f);

} // namespace la_arrow

#endif
