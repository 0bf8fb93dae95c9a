/* limit_arrow.cc - the limit for labelaudit's Parquet and Arrow reading: the
 * same library (Apache Arrow's C++), only the label column, read as
 * labelaudit reads it (Parquet: its row groups on THREADS threads, one file
 * reader each; an IPC stream or file: its record batches with only that
 * field), and the least a check can do with the values: min, max and the
 * count outside [0, N). Prints "rows min max bad".
 *
 *   limit_arrow FILE|FOLDER COLUMN N THREADS */
#include <arrow/api.h>
#include <arrow/io/api.h>
#include <arrow/ipc/api.h>
#include <parquet/arrow/reader.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <string>
#include <thread>
#include <vector>

struct Acc {
    int64_t rows = 0, lo = INT64_MAX, hi = INT64_MIN, bad = 0;
    void add(const arrow::Array &a, int64_t n_classes)
    {
        auto &v = static_cast<const arrow::Int64Array &>(a);
        const int64_t *p = v.raw_values();
        for (int64_t i = 0; i < v.length(); i++) {
            lo = std::min(lo, p[i]);
            hi = std::max(hi, p[i]);
            bad += p[i] < 0 || p[i] >= n_classes;
        }
        rows += v.length();
    }
    void merge(const Acc &o)
    {
        rows += o.rows, bad += o.bad, lo = std::min(lo, o.lo), hi = std::max(hi, o.hi);
    }
};

static arrow::Status parquet_file(const std::string &path, const std::string &col, int64_t n,
                                  int threads, Acc *acc)
{
    ARROW_ASSIGN_OR_RAISE(auto f, arrow::io::ReadableFile::Open(path));
    std::unique_ptr<parquet::arrow::FileReader> r;
    ARROW_RETURN_NOT_OK(parquet::arrow::OpenFile(f, arrow::default_memory_pool(), &r));
    std::shared_ptr<arrow::Schema> schema;
    ARROW_RETURN_NOT_OK(r->GetSchema(&schema));
    int field = schema->GetFieldIndex(col), groups = r->num_row_groups();
    std::vector<Acc> part(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++)
        pool.emplace_back([&, t] {
            auto g = arrow::io::ReadableFile::Open(path).ValueOrDie();
            std::unique_ptr<parquet::arrow::FileReader> own;
            (void)parquet::arrow::OpenFile(g, arrow::default_memory_pool(), &own);
            parquet::ArrowReaderProperties props;
            props.set_batch_size(1 << 16);
            own->set_batch_size(1 << 16);
            for (int rg = t; rg < groups; rg += threads) {
                std::unique_ptr<arrow::RecordBatchReader> br;
                if (!own->GetRecordBatchReader({ rg }, { field }, &br).ok())
                    return;
                std::shared_ptr<arrow::RecordBatch> b;
                while (br->ReadNext(&b).ok() && b)
                    part[t].add(*b->column(0), n);
            }
        });
    for (auto &th : pool)
        th.join();
    for (auto &p : part)
        acc->merge(p);
    return arrow::Status::OK();
}

static arrow::Status ipc_file(const std::string &path, const std::string &col, int64_t n, Acc *acc)
{
    ARROW_ASSIGN_OR_RAISE(auto f, arrow::io::ReadableFile::Open(path));
    char head[6] = { 0 };
    ARROW_ASSIGN_OR_RAISE(auto got, f->ReadAt(0, 6, head));
    (void)got;
    auto opts = arrow::ipc::IpcReadOptions::Defaults();
    if (memcmp(head, "ARROW1", 6) == 0) {
        ARROW_ASSIGN_OR_RAISE(auto r0, arrow::ipc::RecordBatchFileReader::Open(f));
        opts.included_fields = { r0->schema()->GetFieldIndex(col) };
        ARROW_ASSIGN_OR_RAISE(auto r, arrow::ipc::RecordBatchFileReader::Open(f, opts));
        for (int i = 0; i < r->num_record_batches(); i++) {
            ARROW_ASSIGN_OR_RAISE(auto b, r->ReadRecordBatch(i));
            acc->add(*b->column(0), n);
        }
        return arrow::Status::OK();
    }
    ARROW_ASSIGN_OR_RAISE(auto f0, arrow::io::ReadableFile::Open(path));   /* from byte 0 */
    ARROW_ASSIGN_OR_RAISE(auto r0, arrow::ipc::RecordBatchStreamReader::Open(f0));
    opts.included_fields = { r0->schema()->GetFieldIndex(col) };
    ARROW_ASSIGN_OR_RAISE(auto g, arrow::io::ReadableFile::Open(path));
    ARROW_ASSIGN_OR_RAISE(auto r, arrow::ipc::RecordBatchStreamReader::Open(g, opts));
    std::shared_ptr<arrow::RecordBatch> b;
    while (true) {
        ARROW_RETURN_NOT_OK(r->ReadNext(&b));
        if (!b)
            break;
        acc->add(*b->column(0), n);
    }
    return arrow::Status::OK();
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: limit_arrow FILE|FOLDER COLUMN N THREADS\n");
        return 2;
    }
    std::string path = argv[1], col = argv[2];
    int64_t n = atoll(argv[3]);
    int threads = std::max(1, atoi(argv[4]));
    Acc acc;
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
            if (!(st = ipc_file(s, col, n, &acc)).ok())
                break;
    } else if (path.size() > 8 && path.compare(path.size() - 8, 8, ".parquet") == 0) {
        st = parquet_file(path, col, n, threads, &acc);
    } else {
        st = ipc_file(path, col, n, &acc);
    }
    if (!st.ok()) {
        fprintf(stderr, "limit_arrow: %s\n", st.ToString().c_str());
        return 1;
    }
    printf("%lld %lld %lld %lld\n", (long long)acc.rows, (long long)acc.lo, (long long)acc.hi,
           (long long)acc.bad);
    return 0;
}
