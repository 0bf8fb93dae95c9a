/* limit_arrow.cc - the limit for labelaudit's Parquet and Arrow reading: the
 * same library (Apache Arrow's C++), only the named columns, read as
 * labelaudit reads them (Parquet: its row groups on THREADS threads, one file
 * reader each; an IPC stream or file: its record batches with only those
 * fields), and the least a check can do with the values: min, max and the
 * count outside [0, N) of each column, and for list columns (list<int>:
 * input_ids, attention_mask...) the rows whose length differs from the first
 * list column's. Prints "rows min max bad" for one column; for several,
 * "rows" then "min max bad" per column and the length mismatches.
 *
 * A Parquet read of list columns takes about 2^20 values of the widest column
 * per batch (its rows from the footer's counts), as labelaudit does: with
 * Arrow's 65536 rows a batch of 8192-token rows would be 4 GiB, and the
 * memory goal compares with this program's peak RSS (bench/columns.sh).
 *
 *   limit_arrow FILE|FOLDER COLUMN[,COLUMN...] N THREADS */
#include <arrow/api.h>
#include <arrow/io/api.h>
#include <arrow/ipc/api.h>
#include <arrow/util/config.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <string>
#include <thread>
#include <vector>

/* The values of an integer array into lo, hi and bad; T its C type. */
template <class A>
void fold(const arrow::Array &a, int64_t from, int64_t to, int64_t n_classes, int64_t *lo,
          int64_t *hi, int64_t *bad)
{
    const auto *p = static_cast<const A &>(a).raw_values();
    int64_t l = *lo, h = *hi, b = 0;
    for (int64_t i = from; i < to; i++) {
        int64_t v = (int64_t)p[i];
        l = std::min(l, v);
        h = std::max(h, v);
        b += v < 0 || v >= n_classes;
    }
    *lo = l, *hi = h, *bad += b;
}

struct Acc {
    int64_t rows = 0, lo = INT64_MAX, hi = INT64_MIN, bad = 0;
    /* a scalar integer column, or a list of integers: its items */
    void add(const arrow::Array &a, int64_t n_classes)
    {
        const arrow::Array *v = &a;
        std::shared_ptr<arrow::Array> items;
        int64_t from = 0, to = a.length();
        if (a.type_id() == arrow::Type::LIST) {
            auto &l = static_cast<const arrow::ListArray &>(a);
            items = l.values(), from = l.value_offset(0), to = l.value_offset(a.length());
        } else if (a.type_id() == arrow::Type::LARGE_LIST) {
            auto &l = static_cast<const arrow::LargeListArray &>(a);
            items = l.values(), from = l.value_offset(0), to = l.value_offset(a.length());
        }
        if (items)
            v = items.get();
        switch (v->type_id()) {
        case arrow::Type::INT8: fold<arrow::Int8Array>(*v, from, to, n_classes, &lo, &hi, &bad); break;
        case arrow::Type::INT16: fold<arrow::Int16Array>(*v, from, to, n_classes, &lo, &hi, &bad); break;
        case arrow::Type::INT32: fold<arrow::Int32Array>(*v, from, to, n_classes, &lo, &hi, &bad); break;
        case arrow::Type::INT64: fold<arrow::Int64Array>(*v, from, to, n_classes, &lo, &hi, &bad); break;
        case arrow::Type::UINT8: fold<arrow::UInt8Array>(*v, from, to, n_classes, &lo, &hi, &bad); break;
        default: fprintf(stderr, "limit_arrow: %s is not read\n", v->type()->ToString().c_str()); exit(1);
        }
        rows += a.length();
    }
    void merge(const Acc &o)
    {
        rows += o.rows, bad += o.bad, lo = std::min(lo, o.lo), hi = std::max(hi, o.hi);
    }
};

/* The columns of a batch: each into its Acc, and the rows whose list length
 * differs from the first list column's into *mismatch. */
void add_batch(const arrow::RecordBatch &b, int64_t n, std::vector<Acc> *acc, int64_t *mismatch)
{
    const arrow::ListArray *first = nullptr;
    for (int c = 0; c < b.num_columns(); c++) {
        const arrow::Array &a = *b.column(c);
        (*acc)[(size_t)c].add(a, n);
        if (a.type_id() != arrow::Type::LIST)
            continue;
        auto &l = static_cast<const arrow::ListArray &>(a);
        if (!first) {
            first = &l;
            continue;
        }
        int64_t m = 0;
        for (int64_t i = 0; i < l.length(); i++)
            m += l.value_length(i) != first->value_length(i);
        *mismatch += m;
    }
}

