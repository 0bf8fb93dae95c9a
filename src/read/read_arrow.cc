/* read_arrow.cc - Parquet files, Arrow IPC files (Feather v2) and streams,
 * and the folders Hugging Face `datasets` writes (save_to_disk, its cache),
 * through Apache Arrow's C++ libraries: the one C++ file of the project,
 * built as the module labelaudit-arrow.so that the binary loads on the first
 * such file (arrow_module.h). Its interface is C (la_arrow_module_entry's
 * reader ops), so the rest of the tree stays C; every Arrow call is inside a
 * try, and an Arrow error becomes one line naming the row group or record
 * batch. Arrow's own thread pools are sized from -j (arrow_use_threads): the
 * parallel decoding is labelaudit's pool's, so a run uses the threads it was
 * given and no more.
 *
 * Only the label column is read: Parquet through its column reader (the
 * other columns' chunks are never fetched), IPC with included_fields (their
 * buffers are never decoded), in batches of ARROW_BATCH rows, so memory is one
 * batch whatever the file's size. Every array is validated in full before
 * its values are read (a lying list offset is Arrow's error, not a read past
 * a buffer).
 *
 * A scalar column gives one element per row. A list column (list, large_list,
 * fixed_size_list) gives one sample per row, its items the elements; the
 * sample of an element is found in a map of each row's first element
 * (sample_map.h), published a batch at a time before its chunks go out and
 * freed by the scan behind itself. A
 * null (a row, or an item) is an unparsable "null" element at its place. A
 * dictionary column of names is read by its indices; of numbers, by its
 * values.
 *
 * A Hugging Face ClassLabel feature (the schema's "huggingface" metadata or
 * the folder's dataset_info.json; also inside a Sequence or List) gives the
 * class count and names, left in the notes for the report. */
#include <arrow/api.h>
#include <arrow/io/api.h>
#include <arrow/ipc/api.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/exception.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include <arrow/io/interfaces.h>
#include <arrow/util/thread_pool.h>

#include "arrow_shards.h"

extern "C" {
#include "config.h"
#include "hf_splits.h"  /* la_hf_split_of: a cache folder's splits */
#include "arrow_module.h"
#include "label_notes.h"
#include "pool.h"    /* la_pool_run: row groups in parallel */
#include "reader.h"
#include "sample_map.h" /* a list row of each element, for the scan's thread */
#include "util.h"    /* la_online_cpus */
}

