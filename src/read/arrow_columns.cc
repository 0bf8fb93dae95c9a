/* arrow_columns.cc - see arrow_shards.h: every column the model indexes,
 * beside the label column's own read of a Parquet file (the fold: the same
 * file reader, the other columns advanced by the rows of each read of the
 * label column, which is fed from that read), else after it (IPC files and
 * streams, folders, a scalar label column decoded a round of row groups at
 * a time on the pool). That pass over the shards reads the
 * plan's columns that the file has (Parquet: a column reader each, advanced
 * together by the same rows, the other columns' chunks never fetched; IPC:
 * record batches of those fields only), each batch's values widened to
 * int64 and handed to the check (columns.h) row by row. A batch holds about
 * READ_ITEMS values of each column, whatever the rows' lengths, so memory is
 * bounded by bytes, not rows. */
#include <arrow/api.h>
#include <arrow/io/api.h>
#include <arrow/ipc/api.h>
#include <parquet/arrow/reader.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "arrow_shards.h"

extern "C" {
#include "columns.h"
#include "pool.h"    /* la_pool_run: the fold's columns side by side */
#include "util.h"    /* la_online_cpus */
#include "label_notes.h"
#include "reader.h"
}

namespace la_arrow {
namespace {

const int64_t READ_ITEMS = 1 << 20;  /* values of a column per batch, about */
const int64_t FIRST_ROWS = 64;       /* rows of the first batch, before lengths are known */
const int64_t MOST_ROWS = 1 << 16;

/* One column of a batch as int64 values: row i is values[offsets[i],
 * offsets[i+1]); a null row is null[i]. */
struct Flat {
    std::vector<int64_t> values;
    std::vector<int64_t> offsets;
    std::vector<char> null;
    /* Emptied for the next batch, its capacity kept: a new vector per batch
     * (8 MiB of values) was mapped and zeroed by the kernel each time, and
     * clear_page took an eighth of the run. */
    void clear()
    {
        values.clear();
        offsets.clear();
        null.clear();
    }
};

/* The values of a (an integer or bool array) from `from`, n of them, appended.
 * Without nulls, a typed loop into the resized vector: widening every value
 * of every column with push_back and a null test each was as long as
 * Parquet's own decoding of them. */
arrow::Status widen(const arrow::Array &a, int64_t from, int64_t n, std::vector<int64_t> *out)
{
    size_t at = out->size();
    switch (a.type_id()) {
#define LA_WIDEN(ID, T)                                                                  \
    case arrow::Type::ID: {                                                          \
        auto &t = static_cast<const arrow::T &>(a);                                  \
        out->resize(at + (size_t)n);                                                 \
        int64_t *o = out->data() + at;                                               \
        if (t.null_count() == 0) {                                                   \
            const auto *p = t.raw_values() + from;                                   \
            for (int64_t i = 0; i < n; i++)                                          \
                o[i] = (int64_t)p[i];                                                \
        } else {                                                                     \
            for (int64_t i = 0; i < n; i++)                                          \
                o[i] = t.IsNull(from + i) ? -1 : (int64_t)t.Value(from + i);         \
        }                                                                            \
        return arrow::Status::OK();                                                  \
    }
        LA_WIDEN(INT8, Int8Array)
        LA_WIDEN(UINT8, UInt8Array)
        LA_WIDEN(INT16, Int16Array)
        LA_WIDEN(UINT16, UInt16Array)
        LA_WIDEN(INT32, Int32Array)
        LA_WIDEN(UINT32, UInt32Array)
        LA_WIDEN(INT64, Int64Array)
        LA_WIDEN(UINT64, UInt64Array)
#undef LA_WIDEN
    case arrow::Type::BOOL: {      /* bits, not bytes: no raw_values */
        auto &t = static_cast<const arrow::BooleanArray &>(a);
        for (int64_t i = from; i < from + n; i++)
            out->push_back(t.IsNull(i) ? -1 : (int64_t)t.Value(i));
        return arrow::Status::OK();
    }
    default:
        return arrow::Status::TypeError("of ", a.type()->ToString(), " values, not integers");
    }
}

/* A list array's row `row`: its items' offset and count in values(). */
void list_row(const arrow::Array &a, int64_t row, int64_t *off, int64_t *len)
{
    if (a.type_id() == arrow::Type::LIST) {
        auto &l = static_cast<const arrow::ListArray &>(a);
        *off = l.value_offset(row), *len = l.value_length(row);
    } else if (a.type_id() == arrow::Type::LARGE_LIST) {
        auto &l = static_cast<const arrow::LargeListArray &>(a);
        *off = l.value_offset(row), *len = l.value_length(row);
    } else {
        auto &l = static_cast<const arrow::FixedSizeListArray &>(a);
        *off = l.value_offset(row), *len = l.value_length(row);
    }
}

std::shared_ptr<arrow::Array> list_values(const arrow::Array &a)
{
    if (a.type_id() == arrow::Type::LIST)
        return static_cast<const arrow::ListArray &>(a).values();
    if (a.type_id() == arrow::Type::LARGE_LIST)
        return static_cast<const arrow::LargeListArray &>(a).values();
    return static_cast<const arrow::FixedSizeListArray &>(a).values();
}

bool is_list(const arrow::DataType &t)
{
    return t.id() == arrow::Type::LIST || t.id() == arrow::Type::LARGE_LIST ||
           t.id() == arrow::Type::FIXED_SIZE_LIST;
}

/* Append the rows of array a to f. */
arrow::Status flatten(const arrow::Array &a, Flat *f)
{
    ARROW_RETURN_NOT_OK(a.ValidateFull());
    if (!is_list(*a.type())) {
        for (int64_t i = 0; i < a.length(); i++) {
            f->offsets.push_back((int64_t)f->values.size() + (a.IsNull(i) ? 0 : 1));
            f->null.push_back(a.IsNull(i));
        }
        std::vector<int64_t> v;
        ARROW_RETURN_NOT_OK(widen(a, 0, a.length(), &v));
        for (int64_t i = 0; i < a.length(); i++)
            if (!a.IsNull(i))
                f->values.push_back(v[(size_t)i]);
        return arrow::Status::OK();
    }
    std::shared_ptr<arrow::Array> items = list_values(a);
    if (a.null_count() == 0 && a.length() > 0) {
        /* no null rows: the rows' items are one run, widened at once, and
         * each row's end is its list offset moved to the run's start */
        int64_t first = 0, len = 0, last = 0, base = (int64_t)f->values.size();
        list_row(a, 0, &first, &len);
        list_row(a, a.length() - 1, &last, &len);
        ARROW_RETURN_NOT_OK(widen(*items, first, last + len - first, &f->values));
        for (int64_t i = 0; i < a.length(); i++) {
            int64_t off = 0;
            list_row(a, i, &off, &len);
            f->offsets.push_back(base + off + len - first);
            f->null.push_back(0);
        }
        return arrow::Status::OK();
    }
    for (int64_t i = 0; i < a.length(); i++) {
        int64_t off = 0, len = 0;
        if (!a.IsNull(i)) {
            list_row(a, i, &off, &len);
            ARROW_RETURN_NOT_OK(widen(*items, off, len, &f->values));
        }
        f->offsets.push_back((int64_t)f->values.size());
        f->null.push_back(a.IsNull(i));
    }
    return arrow::Status::OK();
}

/* A column of the shard that the plan checks. */
struct Wanted {
    int field;          /* in the shard's schema */
    int rule;           /* in the plan */
    std::string dtype;
    bool list;
};

/* The check's state over the shards. */
struct Pass {
    struct la_reader *r;
    const struct la_column_plan *plan;
    struct la_column_check *check = nullptr;
    std::vector<Wanted> cols;     /* the first shard's */
    uint64_t row = 0;             /* the next row's number, over all shards */
    int64_t read_rows = FIRST_ROWS;
    /* the fold's: choose()'s notes, left for the read's end, where the pass
     * after the label column's gave them (a scan that stops short, a float
     * label column's, gives none) */
    std::vector<std::string> *defer = nullptr;
};

/* The batch's rows into the check; the next batch's rows sized by these. */
void feed(Pass &p, const std::vector<Flat> &flat, int64_t rows)
{
    int64_t items = 1;
    for (int64_t i = 0; i < rows; i++, p.row++) {
        for (size_t c = 0; c < flat.size(); c++) {
            const Flat &f = flat[c];
            int64_t from = i ? f.offsets[(size_t)i - 1] : 0, to = f.offsets[(size_t)i];
            la_column_check_values(p.check, c, p.row, f.null[(size_t)i] ? nullptr
                                   : f.values.data() + from, (size_t)(to - from));
        }
        la_column_check_row(p.check, p.row);
    }
    for (const Flat &f : flat)
        items = std::max<int64_t>(items, (int64_t)f.values.size());
    p.read_rows = std::clamp<int64_t>(READ_ITEMS * std::max<int64_t>(rows, 1) / items, 1,
                                      MOST_ROWS);
}

/* The plan's columns in schema, and the check for them (first shard). */
int choose(Pass &p, const arrow::Schema &schema, const std::string &primary)
{
    std::vector<int> rules;
    int primary_rule = -1;
    for (int i = 0; i < schema.num_fields(); i++) {
        int rule = la_column_plan_find(p.plan, schema.field(i)->name().c_str());
        if (rule < 0 || rules.size() >= LA_COLUMNS_MAX)
            continue;
        const arrow::DataType &t = *schema.field(i)->type();
        const arrow::DataType &v = is_list(t)
            ? *static_cast<const arrow::BaseListType &>(t).value_type() : t;
        if (!arrow::is_integer(v.id()) && v.id() != arrow::Type::BOOL) {
            if (p.defer)
                p.defer->push_back("column '" + schema.field(i)->name() + "' is " + t.ToString() +
                                   ": not checked (its table takes integers)");
            else if (p.r->notes)
                la_notes_line(p.r->notes, "column '%s' is %s: not checked (its table takes "
                              "integers)", schema.field(i)->name().c_str(), t.ToString().c_str());
            continue;
        }
        if (schema.field(i)->name() == primary)
            primary_rule = rule;
        p.cols.push_back(Wanted{ i, rule, v.ToString(), is_list(t) });
        rules.push_back(rule);
    }
    /* the label column alone: the scan has said all there is */
    if (rules.empty() || (rules.size() == 1 && primary_rule >= 0))
        return 0;
    p.check = la_column_check_new(p.plan, rules.data(), rules.size(), primary_rule);
    if (!p.check)
        return la_reader_set_error(p.r, "out of memory");
    for (size_t c = 0; c < p.cols.size(); c++)
        la_column_check_dtype(p.check, c, p.cols[c].dtype.c_str(), p.cols[c].list);
    return 0;
}

arrow::Status open_file(const Shard &s, std::shared_ptr<arrow::io::RandomAccessFile> *file)
{
    ARROW_ASSIGN_OR_RAISE(*file, arrow::io::ReadableFile::Open(s.path));
    return arrow::Status::OK();
}

arrow::Status check_fields(const Pass &p, const arrow::Schema &schema)
{
    for (const Wanted &w : p.cols)
        if (w.field >= schema.num_fields() ||
            la_column_plan_find(p.plan, schema.field(w.field)->name().c_str()) != w.rule)
            return arrow::Status::Invalid("its columns are not the first shard's");
    return arrow::Status::OK();
}

arrow::Status parquet_pass(Pass &p, const Shard &s, bool first, const std::string &primary,
                           std::string *where)
{
    std::shared_ptr<arrow::io::RandomAccessFile> file;
    ARROW_RETURN_NOT_OK(open_file(s, &file));
    std::unique_ptr<parquet::arrow::FileReader> pq;
    parquet::arrow::FileReaderBuilder b;
    ARROW_RETURN_NOT_OK(b.Open(file));
    ARROW_RETURN_NOT_OK(b.Build(&pq));
    std::shared_ptr<arrow::Schema> schema;
    ARROW_RETURN_NOT_OK(pq->GetSchema(&schema));
    if (first && choose(p, *schema, primary) != 0)
        return arrow::Status::Cancelled("");
    if (!p.check)
        return arrow::Status::OK();
    ARROW_RETURN_NOT_OK(check_fields(p, *schema));
    std::vector<std::unique_ptr<parquet::arrow::ColumnReader>> readers(p.cols.size());
    for (size_t c = 0; c < p.cols.size(); c++)
        ARROW_RETURN_NOT_OK(pq->GetColumn(p.cols[c].field, &readers[c]));
    int64_t left = pq->parquet_reader()->metadata()->num_rows(), done = 0;
    std::vector<Flat> flat(p.cols.size());
    while (left > 0) {
        int64_t rows = std::min(left, p.read_rows);
        *where = "row " + std::to_string(done);
        for (size_t c = 0; c < p.cols.size(); c++) {
            std::shared_ptr<arrow::ChunkedArray> ch;
            ARROW_RETURN_NOT_OK(readers[c]->NextBatch(rows, &ch));
            flat[c].clear();
            int64_t got = 0;
            for (const auto &chunk : ch->chunks()) {
                ARROW_RETURN_NOT_OK(flatten(*chunk, &flat[c]));
                got += chunk->length();
            }
            if (got != rows)
                return arrow::Status::Invalid("column '", schema->field(p.cols[c].field)->name(),
                                              "' holds fewer rows than the footer says");
        }
        feed(p, flat, rows);
        left -= rows;
        done += rows;
    }
    return arrow::Status::OK();
}

arrow::Status ipc_pass(Pass &p, const Shard &s, bool first, const std::string &primary,
                       std::string *where)
{
    std::shared_ptr<arrow::io::RandomAccessFile> file;
    ARROW_RETURN_NOT_OK(open_file(s, &file));
    auto opts = arrow::ipc::IpcReadOptions::Defaults();
    opts.use_threads = false;
    std::shared_ptr<arrow::ipc::RecordBatchFileReader> fr;
    std::shared_ptr<arrow::RecordBatchReader> sr;
    std::shared_ptr<arrow::Schema> schema;
    if (s.kind == Kind::IPC_FILE) {
        ARROW_ASSIGN_OR_RAISE(fr, arrow::ipc::RecordBatchFileReader::Open(file, opts));
        schema = fr->schema();
    } else {
        std::shared_ptr<arrow::io::InputStream> in = file;
        ARROW_ASSIGN_OR_RAISE(sr, arrow::ipc::RecordBatchStreamReader::Open(in, opts));
        schema = sr->schema();
    }
    if (first && choose(p, *schema, primary) != 0)
        return arrow::Status::Cancelled("");
    if (!p.check)
        return arrow::Status::OK();
    ARROW_RETURN_NOT_OK(check_fields(p, *schema));
    std::vector<Flat> flat(p.cols.size());
    for (int batch = 0;; batch++) {
        std::shared_ptr<arrow::RecordBatch> rb;
        *where = "record batch " + std::to_string(batch);
        if (fr) {
            if (batch >= fr->num_record_batches())
                break;
            ARROW_ASSIGN_OR_RAISE(rb, fr->ReadRecordBatch(batch));
        } else {
            ARROW_RETURN_NOT_OK(sr->ReadNext(&rb));
        }
        if (!rb)
            break;
        for (size_t c = 0; c < p.cols.size(); c++) {
            flat[c].clear();
            ARROW_RETURN_NOT_OK(flatten(*rb->column(p.cols[c].field), &flat[c]));
        }
        feed(p, flat, rb->num_rows());
    }
    return arrow::Status::OK();
}

} // namespace

/* The check folded into the label column's read: see arrow_shards.h. */
struct Fold {
    Pass p;
    std::vector<std::unique_ptr<parquet::arrow::ColumnReader>> readers;   /* the label's: none */
    std::vector<Flat> flat;
    int label = -1;                    /* the label column's index in p.cols, or -1 */
    std::shared_ptr<arrow::Schema> schema;
    std::vector<std::string> notes;    /* choose()'s, for fold_finish */
    /* Each read's columns decoded side by side, the label column's among
     * them, a task per column (Arrow reads a file's columns in parallel the
     * same way: each column reader is its own): one after the other, the
     * fold was the sum of their times where Arrow's read of them on -j
     * threads is about the longest one's */
    struct la_pool *pool = nullptr;
    /* the read being folded: the rows asked for, the label column's reader
     * and what it read, each column's row count */
    int64_t want = 0;
    parquet::arrow::ColumnReader *label_reader = nullptr;
    std::shared_ptr<arrow::Array> label_read;
    std::vector<int64_t> got;
    std::vector<arrow::Status> status;   /* per task: the columns, then the label's read */
};

/* Task t of a read: column t (its next `want` rows), or, for the label
 * column (t == label, or past the columns when the check does not take it),
 * the label column's read itself, then its values. */
arrow::Status fold_task(Fold *f, size_t t)
{
    bool is_label = (int)t == f->label || t == f->p.cols.size();
    if (is_label) {
        std::shared_ptr<arrow::ChunkedArray> ch;
        ARROW_RETURN_NOT_OK(f->label_reader->NextBatch(f->want, &ch));
        if (!ch || ch->length() == 0)
            return arrow::Status::Invalid("the row groups hold fewer rows than the footer says");
        if (ch->num_chunks() == 1) {
            f->label_read = ch->chunk(0);
        } else {
            ARROW_ASSIGN_OR_RAISE(f->label_read, arrow::Concatenate(ch->chunks()));
        }
        ARROW_RETURN_NOT_OK(f->label_read->ValidateFull());
        if (t == f->p.cols.size())
            return arrow::Status::OK();
        f->flat[t].clear();
        return flatten(*f->label_read, &f->flat[t]);
    }
    f->flat[t].clear();
    std::shared_ptr<arrow::ChunkedArray> ch;
    ARROW_RETURN_NOT_OK(f->readers[t]->NextBatch(f->want, &ch));
    int64_t got = 0;
    for (const auto &chunk : ch->chunks()) {
        ARROW_RETURN_NOT_OK(flatten(*chunk, &f->flat[t]));
        got += chunk->length();
    }
    f->got[t] = got;
    return arrow::Status::OK();
}

struct FoldJob {
    Fold *f;
    size_t tasks;
    int parts;
};

/* Part p of a read: the tasks t with t % parts == p. */
void fold_part(void *ctx, int part)
{
    FoldJob &j = *static_cast<FoldJob *>(ctx);
    for (size_t t = (size_t)part; t < j.tasks; t += (size_t)j.parts) {
        try {
            j.f->status[t] = fold_task(j.f, t);
        } catch (const std::bad_alloc &) {
            j.f->status[t] = arrow::Status::OutOfMemory("out of memory");
        } catch (const std::exception &e) {
            j.f->status[t] = arrow::Status::Invalid(e.what());
        }
    }
}

int fold_begin(struct la_reader *r, parquet::arrow::FileReader &pq, const std::string &primary,
               Fold **out)
{
    *out = nullptr;
    const struct la_read_opts *o = la_read_opts_or_default(r->opts);
    if (!o->columns || !o->columns->n || !r->notes)
        return 0;
    std::unique_ptr<Fold> f(new Fold);
    f->p.r = r;
    f->p.plan = o->columns;
    f->p.defer = &f->notes;
    arrow::Status s = pq.GetSchema(&f->schema);
    if (!s.ok())
        return la_reader_set_error(r, "%.300s", s.message().c_str());
    if (choose(f->p, *f->schema, primary) != 0)
        return -1;
    if (!f->p.check)                   /* nothing beside the label column: no check */
        return 0;
    f->readers.resize(f->p.cols.size());
    f->flat.resize(f->p.cols.size());
    f->got.resize(f->p.cols.size());
    f->status.resize(f->p.cols.size() + 1);   /* and the label's read */
    int threads = std::min({ o->threads > 0 ? o->threads : la_online_cpus(), LA_POOL_MAX,
                             (int)f->p.cols.size() + 1 });
    if (threads > 1)
        f->pool = la_pool_open_lazy(threads);   /* NULL: one column after the other */
    for (size_t c = 0; c < f->p.cols.size(); c++) {
        if (f->schema->field(f->p.cols[c].field)->name() == primary) {
            f->label = (int)c;         /* fed from the label column's own read */
            continue;
        }
        s = pq.GetColumn(f->p.cols[c].field, &f->readers[c]);
        if (!s.ok()) {
            std::string name = f->schema->field(f->p.cols[c].field)->name();
            fold_free(f.release());
            return la_reader_set_error(r, "column '%.100s': %.300s", name.c_str(),
                                       s.message().c_str());
        }
    }
    *out = f.release();
    return 0;
}

arrow::Status fold_read(Fold *f, parquet::arrow::ColumnReader &label_reader, int64_t rows,
                        std::shared_ptr<arrow::Array> *label)
{
    f->want = rows;
    f->label_reader = &label_reader;
    f->label_read.reset();
    size_t tasks = f->p.cols.size() + (f->label < 0 ? 1 : 0);
    FoldJob job{ f, tasks, f->pool ? std::min(la_pool_size(f->pool), (int)tasks) : 1 };
    for (arrow::Status &st : f->status)
        st = arrow::Status::OK();
    if (job.parts > 1)
        la_pool_run(f->pool, job.parts, fold_part, &job);
    else
        fold_part(&job, 0);
    f->label_reader = nullptr;
    /* the label column's error first: it is the one the two-pass reader gave */
    ARROW_RETURN_NOT_OK(f->status[f->label >= 0 ? (size_t)f->label : f->p.cols.size()]);
    for (const arrow::Status &st : f->status)
        ARROW_RETURN_NOT_OK(st);
    int64_t n = f->label_read->length();
    for (size_t c = 0; c < f->p.cols.size(); c++)
        if ((int)c != f->label && f->got[c] != n)
            return arrow::Status::Invalid("column '", f->schema->field(f->p.cols[c].field)->name(),
                                          "' holds fewer rows than the footer says");
    feed(f->p, f->flat, n);
    *label = std::move(f->label_read);
    return arrow::Status::OK();
}

void fold_end_shard(Fold *f)
{
    if (f)
        f->readers.clear();
}

int fold_finish(struct la_reader *r, Fold *f)
{
    struct la_column_check *check = f->p.check;
    f->p.check = nullptr;
    for (const std::string &line : f->notes)
        la_notes_line(r->notes, "%s", line.c_str());
    fold_free(f);
    if (la_column_check_finish(check, r->notes) != 0)
        return la_reader_set_error(r, "out of memory");
    return 0;
}

void fold_free(Fold *f)
{
    if (!f)
        return;
    la_column_check_free(f->p.check);
    f->readers.clear();                /* before the pool whose threads used them */
    if (f->pool)
        la_pool_close(f->pool);
    delete f;
}

int check_columns(struct la_reader *r, const std::vector<Shard> &shards,
                  const std::string &primary)
{
    const struct la_read_opts *o = la_read_opts_or_default(r->opts);
    if (!o->columns || !o->columns->n || !r->notes)
        return 0;
    Pass p;
    p.r = r;
    p.plan = o->columns;
    for (size_t i = 0; i < shards.size(); i++) {
        std::string where;
        arrow::Status s = shards[i].kind == Kind::PARQUET
                              ? parquet_pass(p, shards[i], i == 0, primary, &where)
                              : ipc_pass(p, shards[i], i == 0, primary, &where);
        if (s.IsCancelled())     /* choose() said why, in r->err */
            return -1;
        if (!s.ok()) {
            la_column_check_free(p.check);
            std::string msg = s.message();
            return la_reader_set_error(r, "%s%s%s: %.300s", shards.size() > 1 ? shards[i].name.c_str() : "",
                                       shards.size() > 1 ? " " : "", where.c_str(), msg.c_str());
        }
        if (!p.check)
            return 0;
    }
    if (la_column_check_finish(p.check, r->notes) != 0)
        return la_reader_set_error(r, "out of memory");
    return 0;
}

} // namespace la_arrow