/* Rows per batch for about 2^20 values of the widest of the fields (one
 * leaf each: a scalar or a list of scalars), by the footer's counts. */
int64_t batch_rows(parquet::arrow::FileReader &r, const std::vector<int> &fields)
{
    auto md = r.parquet_reader()->metadata();
    int64_t rows = md->num_rows(), most = rows;
    for (int f : fields) {
        const parquet::arrow::SchemaField *sf = &r.manifest().schema_fields[(size_t)f];
        while (!sf->children.empty())
            sf = &sf->children[0];
        int64_t values = 0;
        for (int g = 0; g < md->num_row_groups(); g++)
            values += md->RowGroup(g)->ColumnChunk(sf->column_index)->num_values();
        most = std::max(most, values);
    }
    return std::clamp<int64_t>((int64_t)((double)(1 << 20) * (double)rows / (double)std::max<int64_t>(most, 1)),
                               1, 1 << 16);
}

/* The fields of the named columns in schema, in the order named. */
static arrow::Status fields_of(const arrow::Schema &schema, const std::vector<std::string> &cols,
                               std::vector<int> *out)
{
    for (const std::string &c : cols) {
        int i = schema.GetFieldIndex(c);
        if (i < 0)
            return arrow::Status::Invalid("no column '", c, "'");
        out->push_back(i);
    }
    return arrow::Status::OK();
}

/* Results of one reader: an Acc per column, the length mismatches. */
struct Result {
    std::vector<Acc> acc;
    int64_t mismatch = 0;
    explicit Result(size_t n) : acc(n) {}
    void merge(const Result &o)
    {
        for (size_t c = 0; c < acc.size(); c++)
            acc[c].merge(o.acc[c]);
        mismatch += o.mismatch;
    }
};

/* A reader of the file by FileReaderBuilder, whose calls are the same in
 * every Arrow since 17 (OpenFile's are not). */
static arrow::Status open_parquet(const std::string &path, std::unique_ptr<parquet::arrow::FileReader> *out)
{
    ARROW_ASSIGN_OR_RAISE(auto f, arrow::io::ReadableFile::Open(path));
    parquet::arrow::FileReaderBuilder b;
    ARROW_RETURN_NOT_OK(b.Open(f));
    return b.Build(out);
}

static arrow::Status parquet_file(const std::string &path, const std::vector<std::string> &cols,
                                  int64_t n, int threads, Result *res)
{
    std::unique_ptr<parquet::arrow::FileReader> r;
    ARROW_RETURN_NOT_OK(open_parquet(path, &r));
    std::shared_ptr<arrow::Schema> schema;
    ARROW_RETURN_NOT_OK(r->GetSchema(&schema));
    std::vector<int> fields;
    ARROW_RETURN_NOT_OK(fields_of(*schema, cols, &fields));
    int groups = r->num_row_groups();
    int64_t rows = batch_rows(*r, fields);
    std::vector<Result> part((size_t)threads, Result(cols.size()));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++)
        pool.emplace_back([&, t] {
            std::unique_ptr<parquet::arrow::FileReader> own;
            if (!open_parquet(path, &own).ok())
                return;
            own->set_batch_size(rows);
            for (int rg = t; rg < groups; rg += threads) {
                std::unique_ptr<arrow::RecordBatchReader> br;
#if ARROW_VERSION_MAJOR >= 21   /* the Status form with an out pointer is gone */
                auto got = own->GetRecordBatchReader({ rg }, fields);
                if (!got.ok())
                    return;
                br = std::move(*got);
#else
                if (!own->GetRecordBatchReader({ rg }, fields, &br).ok())
                    return;
#endif
                std::shared_ptr<arrow::RecordBatch> b;
                while (br->ReadNext(&b).ok() && b)
                    add_batch(*b, n, &part[(size_t)t].acc, &part[(size_t)t].mismatch);
            }
        });
    for (auto &th : pool)
        th.join();
    for (auto &p : part)
        res->merge(p);
    return arrow::Status::OK();
}