namespace {

const int64_t ARROW_BATCH = 1 << 16;   /* rows per batch read, elements per batch handed out */

/* Elements a Parquet read of a list column aims at: its rows per read follow
 * the lengths met so far, so that 2048-token rows are not read 65536 at once. */
const int64_t ARROW_READ_ITEMS = 1 << 20;
const int64_t LIST_FIRST_READ = 1024;  /* rows of a list column's first read */

/* At most this many bytes of values decoded at once by a round of row groups. */
const int64_t ARROW_ROUND_BYTES = 16 << 20;

using la_arrow::Kind;
using la_arrow::Shard;
struct Part;

/* A dictionary column of names, its dictionaries unified as Arrow's
 * DictionaryUnifier (and pandas' categories) unify them: a name's class is its
 * place in the order names first appear, dictionary after dictionary. Each
 * row group and each replaced IPC dictionary has its own indices; read as
 * they are, ['cat', 'dog'] then ['bird'] made bird class 0. */
struct Unified {
    std::unordered_map<std::string, int64_t> ids;
    std::shared_ptr<arrow::Array> dict;   /* the dictionary that remap is of (held: its address stays its own) */
    std::vector<int64_t> remap;           /* its index -> the class; -1: a null name */
    /* The class of index i of dictionary d. */
    int64_t of(const std::shared_ptr<arrow::Array> &d, int64_t i)
    {
        if (d != dict) {
            dict = d;
            remap.assign((size_t)d->length(), -1);
            for (int64_t j = 0; j < d->length(); j++) {
                auto sc = d->GetScalar(j);
                if (!d->IsNull(j) && sc.ok())
                    remap[(size_t)j] = ids.emplace((*sc)->ToString(), (int64_t)ids.size()).first->second;
            }
        }
        return i >= 0 && i < (int64_t)remap.size() ? remap[(size_t)i] : -1;
    }
};

struct State {
    std::vector<Shard> shards;
    size_t shard = 0;
    int field = -1;                    /* the label column's index in the shard's schema */
    std::string column;
    std::shared_ptr<arrow::DataType> type;   /* the label column's, in the first shard */
    enum la_dtype dtype = LA_DT_INT64;
    bool is_list = false;
    bool dict_by_index = false;        /* dictionary of names: its indices, unified */
    mutable Unified unified;           /* read on the reader's thread only (not in parallel) */
    /* the open shard */
    std::shared_ptr<arrow::io::RandomAccessFile> file;
    std::unique_ptr<parquet::arrow::FileReader> pq;
    std::unique_ptr<parquet::arrow::ColumnReader> pq_col;
    std::vector<int64_t> rg_ends;      /* parquet: rows up to the end of each row group */
    std::shared_ptr<arrow::ipc::RecordBatchFileReader> ipc_file;
    std::shared_ptr<arrow::RecordBatchReader> ipc_stream;
    int batch_no = 0;                  /* ipc: the next record batch */
    int64_t read_rows = ARROW_BATCH;   /* parquet: rows of the next read */
    /* an array of which the batch took part: the rest goes into the next */
    std::shared_ptr<arrow::Array> pending;
    int64_t pending_row = 0;
    int64_t shard_rows = 0;            /* rows of this shard read so far */
    bool shard_open = false;
    /* the batch being handed out: values with the nulls left out, and the
     * places (relative to out_first) of the nulls */
    std::vector<unsigned char> buf;
    std::vector<uint64_t> nulls;
    size_t n_out = 0, at = 0, next_null = 0, values_used = 0;
    uint64_t out_first = 0;
    uint64_t elements = 0, rows = 0;   /* so far, over all shards */
    struct la_sample_map *map = NULL;  /* lists only: each row's first element */
    /* Parquet row groups decoded in parallel, one per part of a pool job
     * (scalar columns whose row groups are small enough that a round of
     * them fits ARROW_ROUND_BYTES): then handed out in order */
    int threads = 1;
    struct la_pool *pool = NULL;
    bool parallel = false;
    std::vector<struct Part> parts;
    int next_rg = 0;                   /* the next row group a round decodes */
    size_t part_at = 0, parts_ready = 0;
    bool columns_checked = false;      /* arrow_columns.cc's pass, after the label column's */
    /* or that check folded into this read (one Parquet file, its label
     * column read here a batch at a time, not on the pool): the file read
     * once, not twice */
    la_arrow::Fold *fold = nullptr;
    bool fold_tried = false;
};

/* One row group decoded by one thread of the pool (its own file reader). */
struct Part {
    std::unique_ptr<parquet::arrow::FileReader> pq;
    int rg = -1;
    int64_t rows = 0;
    std::vector<unsigned char> buf;
    std::vector<uint64_t> nulls;
    uint64_t n_out = 0;
    arrow::Status status;
};

std::string where_batch(const State &st)
{
    const Shard &s = st.shards[st.shard];
    if (!st.shard_open && st.shards.size() > 1)   /* a shard's schema, before any batch */
        return s.name;
    std::string pre = st.shards.size() > 1 ? s.name + " " : std::string();
    if (s.kind == Kind::PARQUET) {
        size_t rg = std::upper_bound(st.rg_ends.begin(), st.rg_ends.end(), st.shard_rows) -
                    st.rg_ends.begin();
        return pre + "row group " + std::to_string(rg);
    }
    return pre + "record batch " + std::to_string(st.batch_no);
}

/* The la_dtype of an Arrow value type, or -1 for one labelaudit does not read. */
int dtype_of(const arrow::DataType &t)
{
    switch (t.id()) {
    case arrow::Type::BOOL: return LA_DT_BOOL;
    case arrow::Type::INT8: return LA_DT_INT8;
    case arrow::Type::UINT8: return LA_DT_UINT8;
    case arrow::Type::INT16: return LA_DT_INT16;
    case arrow::Type::UINT16: return LA_DT_UINT16;
    case arrow::Type::INT32: return LA_DT_INT32;
    case arrow::Type::UINT32: return LA_DT_UINT32;
    case arrow::Type::INT64: return LA_DT_INT64;
    case arrow::Type::UINT64: return LA_DT_UINT64;
    case arrow::Type::HALF_FLOAT: return LA_DT_FLOAT16;
    case arrow::Type::FLOAT: return LA_DT_FLOAT32;
    case arrow::Type::DOUBLE: return LA_DT_FLOAT64;
    default: return -1;
    }
}

bool is_list_type(const arrow::DataType &t)
{
    return t.id() == arrow::Type::LIST || t.id() == arrow::Type::LARGE_LIST ||
           t.id() == arrow::Type::FIXED_SIZE_LIST;
}

/* The dtype a column of type t is read as, and how; -1: not a label column. */
int column_dtype(const arrow::DataType &t, bool *is_list, bool *by_index)
{
    const arrow::DataType *v = &t;
    *is_list = is_list_type(t);
    if (*is_list)
        v = static_cast<const arrow::BaseListType &>(t).value_type().get();
    *by_index = false;
    if (v->id() == arrow::Type::DICTIONARY) {
        auto &d = static_cast<const arrow::DictionaryType &>(*v);
        int vt = dtype_of(*d.value_type());
        if (vt < 0) {
            *by_index = true;                 /* names: the class is the unified index */
            int it = dtype_of(*d.index_type());
            return it == LA_DT_INT64 || it == LA_DT_UINT32 || it == LA_DT_UINT64 ? LA_DT_INT64
                                                                                 : LA_DT_INT32;
        }
        return la_dtype_is_float((enum la_dtype)vt) ? LA_DT_FLOAT64 : LA_DT_INT64;
    }
    return dtype_of(*v);
}

int pick_column(struct la_reader *r, State &st, const arrow::Schema &schema)
{
    const struct la_read_opts *o = la_read_opts_or_default(r->opts);
    int n = schema.num_fields();
    int found = -1;
    if (o->column) {
        for (int i = 0; i < n && found < 0; i++)
            if (schema.field(i)->name() == o->column)
                found = i;
        for (int i = 0; i < n && found < 0; i++)
            if (strcasecmp(schema.field(i)->name().c_str(), o->column) == 0)
                found = i;
    } else {
        int best = -1;   /* the default names (la_label_name_rank): the best-ranked, the first of equals */
        for (int i = 0; i < n; i++) {
            const std::string &name = schema.field(i)->name();
            int rank = la_label_name_rank(name.data(), name.size());
            if (rank >= 0 && (best < 0 || rank < best))
                best = rank, found = i;
        }
        for (int i = 0; i < n && found < 0 && o->vocab_size > 0; i++)
            if (schema.field(i)->name() == "input_ids")
                found = i;
        if (found < 0 && n == 1)
            found = 0;
    }
    if (found < 0) {
        std::string names;
        for (int i = 0; i < n && names.size() < 200; i++)
            names += (i ? ", " : "") + schema.field(i)->name();
        if (o->column)
            return la_reader_set_error(r, "no column '%.100s' (the columns are %s)", o->column,
                                       names.c_str());
        return la_reader_set_error(r, "no label column (the columns are %s): name it with -c",
                                   names.c_str());
    }
    const arrow::DataType &t = *schema.field(found)->type();
    int dt = column_dtype(t, &st.is_list, &st.dict_by_index);
    if (dt < 0)
        return la_reader_set_error(r, "column '%.100s' is %.100s: labels are integers, bools, "
                                   "floats or lists of them", schema.field(found)->name().c_str(),
                                   t.ToString().c_str());
    st.field = found;
    st.column = schema.field(found)->name();
    st.type = schema.field(found)->type();
    st.dtype = (enum la_dtype)dt;
    return 0;
}

// ---- ClassLabel: Hugging Face's features JSON ----------------------------------

/* The ClassLabel of a feature, inside a Sequence/List too; or NULL. */
cJSON *class_label_of(cJSON *feature)
{
    for (int depth = 0; cJSON_IsObject(feature) && depth < 8; depth++) {
        cJSON *type = cJSON_GetObjectItemCaseSensitive(feature, "_type");
        if (cJSON_IsString(type) && strcmp(type->valuestring, "ClassLabel") == 0)
            return feature;
        feature = cJSON_GetObjectItemCaseSensitive(feature, "feature");
    }
    return NULL;
}

/* From a features object, the column's ClassLabel into the notes; where
 * says what holds it ("dataset_info.json"). @return 0, or -1 with r->err. */
int note_classes(struct la_reader *r, cJSON *features, const std::string &column,
                 const char *from, const char *where)
{
    cJSON *cl = class_label_of(cJSON_GetObjectItemCaseSensitive(features, column.c_str()));
    if (!cl || !r->notes || r->notes->has_classes)
        return 0;
    cJSON *names = cJSON_GetObjectItemCaseSensitive(cl, "names");
    cJSON *num = cJSON_GetObjectItemCaseSensitive(cl, "num_classes");
    uint64_t count = 0;
    /* names and a num_classes that disagree: datasets' ClassLabel refuses the
     * pair ("number of names do not match the defined num_classes") */
    if (cJSON_IsArray(names) && cJSON_IsNumber(num) &&
        num->valuedouble != (double)cJSON_GetArraySize(names))
        return la_reader_set_error(r, "%s: ClassLabel '%.100s' has %d names but num_classes "
                                   "%.17g: make them agree (datasets' ClassLabel refuses the "
                                   "pair)", where, column.c_str(), cJSON_GetArraySize(names),
                                   num->valuedouble);
    if (cJSON_IsArray(names))
        count = (uint64_t)cJSON_GetArraySize(names);
    else if (cJSON_IsNumber(num) && num->valuedouble >= 0 && num->valuedouble < 1e15)
        count = (uint64_t)num->valuedouble;
    else
        return 0;
    struct la_notes *n = r->notes;
    n->has_classes = 1;
    n->classes = count;
    n->classes_from = from;
    if (cJSON_IsArray(names) && count > 0 &&
        (n->class_names = (char **)calloc((size_t)count, sizeof(char *)))) {
        size_t i = 0;
        for (cJSON *e = names->child; e && i < count; e = e->next, i++)
            n->class_names[i] = strdup(cJSON_IsString(e) ? e->valuestring : "");
        n->n_class_names = i;
    }
    la_notes_line(n, "ClassLabel '%s': %llu classes (%s)", column.c_str(),
                  (unsigned long long)count, from);
    return 0;
}

int classes_from_json(struct la_reader *r, const std::string &text, const std::string &column,
                      bool nested_in_info, const char *from, const char *where)
{
    cJSON *root = cJSON_ParseWithLength(text.data(), text.size());
    cJSON *at = root;
    if (nested_in_info)
        at = cJSON_GetObjectItemCaseSensitive(root, "info");
    int rc = note_classes(r, cJSON_GetObjectItemCaseSensitive(at, "features"), column, from, where);
    cJSON_Delete(root);
    return rc;
}

int classes_from_schema(struct la_reader *r, const arrow::Schema &schema,
                        const std::string &column)
{
    auto meta = schema.metadata();
    if (!meta)
        return 0;
    int at = meta->FindKey("huggingface");
    if (at < 0)
        return 0;
    return classes_from_json(r, meta->value(at), column, true, "Arrow schema metadata ClassLabel",
                             "the schema's huggingface metadata");
}

// ---- shards -----------------------------------------------------------------------

bool read_small_file(const std::string &path, std::string *out)
{
    FILE *f = fopen(path.c_str(), "rb");
    if (!f)
        return false;
    char buf[65536];
    size_t got;
    out->clear();
    while ((got = fread(buf, 1, sizeof buf, f)) > 0 && out->size() < (64u << 20))
        out->append(buf, got);
    fclose(f);
    return true;
}

Kind kind_of_file(const std::string &path)
{
    char head[6] = { 0 };
    FILE *f = fopen(path.c_str(), "rb");
    if (f) {
        if (fread(head, 1, sizeof head, f) != sizeof head)
            head[0] = 0;
        fclose(f);
    }
    if (memcmp(head, "PAR1", 4) == 0)
        return Kind::PARQUET;
    return memcmp(head, "ARROW1", 6) == 0 ? Kind::IPC_FILE : Kind::IPC_STREAM;
}

arrow::Status open_ipc(State &st, const Shard &s, bool all_fields)
{
    ARROW_ASSIGN_OR_RAISE(st.file, arrow::io::ReadableFile::Open(s.path));
    auto opts = arrow::ipc::IpcReadOptions::Defaults();
    opts.use_threads = false;   /* labelaudit's pool decodes in parallel, within -j */
    if (!all_fields)
        opts.included_fields = { st.field };
    if (s.kind == Kind::IPC_FILE) {
        ARROW_ASSIGN_OR_RAISE(st.ipc_file, arrow::ipc::RecordBatchFileReader::Open(st.file, opts));
    } else {
        std::shared_ptr<arrow::io::InputStream> in = st.file;
        ARROW_ASSIGN_OR_RAISE(st.ipc_stream, arrow::ipc::RecordBatchStreamReader::Open(in, opts));
    }
    return arrow::Status::OK();
}

arrow::Status open_parquet(State &st, const Shard &s)
{
    ARROW_ASSIGN_OR_RAISE(st.file, arrow::io::ReadableFile::Open(s.path));
    parquet::ArrowReaderProperties props;
    props.set_batch_size(ARROW_BATCH);
    parquet::arrow::FileReaderBuilder b;
    ARROW_RETURN_NOT_OK(b.Open(st.file));
    ARROW_RETURN_NOT_OK(b.properties(props)->Build(&st.pq));
    auto md = st.pq->parquet_reader()->metadata();
    st.rg_ends.clear();
    int64_t sum = 0;
    for (int i = 0; i < md->num_row_groups(); i++)
        st.rg_ends.push_back(sum += md->RowGroup(i)->num_rows());
    return arrow::Status::OK();
}

/* The schema of shard s, read without its data. */
arrow::Status shard_schema(State &st, const Shard &s, std::shared_ptr<arrow::Schema> *out)
{
    if (s.kind == Kind::PARQUET) {
        ARROW_RETURN_NOT_OK(open_parquet(st, s));
        return st.pq->GetSchema(out);
    }
    ARROW_RETURN_NOT_OK(open_ipc(st, s, true));
    *out = st.ipc_file ? st.ipc_file->schema() : st.ipc_stream->schema();
    return arrow::Status::OK();
}

void close_shard(State &st)
{
    la_arrow::fold_end_shard(st.fold);   /* its column readers are st.pq's */
    st.pq_col.reset();
    st.pq.reset();
    st.ipc_file.reset();
    if (st.ipc_stream)
        (void)st.ipc_stream->Close();
    st.ipc_stream.reset();
    if (st.file)
        (void)st.file->Close();
    st.file.reset();
    st.shard_open = false;
}

/* Whether the shard's row groups are decoded a round at a time in parallel. */
void plan_parallel(State &st)
{
    int64_t most = 0, esize = la_dtype_info(st.dtype)->size;
    int64_t prev = 0;
    for (int64_t end : st.rg_ends) {
        most = std::max(most, end - prev);
        prev = end;
    }
    st.parallel = !st.is_list && !st.dict_by_index && st.threads > 1 && st.rg_ends.size() > 1 &&
                  most * esize * st.threads <= ARROW_ROUND_BYTES;
    st.next_rg = 0;
    st.part_at = st.parts_ready = 0;
    if (st.parallel && !st.pool && !(st.pool = la_pool_open_lazy(st.threads)))
        st.parallel = false;
    if (st.parallel)
        st.parts.resize((size_t)la_pool_size(st.pool));
    for (Part &p : st.parts)
        p.pq.reset();                  /* a reader of the previous shard */
}

/* A Parquet list column's first read: about ARROW_READ_ITEMS items by the
 * footer's count of the column's values in the shard, at most
 * LIST_FIRST_READ rows. Always 1024 rows, a file of 8192-token rows was
 * read 8M values at once (plan_read sizes the reads after it): its peak RSS
 * was 170 MiB above Arrow's own read of the same columns (bench/columns.sh). */
int64_t first_list_read(const State &st)
{
    auto md = st.pq->parquet_reader()->metadata();
    const auto &fields = st.pq->manifest().schema_fields;
    if (st.field < 0 || (size_t)st.field >= fields.size())
        return LIST_FIRST_READ;
    const parquet::arrow::SchemaField *f = &fields[(size_t)st.field];
    while (!f->children.empty())
        f = &f->children[0];          /* the list's items: the leaf the footer counts */
    if (f->column_index < 0 || f->column_index >= md->num_columns())
        return LIST_FIRST_READ;
    int64_t values = 0, rows = md->num_rows();
    for (int g = 0; g < md->num_row_groups(); g++)
        values += md->RowGroup(g)->ColumnChunk(f->column_index)->num_values();
    if (values <= 0 || rows <= 0)
        return LIST_FIRST_READ;
    return std::clamp<int64_t>((int64_t)((double)ARROW_READ_ITEMS * (double)rows / (double)values),
                               1, LIST_FIRST_READ);
}

/* Open shard st.shard for reading its label column, checking that it has the
 * first shard's. */
arrow::Status begin_shard(State &st)
{
    const Shard &s = st.shards[st.shard];
    std::shared_ptr<arrow::Schema> schema;
    ARROW_RETURN_NOT_OK(shard_schema(st, s, &schema));
    if (st.field >= schema->num_fields() || schema->field(st.field)->name() != st.column)
        return arrow::Status::Invalid("its columns are not the first shard's (no column '",
                                      st.column, "' at the same place)");
    /* each shard is read by the first one's dtype: another type is refused,
     * as datasets.load_from_disk refuses it ("incompatible types") */
    const arrow::DataType &t = *schema->field(st.field)->type();
    if (!t.Equals(*st.type))
        return arrow::Status::TypeError("column '", st.column, "' is ", t.ToString(), " where ",
                                        st.shards[0].name, " has ", st.type->ToString(),
                                        ": shards of one dataset share one type (datasets "
                                        "refuses the folder: incompatible types); cast them "
                                        "to one (Dataset.cast_column) and save again");
    if (s.kind == Kind::PARQUET) {
        ARROW_RETURN_NOT_OK(st.pq->GetColumn(st.field, &st.pq_col));
        plan_parallel(st);
    } else {
        close_shard(st);
        ARROW_RETURN_NOT_OK(open_ipc(st, s, false));
    }
    st.batch_no = 0;
    st.shard_rows = 0;
    st.read_rows = !st.is_list ? ARROW_BATCH
                   : s.kind == Kind::PARQUET ? first_list_read(st) : LIST_FIRST_READ;
    st.pending.reset();
    st.shard_open = true;
    return arrow::Status::OK();
}

// ---- values --------------------------------------------------------------------------

/* Where a batch's values go: its buffer of values, the places of its nulls. */
struct Sink {
    std::vector<unsigned char> &buf;
    std::vector<uint64_t> &nulls;
    unsigned esize;
    uint64_t out = 0;    /* elements of the batch so far */
    void value(const void *p)
    {
        size_t at = buf.size();
        buf.resize(at + esize);
        memcpy(buf.data() + at, p, esize);
        out++;
    }
    void null() { nulls.push_back(out++); }
};

/* The element at i of a primitive, bool or dictionary array into the sink. */
void put_item(const State &st, Sink &k, const arrow::Array &a, int64_t i)
{
    if (a.IsNull(i)) {
        k.null();
        return;
    }
    if (a.type_id() == arrow::Type::BOOL) {
        unsigned char b = static_cast<const arrow::BooleanArray &>(a).Value(i) ? 1 : 0;
        k.value(&b);
        return;
    }
    if (a.type_id() == arrow::Type::DICTIONARY) {
        auto &d = static_cast<const arrow::DictionaryArray &>(a);
        int64_t idx = d.GetValueIndex(i);
        if (st.dict_by_index) {
            int64_t c = st.unified.of(d.dictionary(), idx);
            int32_t c32 = (int32_t)c;
            if (c < 0 || (st.dtype == LA_DT_INT32 && c > INT32_MAX))
                k.null();
            else
                k.value(st.dtype == LA_DT_INT32 ? (const void *)&c32 : (const void *)&c);
            return;
        }
        const arrow::Array &v = *d.dictionary();
        if (idx < 0 || idx >= v.length() || v.IsNull(idx)) {
            k.null();
            return;
        }
        auto sc = v.GetScalar(idx);
        auto cast = sc.ok() ? (*sc)->CastTo(st.dtype == LA_DT_FLOAT64 ? arrow::float64()
                                                                       : arrow::int64())
                            : arrow::Result<std::shared_ptr<arrow::Scalar>>(sc.status());
        if (!cast.ok()) {
            k.null();
            return;
        }
        if (st.dtype == LA_DT_FLOAT64) {
            double x = static_cast<const arrow::DoubleScalar &>(**cast).value;
            k.value(&x);
        } else {
            int64_t x = static_cast<const arrow::Int64Scalar &>(**cast).value;
            k.value(&x);
        }
        return;
    }
    k.value(a.data()->buffers[1]->data() + (a.offset() + i) * (int64_t)k.esize);
}

/* A run of items [from, to) of a values array: in one copy when it has no
 * nulls and is of plain fixed-width values. */
void put_items(const State &st, Sink &k, const arrow::Array &a, int64_t from, int64_t to)
{
    bool plain = a.type_id() != arrow::Type::BOOL && a.type_id() != arrow::Type::DICTIONARY;
    if (plain && a.null_count() == 0 && to > from) {
        size_t at = k.buf.size(), n = (size_t)(to - from) * k.esize;
        k.buf.resize(at + n);
        memcpy(k.buf.data() + at, a.data()->buffers[1]->data() + (a.offset() + from) * k.esize, n);
        k.out += (uint64_t)(to - from);
        return;
    }
    for (int64_t i = from; i < to; i++)
        put_item(st, k, a, i);
}

/* One array of the label column into the batch's buffers. */
void put_array(State &st, const arrow::Array &a)
{
    /* the batch may hold earlier arrays already: places count from its start */
    Sink k{ st.buf, st.nulls, la_dtype_info(st.dtype)->size, st.elements - st.out_first };
    if (!st.is_list) {
        uint64_t before = k.out;
        put_items(st, k, a, 0, a.length());
        st.rows += (uint64_t)a.length();
        st.elements += k.out - before;
        return;
    }
    std::shared_ptr<arrow::Array> values;
    for (int64_t row = 0; row < a.length(); row++) {
        int64_t from, to;
        if (a.type_id() == arrow::Type::LIST) {
            auto &l = static_cast<const arrow::ListArray &>(a);
            from = l.value_offset(row), to = from + l.value_length(row);
            if (!values) values = l.values();
        } else if (a.type_id() == arrow::Type::LARGE_LIST) {
            auto &l = static_cast<const arrow::LargeListArray &>(a);
            from = l.value_offset(row), to = from + l.value_length(row);
            if (!values) values = l.values();
        } else {
            auto &l = static_cast<const arrow::FixedSizeListArray &>(a);
            from = l.value_offset(row), to = from + l.value_length(row);
            if (!values) values = l.values();
        }
        uint64_t before = k.out;
        if (st.map && la_sample_map_start(st.map, st.elements) != 0)
            throw std::bad_alloc();
        if (a.IsNull(row))
            k.null();
        else
            put_items(st, k, *values, from, to);
        st.elements += k.out - before;
        st.rows++;
    }
}

void put_array(State &st, const arrow::Array &a);

/* Part t of a round: row group p.rg of the shard, whole, on its own reader. */
arrow::Status decode_part(State &st, Part &p)
{
    p.buf.clear();
    p.nulls.clear();
    p.n_out = 0;
    if (!p.pq) {
        std::shared_ptr<arrow::io::RandomAccessFile> f;
        ARROW_ASSIGN_OR_RAISE(f, arrow::io::ReadableFile::Open(st.shards[st.shard].path));
        parquet::arrow::FileReaderBuilder b;
        ARROW_RETURN_NOT_OK(b.Open(f, parquet::default_reader_properties(),
                                   st.pq->parquet_reader()->metadata()));
        ARROW_RETURN_NOT_OK(b.Build(&p.pq));
    }
    std::shared_ptr<arrow::ChunkedArray> ch;
    ARROW_RETURN_NOT_OK(p.pq->RowGroup(p.rg)->Column(st.field)->Read(&ch));
    int64_t want = st.rg_ends[(size_t)p.rg] - (p.rg ? st.rg_ends[(size_t)p.rg - 1] : 0);
    if (ch->length() != want)
        return arrow::Status::Invalid("the row group holds ", ch->length(), " rows where the "
                                      "footer says ", want);
    Sink k{ p.buf, p.nulls, la_dtype_info(st.dtype)->size };
    for (const auto &a : ch->chunks()) {
        ARROW_RETURN_NOT_OK(a->ValidateFull());
        put_items(st, k, *a, 0, a->length());
    }
    p.rows = want;
    p.n_out = k.out;
    return arrow::Status::OK();
}

struct Round {
    State *st;
    int n;
};

void run_part(void *ctx, int t)
{
    Round &rd = *static_cast<Round *>(ctx);
    Part &p = rd.st->parts[(size_t)t];
    try {
        p.status = decode_part(*rd.st, p);
    } catch (const std::bad_alloc &) {
        p.status = arrow::Status::OutOfMemory("out of memory");
    } catch (const std::exception &e) {
        p.status = arrow::Status::Invalid(e.what());
    }
}

/* The next row group of a parallel shard into the batch buffers, decoding a
 * round of them first when none is left. @return 1, 0 at the shard's end, -1. */
int next_part(struct la_reader *r, State &st)
{
    if (st.part_at == st.parts_ready) {
        int n = (int)std::min(st.parts.size(), st.rg_ends.size() - (size_t)st.next_rg);
        if (n <= 0)
            return 0;
        for (int t = 0; t < n; t++)
            st.parts[(size_t)t].rg = st.next_rg + t;
        Round rd{ &st, n };
        la_pool_run(st.pool, n, run_part, &rd);
        st.next_rg += n;
        st.part_at = 0;
        st.parts_ready = (size_t)n;
    }
    Part &p = st.parts[st.part_at++];
    if (!p.status.ok()) {
        std::string pre = st.shards.size() > 1 ? st.shards[st.shard].name + " " : std::string();
        return la_reader_set_error(r, "%srow group %d: %.300s", pre.c_str(), p.rg,
                                   p.status.message().c_str());
    }
    st.buf.swap(p.buf);
    st.nulls.swap(p.nulls);
    st.out_first = st.elements;
    st.n_out = (size_t)p.n_out;
    st.elements += p.n_out;
    st.rows += (uint64_t)p.rows;
    st.shard_rows += p.rows;
    st.at = st.next_null = st.values_used = 0;
    return 1;
}

/* The next array of the label column, NULL at the shard's end. */
arrow::Status next_array(State &st, std::shared_ptr<arrow::Array> *out)
{
    out->reset();
    const Shard &s = st.shards[st.shard];
    if (s.kind == Kind::PARQUET) {
        if (st.shard_rows >= (st.rg_ends.empty() ? 0 : st.rg_ends.back()))
            return arrow::Status::OK();
        if (st.fold)                   /* read beside the other columns */
            return la_arrow::fold_read(st.fold, *st.pq_col, st.read_rows, out);
        std::shared_ptr<arrow::ChunkedArray> ch;
        ARROW_RETURN_NOT_OK(st.pq_col->NextBatch(st.read_rows, &ch));
        if (!ch || ch->length() == 0)
            return arrow::Status::Invalid("the row groups hold fewer rows than the footer says");
        if (ch->num_chunks() == 1) {
            *out = ch->chunk(0);
        } else {
            ARROW_ASSIGN_OR_RAISE(*out, arrow::Concatenate(ch->chunks()));
        }
        return arrow::Status::OK();
    }
    std::shared_ptr<arrow::RecordBatch> b;
    if (st.ipc_file) {
        if (st.batch_no >= st.ipc_file->num_record_batches())
            return arrow::Status::OK();
        ARROW_ASSIGN_OR_RAISE(b, st.ipc_file->ReadRecordBatch(st.batch_no));
    } else {
        ARROW_RETURN_NOT_OK(st.ipc_stream->ReadNext(&b));
        if (!b)
            return arrow::Status::OK();
    }
    if (b->num_columns() != 1)
        return arrow::Status::Invalid("the record batch lacks the label column");
    *out = b->column(0);
    return arrow::Status::OK();
}

/* Items of row `row` of a list array as a batch counts them (a null row: its "null"). */
int64_t row_items(const arrow::Array &a, int64_t row)
{
    if (a.IsNull(row))
        return 1;
    if (a.type_id() == arrow::Type::LIST)
        return static_cast<const arrow::ListArray &>(a).value_length(row);
    if (a.type_id() == arrow::Type::LARGE_LIST)
        return static_cast<const arrow::LargeListArray &>(a).value_length(row);
    return static_cast<const arrow::FixedSizeListArray &>(a).value_length(row);
}

/* The rows of a from row `from` on that fill a batch with room for `room`
 * more elements: at least one (a row is never cut). */
int64_t rows_that_fit(const State &st, const arrow::Array &a, int64_t from, int64_t room)
{
    int64_t left = a.length() - from;
    if (!st.is_list)
        return std::min(left, std::max<int64_t>(room, 1));
    int64_t rows = 0;
    for (int64_t items = 0; rows < left; rows++) {
        items += row_items(a, from + rows);
        if (rows > 0 && items > room)
            break;
    }
    return rows;
}

/* After a Parquet read of a list column: the next one's rows, for about
 * ARROW_READ_ITEMS items by the lengths of these. */
void plan_read(State &st, const arrow::Array &a)
{
    int64_t items = 0;
    for (int64_t row = 0; row < a.length(); row++)
        items += row_items(a, row);
    int64_t rows = ARROW_READ_ITEMS * std::max<int64_t>(a.length(), 1) / std::max<int64_t>(items, 1);
    st.read_rows = std::min(std::max<int64_t>(rows, 1), ARROW_BATCH);
}

/* Fill the batch buffers from the next array of any shard: whole arrays, and
 * then a part of one, up to ARROW_BATCH elements (and a row's whatever its
 * length); the rest of an array waits in st.pending. @return 1, 0 at the end, -1. */
int fill(struct la_reader *r, State &st)
{
    bool started = false;   /* small batches (datasets writes 1000 rows each) are joined */
    for (;;) {
        if (st.shard >= st.shards.size())
            return started && st.n_out ? 1 : 0;
        arrow::Status s;
        std::shared_ptr<arrow::Array> a;
        if (!st.shard_open) {
            s = begin_shard(st);
            /* one Parquet file read here batch by batch: the other columns
             * beside it (a folder's shards and the pool's rounds keep the
             * pass after the label column's) */
            if (s.ok() && !st.fold_tried && st.shards.size() == 1 && !st.parallel &&
                st.shards[0].kind == Kind::PARQUET) {
                st.fold_tried = true;
                if (la_arrow::fold_begin(r, *st.pq, st.column, &st.fold) != 0)
                    return -1;
                st.columns_checked = st.fold != nullptr;
            }
        }
        if (s.ok() && st.parallel && !started) {
            int rc = next_part(r, st);
            if (rc < 0 || (rc > 0 && st.n_out))
                return rc;
            if (rc > 0)
                continue;
            close_shard(st);
            st.shard++;
            continue;
        }
        if (s.ok() && !st.parallel && st.pending) {
            a = st.pending;             /* validated when it was read */
        } else if (s.ok() && !st.parallel) {
            s = next_array(st, &a);
            if (s.ok() && a)
                s = a->ValidateFull();
            if (s.ok() && a && st.is_list && st.shards[st.shard].kind == Kind::PARQUET)
                plan_read(st, *a);
        }
        if (!s.ok()) {
            std::string msg = s.message();
            return la_reader_set_error(r, "%s: %.300s", where_batch(st).c_str(), msg.c_str());
        }
        if (!a) {                   /* the shard's end (or a parallel one after a join) */
            if (!st.parallel) {
                close_shard(st);
                st.shard++;
            }
            if (started && st.n_out)
                return 1;
            continue;
        }
        if (!started) {
            st.buf.clear();
            st.nulls.clear();
            st.out_first = st.elements;
            st.at = st.next_null = st.values_used = 0;
            started = true;
        }
        int64_t from = st.pending ? st.pending_row : 0;
        int64_t n = rows_that_fit(st, *a, from, ARROW_BATCH - (int64_t)(st.elements - st.out_first));
        put_array(st, from == 0 && n == a->length() ? *a : *a->Slice(from, n));
        st.n_out = (size_t)(st.elements - st.out_first);
        st.shard_rows += n;
        if (from + n < a->length()) {   /* the batch is full: the rest is the next one's */
            st.pending = a;
            st.pending_row = from + n;
            return 1;
        }
        st.pending.reset();
        st.batch_no++;
        if (st.n_out >= (size_t)ARROW_BATCH)
            return 1;
    }
}

// ---- the folders of `datasets` ---------------------------------------------------------

bool ends_with(const std::string &s, const char *suffix)
{
    size_t n = strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/* Whether a shard file of the folder is read: --glob matches its name, and
 * in a cache folder it is of the split read (plan.c: one report per split;
 * cache-*.arrow, .map()'s and .filter()'s, is of none). */
struct LeftOut {
    size_t caches = 0, splits = 0, glob = 0;
    size_t all() const { return caches + splits + glob; }
};

bool shard_wanted(const struct la_read_opts *o, const char *name, bool cache, LeftOut *left)
{
    char split[LA_HF_SPLIT_MAX];
    if (cache && o->split && strncmp(name, "cache-", 6) == 0)
        return left->caches++, false;
    if (cache && o->split &&
        !(la_hf_split_of(name, split, sizeof split) && strcmp(split, o->split) == 0))
        return left->splits++, false;
    if (o->glob && fnmatch(o->glob, name, 0) != 0)
        return left->glob++, false;
    return true;
}

/* What the folder's listing left out, in the notes. */
void note_left_out(struct la_reader *r, const char *split, size_t shards, const LeftOut &left)
{
    const struct { size_t n; const char *what; } parts[] = {
        { left.splits, "of other splits" }, { left.caches, "of .map()/.filter() (cache-*.arrow)" },
        { left.glob, "not matching --glob" } };
    std::string text;
    for (const auto &p : parts)
        if (p.n)
            text += (text.empty() ? "" : ", ") + std::to_string(p.n) + " " + p.what;
    if (!r->notes || (!split && text.empty()))
        return;
    if (split)
        la_notes_line(r->notes, "split '%s': %zu shard%s%s%s", split, shards,
                      shards == 1 ? "" : "s", text.empty() ? "" : "; left out: ", text.c_str());
    else
        la_notes_line(r->notes, "left out: %s", text.c_str());
}

/* The shards of a folder: state.json's "_data_files" in its order, else
 * (the cache) every .arrow file by name, or a split's (o->split); those
 * --glob matches. @return 0, or -1 with r->err. */
int list_shards(struct la_reader *r, const std::string &dir, std::vector<Shard> *out)
{
    const struct la_read_opts *o = la_read_opts_or_default(r->opts);
    LeftOut left;
    std::string text;
    if (read_small_file(dir + "/state.json", &text)) {
        cJSON *root = cJSON_ParseWithLength(text.data(), text.size());
        cJSON *files = cJSON_GetObjectItemCaseSensitive(root, "_data_files");
        cJSON *f;
        cJSON_ArrayForEach(f, files) {
            cJSON *name = cJSON_GetObjectItemCaseSensitive(f, "filename");
            if (!cJSON_IsString(name) || strchr(name->valuestring, '/') || !name->valuestring[0]) {
                cJSON_Delete(root);
                return la_reader_set_error(r, "state.json: a _data_files entry without a plain "
                                           "file name");
            }
            if (shard_wanted(o, name->valuestring, false, &left))
                out->push_back(Shard{ dir + "/" + name->valuestring, name->valuestring,
                                      Kind::IPC_STREAM });
        }
        bool ok = cJSON_IsArray(files);
        cJSON_Delete(root);
        if (!ok)
            return la_reader_set_error(r, "state.json: no _data_files list");
    } else {
        DIR *dp = opendir(dir.c_str());
        if (!dp)
            return la_reader_set_error(r, "cannot list the folder");
        while (struct dirent *e = readdir(dp))
            if (ends_with(e->d_name, ".arrow") && shard_wanted(o, e->d_name, true, &left))
                out->push_back(Shard{ dir + "/" + e->d_name, e->d_name, Kind::IPC_STREAM });
        closedir(dp);
        std::sort(out->begin(), out->end(),
                  [](const Shard &a, const Shard &b) { return a.name < b.name; });
    }
    if (out->empty() && left.glob)
        return la_reader_set_error(r, "no data file of the dataset folder matches --glob '%.200s'",
                                   o->glob);
    if (out->empty())
        return la_reader_set_error(r, "no data files in the dataset folder");
    note_left_out(r, o->split, out->size(), left);
    for (Shard &s : *out) {
        struct stat sb;
        if (stat(s.path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode))
            return la_reader_set_error(r, "%.200s: no such data file", s.name.c_str());
        s.kind = kind_of_file(s.path);
    }
    return 0;
}

int open_common(struct la_reader *r, State &st, bool folder, const std::string &path)
{
    std::shared_ptr<arrow::Schema> schema;
    arrow::Status s = shard_schema(st, st.shards[0], &schema);
    if (!s.ok()) {
        std::string msg = s.message();
        const Shard &s0 = st.shards[0];
        return la_reader_set_error(r, "%s%snot a readable %s file: %.300s",
                                   folder ? s0.name.c_str() : "", folder ? ": " : "",
                                   s0.kind == Kind::PARQUET ? "Parquet" : "Arrow", msg.c_str());
    }
    close_shard(st);
    if (pick_column(r, st, *schema) != 0)
        return -1;
    std::string info;
    if (folder && read_small_file(path + "/dataset_info.json", &info) &&
        classes_from_json(r, info, st.column, false, "dataset_info.json ClassLabel",
                          "dataset_info.json") != 0)
        return -1;
    if (classes_from_schema(r, *schema, st.column) != 0)
        return -1;
    r->info.dtype = st.dtype;
    r->info.ndim = 1;
    r->info.shape_known = 0;
    snprintf(r->info.column, sizeof r->info.column, "%s", st.column.c_str());
    r->info.has_column = 1;
    if (st.is_list && r->notes) {
        if (!(st.map = la_sample_map_new()))
            return la_reader_set_error(r, "out of memory");
        r->notes->sample_of = la_sample_map_sample_of;
        r->notes->sample_passed = la_sample_map_passed;
        r->notes->sample_ctx = st.map;
        r->notes->samples_ordered = 1;
        r->notes->has_samples = 1;
    }
    return 0;
}

/* Arrow's CPU and IO pools hold at most the -j budget (at -j1 one thread,
 * started only if Arrow itself reads ahead): their default is a thread per
 * core, which -j1 would not see. */
void arrow_use_threads(int threads)
{
    (void)arrow::SetCpuThreadPoolCapacity(threads);
    (void)arrow::io::SetIOThreadPoolCapacity(threads);
}

int arrow_open_impl(struct la_reader *r, bool folder)
{
    State *st = new State;
    r->state = st;
    const struct la_read_opts *o = la_read_opts_or_default(r->opts);
    st->threads = std::min(o->threads > 0 ? o->threads : la_online_cpus(), LA_POOL_MAX);
    arrow_use_threads(st->threads);
    std::string path;
    if (folder) {
        path = r->path ? r->path : "";
        if (list_shards(r, path, &st->shards) != 0)
            return -1;
    } else {
        const char *p = la_source_path(r->src);
        if (la_source_plain_fd(r->src) < 0 || !p || !strcmp(p, "-"))
            return la_reader_set_error(r, "%s is read from a file, not from %s: %s",
                                       r->info.format == LA_FMT_PARQUET ? "Parquet" : "Arrow",
                                       p && strcmp(p, "-") ? "compressed input"
                                                           : "standard input",
                                       "write it to a file first");
        path = p;
        st->shards.push_back(Shard{ path, path, kind_of_file(path) });
    }
    return open_common(r, *st, folder, path);
}

int arrow_open_any(struct la_reader *r, bool folder)
{
    try {
        return arrow_open_impl(r, folder);
    } catch (const std::bad_alloc &) {
        return la_reader_set_error(r, "out of memory");
    } catch (const std::exception &e) {
        return la_reader_set_error(r, "%.400s", e.what());
    }
}

int arrow_open_file(struct la_reader *r) { return arrow_open_any(r, false); }
int arrow_open_folder(struct la_reader *r) { return arrow_open_any(r, true); }

int arrow_next_impl(struct la_reader *r, struct la_chunk *out)
{
    State &st = *static_cast<State *>(r->state);
    if (st.at >= st.n_out) {
        int rc = fill(r, st);
        if (rc > 0 && st.map)
            la_sample_map_publish(st.map);   /* the batch's rows, before its chunks go out */
        if (rc <= 0) {
            if (rc == 0 && r->notes && st.is_list)
                r->notes->samples = st.rows;
            /* the label column read: now every other column the model indexes */
            if (rc == 0 && st.fold) {
                la_arrow::Fold *f = st.fold;
                st.fold = nullptr;
                rc = la_arrow::fold_finish(r, f);
            }
            if (rc == 0 && !st.columns_checked) {
                st.columns_checked = true;
                rc = la_arrow::check_columns(r, st.shards, st.column);
            }
            return rc;
        }
    }
    unsigned sz = la_dtype_info(st.dtype)->size;
    if (st.next_null < st.nulls.size() && st.nulls[st.next_null] == st.at) {
        *out = la_chunk{ st.dtype, NULL, 1, st.out_first + st.at, "null" };
        st.at++;
        st.next_null++;
        return 1;
    }
    size_t end = st.next_null < st.nulls.size() ? (size_t)st.nulls[st.next_null] : st.n_out;
    size_t n = end - st.at;
    *out = la_chunk{ st.dtype, st.buf.data() + st.values_used * sz, n, st.out_first + st.at, NULL };
    if (st.dtype == LA_DT_BOOL)
        la_bool_normalize(st.buf.data() + st.values_used, n);
    st.values_used += n;
    st.at = end;
    return 1;
}

int arrow_next(struct la_reader *r, struct la_chunk *out)
{
    try {
        return arrow_next_impl(r, out);
    } catch (const std::bad_alloc &) {
        return la_reader_set_error(r, "out of memory");
    } catch (const std::exception &e) {
        return la_reader_set_error(r, "%.400s", e.what());
    }
}

void arrow_close(struct la_reader *r)
{
    State *st = static_cast<State *>(r->state);
    if (!st)
        return;
    try {
        close_shard(*st);
        st->parts.clear();
    } catch (...) {
    }
    la_arrow::fold_free(st->fold);   /* a read that stopped short */
    st->fold = nullptr;
    if (st->pool)
        la_pool_close(st->pool);
    st->pool = NULL;
    if (st->map && r->notes && r->notes->sample_ctx == st->map && !r->notes->ctx) {
        r->notes->ctx = st->map;       /* the scan's sample_of reads it: it lives with the notes */
        r->notes->free_ctx = la_sample_map_free;
    } else {
        la_sample_map_free(st->map);
    }
    delete st;
    r->state = NULL;
}

} // namespace

extern "C" {

static const struct la_reader_ops file_ops = { arrow_open_file, arrow_next, arrow_close };
static const struct la_reader_ops folder_ops = { arrow_open_folder, arrow_next, arrow_close };

const struct la_arrow_module la_arrow_module_entry = { LA_ARROW_MODULE_ABI, PACKAGE_VERSION, &file_ops,
                                                       &folder_ops };


}