static arrow::Status ipc_file(const std::string &path, const std::vector<std::string> &cols,
                              int64_t n, Result *res)
{
    ARROW_ASSIGN_OR_RAISE(auto f, arrow::io::ReadableFile::Open(path));
    char head[6] = { 0 };
    ARROW_ASSIGN_OR_RAISE(auto got, f->ReadAt(0, 6, head));
    (void)got;
    auto opts = arrow::ipc::IpcReadOptions::Defaults();
    std::vector<int> fields;
    if (memcmp(head, "ARROW1", 6) == 0) {
        ARROW_ASSIGN_OR_RAISE(auto r0, arrow::ipc::RecordBatchFileReader::Open(f));
        ARROW_RETURN_NOT_OK(fields_of(*r0->schema(), cols, &fields));
        /* included_fields reads them in schema order; the Accs are in that order too */
        std::sort(fields.begin(), fields.end());
        opts.included_fields = fields;
        ARROW_ASSIGN_OR_RAISE(auto r, arrow::ipc::RecordBatchFileReader::Open(f, opts));
        for (int i = 0; i < r->num_record_batches(); i++) {
            ARROW_ASSIGN_OR_RAISE(auto b, r->ReadRecordBatch(i));
            add_batch(*b, n, &res->acc, &res->mismatch);
        }
        return arrow::Status::OK();
    }
    ARROW_ASSIGN_OR_RAISE(auto f0, arrow::io::ReadableFile::Open(path));   /* from byte 0 */
    ARROW_ASSIGN_OR_RAISE(auto r0, arrow::ipc::RecordBatchStreamReader::Open(f0));
    ARROW_RETURN_NOT_OK(fields_of(*r0->schema(), cols, &fields));
    std::sort(fields.begin(), fields.end());
    opts.included_fields = fields;
    ARROW_ASSIGN_OR_RAISE(auto g, arrow::io::ReadableFile::Open(path));
    ARROW_ASSIGN_OR_RAISE(auto r, arrow::ipc::RecordBatchStreamReader::Open(g, opts));
    std::shared_ptr<arrow::RecordBatch> b;
    while (true) {
        ARROW_RETURN_NOT_OK(r->ReadNext(&b));
        if (!b)
            break;
        add_batch(*b, n, &res->acc, &res->mismatch);
    }
    return arrow::Status::OK();
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: limit_arrow FILE|FOLDER COLUMN[,COLUMN...] N THREADS\n");
        return 2;
    }
    std::string path = argv[1];
    std::vector<std::string> cols;
    for (const char *p = argv[2];; p++) {
        const char *e = strchr(p, ',');
        cols.emplace_back(p, e ? (size_t)(e - p) : strlen(p));
        if (!e)
            break;
        p = e;
    }
    int64_t n = atoll(argv[3]);
    int threads = std::max(1, atoi(argv[4]));
    Result res(cols.size());
    arrow::Status st;
    if (DIR *d = opendir(path.c_str())) {            /* a save_to_disk folder: its shards */
        std::vector<std::string> shards;
        while (struct dirent *e = readdir(d)) {
            std::string name = e->d_name;
            if (name.size() > 6 && name.compare(name.size() - 6, 6, ".arrow") == 0)
                shards.push_back(path + "/" + name);
        }
        closedir(d);
        std::sort(shards.begin(), shards.end());
        for (auto &s : shards)
            if (!(st = ipc_file(s, cols, n, &res)).ok())
                break;
    } else if (path.size() > 8 && path.compare(path.size() - 8, 8, ".parquet") == 0) {
        st = parquet_file(path, cols, n, threads, &res);
    } else {
        st = ipc_file(path, cols, n, &res);
    }
    if (!st.ok()) {
        fprintf(stderr, "limit_arrow: %s\n", st.ToString().c_str());
        return 1;
    }
    if (cols.size() == 1) {        /* arrow.sh's line, as before */
        const Acc &a = res.acc[0];
        printf("%lld %lld %lld %lld\n", (long long)a.rows, (long long)a.lo, (long long)a.hi,
               (long long)a.bad);
        return 0;
    }
    printf("%lld", (long long)res.acc[0].rows);
    for (const Acc &a : res.acc)
        printf(" %lld %lld %lld", (long long)a.lo, (long long)a.hi, (long long)a.bad);
    printf(" %lld\n", (long long)res.mismatch);
    return 0;
}
