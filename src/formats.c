/* formats.c - the one table of input formats (see formats.h), kept apart from
 * reader.c so that a reader's unit test links without the other readers. */
#include "config.h"  /* HAVE_SPNG, ... */
#include "formats.h"
#include "reader.h" /* la_reader_csv, ... */
#include "util.h"   /* la_name_ends_in */
#include "zip_head.h" /* la_zip_first_member: npz and Office documents (not zip.c,
                        * which reads through input.c, which calls this table) */

#include <stdint.h>  /* uint32_t */
#include <stdio.h>   /* snprintf */
#include <string.h>  /* memchr, memcmp, strcmp, strcspn, strlen, strncmp, strpbrk, strrchr, strstr */
#include <strings.h> /* strncasecmp */

static int starts_with(const unsigned char *head, size_t len, const char *magic, size_t n)
{
    return len >= n && memcmp(head, magic, n) == 0;
}

static int npy_magic(const unsigned char *head, size_t len)
{
    return starts_with(head, len, "\x93NUMPY", 6);
}

/* A zip archive whose first member is a .npy, as np.savez's all are; or one
 * too short, or with a name too long, to tell: the npz reader then judges.
 * Other zip archives are claimed by no format (input.c refuses them). */
static int npz_magic(const unsigned char *head, size_t len)
{
    const char *name;
    size_t n;
    switch (la_zip_first_member(head, len, &name, &n)) {
    case LA_ZIP_HEAD_NOT_ZIP: return 0;
    case LA_ZIP_HEAD_SHORT:   return 1;
    case LA_ZIP_HEAD_NAMED:   break;
    }
    return n >= 4 && strncasecmp(name + n - 4, ".npy", 4) == 0;
}

static int png_magic(const unsigned char *head, size_t len)
{
    return starts_with(head, len, "\x89PNG\r\n\x1a\n", 8);
}

/* Classic TIFF and BigTIFF, either byte order. */
static int tiff_magic(const unsigned char *head, size_t len)
{
    return starts_with(head, len, "II*\0", 4) || starts_with(head, len, "MM\0*", 4) ||
           starts_with(head, len, "II+\0", 4) || starts_with(head, len, "MM\0+", 4);
}

/* A NIfTI-1 header: sizeof_hdr 348 in either byte order, magic "n+1" or "ni1"
 * (the reader explains why it refuses a .hdr/.img pair). */
static int nifti_magic(const unsigned char *head, size_t len)
{
    return len >= 348 && (starts_with(head, len, "\x5c\x01\0\0", 4) ||
                          starts_with(head, len, "\0\0\x01\x5c", 4)) &&
           (memcmp(head + 344, "n+1\0", 4) == 0 || memcmp(head + 344, "ni1\0", 4) == 0);
}

/* MATLAB v5, v7 and v7.3 files open with a 116-byte text header; v7.3's
 * is HDF5's user block, so this row comes before hdf5's. */
static int mat_magic(const unsigned char *head, size_t len)
{
    return starts_with(head, len, "MATLAB 5.0 MAT-file", 19)
           || starts_with(head, len, "MATLAB 7.3 MAT-file", 19);
}

/* HDF5's signature, at byte 0 or after a user block of 512, 1024, 2048 ... bytes. */
static int hdf5_magic(const unsigned char *head, size_t len)
{
    for (size_t at = 0; at + 8 <= len; at = at ? at * 2 : 512)
        if (memcmp(head + at, "\x89HDF\r\n\x1a\n", 8) == 0)
            return 1;
    return 0;
}

/* A tar header: "ustar" at byte 257 (POSIX and GNU tar alike); a WebDataset shard. */
static int tar_magic(const unsigned char *head, size_t len)
{
    return len >= 262 && memcmp(head + 257, "ustar", 5) == 0;
}

/* Apache Parquet: "PAR1", then a page header or the footer, both Thrift
 * compact structs whose first field is an i32 (0x15): "PAR1" alone could
 * open a text file. */
static int parquet_magic(const unsigned char *head, size_t len)
{
    return starts_with(head, len, "PAR1\x15", 5);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether fb[0..len) is an Arrow IPC Message flatbuffer holding a Schema, the
 * first message of every stream: its root table's vtable gives field 0
 * (version, V1..V5 = 0..4) and field 1 (header type, Schema = 1). */
static int arrow_schema_message(const unsigned char *fb, size_t len)
{
    if (len < 8)
        return 0;
    uint32_t table = le32(fb);
    if (table > len - 4)
        return 0;
    int64_t vtable = (int64_t)table - (int32_t)le32(fb + table);
    if (vtable < 0 || (uint64_t)vtable + 8 > len)
        return 0;
    const unsigned char *vt = fb + vtable;
    unsigned vt_size = vt[0] | vt[1] << 8, table_size = vt[2] | vt[3] << 8;
    if (vt_size < 8 || table + (uint64_t)table_size > len)
        return 0;
    unsigned at_version = vt[4] | vt[5] << 8, at_type = vt[6] | vt[7] << 8;
    if (!at_type || at_type >= table_size || (at_version && at_version + 2u > table_size))
        return 0;
    unsigned version = at_version ? fb[table + at_version] | fb[table + at_version + 1] << 8 : 0;
    return version <= 4 && fb[table + at_type] == 1;
}

/* An Arrow IPC file (Feather v2): "ARROW1"; or an IPC stream (what
 * `datasets` writes as .arrow): the continuation marker 0xFFFFFFFF, the
 * metadata's length, and a Schema message. The marker alone could be raw
 * int32 labels of -1, hence the look at the flatbuffer. */
static int arrow_magic(const unsigned char *head, size_t len)
{
    if (starts_with(head, len, "ARROW1", 6))
        return 1;
    if (!starts_with(head, len, "\xff\xff\xff\xff", 4) || len < 8)
        return 0;
    uint32_t meta_len = le32(head + 4);
    return meta_len >= 8 && arrow_schema_message(head + 8, meta_len < len - 8 ? meta_len : len - 8);
}

/* How a Parquet or Arrow file's label column gets to .npy with pyarrow, which
 * people who have such files have. */
#define PARQUET_EXPORT                                                                          \
    "python3 -c \"import pyarrow.parquet as pq, numpy as np; "                                  \
    "np.save('y.npy', pq.read_table('FILE', columns=['label'])['label'].to_numpy())\""
#define ARROW_EXPORT                                                                            \
    "python3 -c \"import pyarrow as pa, numpy as np; f = pa.memory_map('FILE'); "               \
    "r = (pa.ipc.open_file if f.read(6) == b'ARROW1' else pa.ipc.open_stream)"                 \
    "(pa.memory_map('FILE')); np.save('y.npy', r.read_all()['label'].to_numpy())\""

/* What a build without Arrow says these formats need, and how to get it. */
#define ARROW_LIBRARY(lib) "Apache Arrow (" lib "; pip install pyarrow, then configure and build again)"

static const struct la_format_def g_formats[LA_FMT_COUNT] = {
    [LA_FMT_CSV] = { .name = "csv", .extensions = ".csv", .ops = &la_reader_csv,
                     .flags = LA_FMTF_TEXT | LA_FMTF_TABLE, .delimiter = ',' },
    [LA_FMT_TSV] = { .name = "tsv", .extensions = ".tsv .tab", .ops = &la_reader_csv,
                     .flags = LA_FMTF_TEXT | LA_FMTF_TABLE, .delimiter = '\t' },
    [LA_FMT_TEXT] = { .name = "text", .extensions = ".txt .labels", .ops = &la_reader_text,
                      .flags = LA_FMTF_TEXT },
    [LA_FMT_NPY] = { .name = "npy", .extensions = ".npy", .magic = npy_magic,
                     .ops = &la_reader_npy, .flags = LA_FMTF_IN_PLACE },
    [LA_FMT_NPZ] = { .name = "npz", .extensions = ".npz", .magic = npz_magic,
                     .ops = &la_reader_npz },
    [LA_FMT_RAW] = { .name = "raw", .extensions = ".raw .bin .dat", .ops = &la_reader_raw,
                     .flags = LA_FMTF_IN_PLACE | LA_FMTF_NEEDS_DTYPE },
    /* by --format only (no extension, no magic): a folder or a JSON could be many things */
    [LA_FMT_IMAGEFOLDER] = { .name = "imagefolder", .extensions = "", .ops = &la_reader_imagefolder,
                             .flags = LA_FMTF_PATH },
    [LA_FMT_COCO] = { .name = "coco", .extensions = "", .library = "yajl",
#if HAVE_YAJL
                      .ops = &la_reader_coco,
#endif
                      .flags = LA_FMTF_PATH | LA_FMTF_IDS_FROM_ONE },
    [LA_FMT_YOLO] = { .name = "yolo", .extensions = "", .ops = &la_reader_yolo,
                      .flags = LA_FMTF_PATH },
    [LA_FMT_MAT] = { .name = "mat", .extensions = ".mat", .magic = mat_magic,
                     .library = "libmatio",
                     .flags = LA_FMTF_SERIAL | LA_FMTF_ONE_BASED_ORIGIN | LA_FMTF_IN_PLACE,
#if HAVE_MATIO
                     .ops = &la_reader_mat,
#endif
    },
    [LA_FMT_HDF5] = { .name = "hdf5", .extensions = ".h5 .hdf5 .he5", .magic = hdf5_magic,
                      .library = "libhdf5", .flags = LA_FMTF_SERIAL | LA_FMTF_IN_PLACE,
#if HAVE_HDF5
                      .ops = &la_reader_hdf5,
#endif
    },
    /* a zip too, whose first member is PREFIX/data.pkl: npz's test (a first .npy) leaves it */
    [LA_FMT_PT] = { .name = "pt", .extensions = ".pt .pth", .magic = la_pt_magic,
                    .ops = &la_reader_pt, .flags = LA_FMTF_IN_PLACE },
    [LA_FMT_SAFETENSORS] = { .name = "safetensors", .extensions = ".safetensors",
                             .magic = la_safetensors_magic, .ops = &la_reader_safetensors,
                             .flags = LA_FMTF_IN_PLACE },
    /* mask images and volumes: one file is one sample */
    [LA_FMT_PNG] = { .name = "png", .extensions = ".png", .magic = png_magic, .library = "libspng",
#if HAVE_SPNG
                     .ops = &la_reader_png,
#endif
    },
    [LA_FMT_TIFF] = { .name = "tiff", .extensions = ".tif .tiff", .magic = tiff_magic,
                      .library = "libtiff",
#if HAVE_TIFF
                      .ops = &la_reader_tiff,
#endif
    },
    [LA_FMT_NIFTI] = { .name = "nifti", .extensions = ".nii", .magic = nifti_magic,
                       .library = "libniftiio",
#if HAVE_NIFTI
                       .ops = &la_reader_nifti,
#endif
    },
    /* the tar is parsed by libarchive, after the source decompressed it */
    [LA_FMT_WDS] = { .name = "wds", .extensions = ".tar .tgz", .magic = tar_magic,
                     .library = "libarchive",
#if HAVE_LIBARCHIVE
                     .ops = &la_reader_wds,
#endif
                     .flags = LA_FMTF_NOTES },
    /* Hugging Face data, through Apache Arrow's C++ libraries (read_arrow.cc);
     * a build without them refuses these files by name, with how to get it */
    [LA_FMT_PARQUET] = { .name = "parquet", .extensions = ".parquet .pq", .magic = parquet_magic,
                         .library = ARROW_LIBRARY("libparquet"), .export_cmd = PARQUET_EXPORT,
#if HAVE_ARROW
                         .ops = &la_reader_arrow,
#endif
                         .flags = LA_FMTF_NOTES },
    [LA_FMT_ARROW] = { .name = "arrow", .extensions = ".arrow .feather .ipc", .magic = arrow_magic,
                       .library = ARROW_LIBRARY("libarrow"), .export_cmd = ARROW_EXPORT,
#if HAVE_ARROW
                       .ops = &la_reader_arrow,
#endif
                       .flags = LA_FMTF_NOTES },
    /* a folder: found by its state.json / dataset_info.json (layouts.c), or by --format */
    [LA_FMT_HF_DATASET] = { .name = "hf-dataset", .extensions = "",
                            .library = ARROW_LIBRARY("libarrow"),
#if HAVE_ARROW
                            .ops = &la_reader_hf_dataset,
#endif
                            .flags = LA_FMTF_PATH | LA_FMTF_NOTES },
    /* language-model tokens: the .idx by its magic; the .bin or the prefix by --format */
    [LA_FMT_MEGATRON] = { .name = "megatron", .extensions = ".idx", .magic = la_megatron_magic,
                          .ops = &la_reader_megatron,
                          .flags = LA_FMTF_PATH | LA_FMTF_NOTES | LA_FMTF_TOKENS },
    /* language-model token datasets: a folder of shards named by index.json */
    [LA_FMT_MDS] = { .name = "mds", .extensions = "", .ops = &la_reader_mds,
                     .flags = LA_FMTF_PATH },
    [LA_FMT_LITDATA] = { .name = "litdata", .extensions = "", .ops = &la_reader_litdata,
                         .flags = LA_FMTF_PATH },
    /* no magic: a '{' opens COCO's .json too; notes: a record of a list is one sample */
    [LA_FMT_JSONL] = { .name = "jsonl", .extensions = ".jsonl .ndjson", .library = "yajl",
#if HAVE_YAJL
                       .ops = &la_reader_jsonl,
#endif
                       .flags = LA_FMTF_NOTES | LA_FMTF_KEYED },
};

const struct la_format_def *la_format_def(enum la_format f)
{
    return f > LA_FMT_NONE && f < LA_FMT_COUNT ? &g_formats[f] : NULL;
}

const char *la_format_name(enum la_format f)
{
    if (f == LA_FMT_AUTO)
        return "auto";
    return f > LA_FMT_NONE && f < LA_FMT_COUNT ? g_formats[f].name : "none";
}

enum la_format la_format_by_name(const char *name)
{
    if (strcmp(name, "auto") == 0)
        return LA_FMT_AUTO;
    for (int f = LA_FMT_NONE + 1; f < LA_FMT_COUNT; f++)
        if (strcmp(name, g_formats[f].name) == 0)
            return (enum la_format)f;
    return LA_FMT_NONE;
}

const struct la_reader_ops *la_reader_for_format(enum la_format f)
{
    const struct la_format_def *d = la_format_def(f);
    return d ? d->ops : NULL;
}

int la_format_has(enum la_format f, unsigned flags)
{
    const struct la_format_def *d = la_format_def(f);
    return d && (d->flags & flags) == flags;
}

char la_format_delimiter(enum la_format f)
{
    const struct la_format_def *d = la_format_def(f);
    return d && d->delimiter ? d->delimiter : ',';
}

enum la_format la_format_by_magic(const unsigned char *head, size_t len)
{
    for (int f = LA_FMT_NONE + 1; f < LA_FMT_COUNT; f++)
        if (g_formats[f].magic && g_formats[f].magic(head, len))
            return (enum la_format)f;
    return LA_FMT_NONE;
}

// ---- binary files that no format reads: refused by name, never parsed as text

struct foreign_magic {
    const char *bytes;
    size_t len;
    const char *looks_like;
    const char *fix;           /* or NULL */
};

/* Kinds people have handed a label auditor. A zip is judged apart (its first
 * member's name tells a workbook); NUL bytes catch the other binary files. */
static const struct foreign_magic g_foreign[] = {
    { "SQLite format 3\0", 16, "an SQLite database", "export the label column as CSV" },
    { "%PDF-", 5, "a PDF document", NULL },
    { "\xff\xd8\xff", 3, "a JPEG image", "masks must be lossless (PNG or TIFF)" },
    { "GIF87a", 6, "a GIF image", NULL },
    { "GIF89a", 6, "a GIF image", NULL },
    { "\x80\x02", 2, "a Python pickle", "save the labels with np.save or torch.save" },
    { "\x80\x03", 2, "a Python pickle", "save the labels with np.save or torch.save" },
    { "\x80\x04", 2, "a Python pickle", "save the labels with np.save or torch.save" },
    { "\x80\x05", 2, "a Python pickle", "save the labels with np.save or torch.save" },
    { "(lp0\n", 5, "a Python pickle", "save the labels with np.save or torch.save" },
    { "(dp0\n", 5, "a Python pickle", "save the labels with np.save or torch.save" },
    { "\x7f" "ELF", 4, "an ELF executable", NULL },
    { "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 8, "an old Office document, .xls or .doc",
      "save the sheet as CSV" },
    { "7z\xbc\xaf\x27\x1c", 6, "a 7-Zip archive", "extract it first" },
    { "Rar!\x1a\x07", 6, "a RAR archive", "extract it first" },
    { "\x04\x22\x4d\x18", 4, "LZ4-compressed data", "decompress it first (lz4 -d)" },
    { "FEA1", 4, "a Feather v1 file",
      "read it with pandas.read_feather and save the label column with np.save" },
    { "Obj\x01", 4, "an Avro file", NULL },
    { "\x0e\x03\x13\x01", 4, "an HDF4 file", NULL },
    { "CDF\x01", 4, "a netCDF classic file", NULL },
    { "CDF\x02", 4, "a netCDF classic file", NULL },
};

/* A zip that no format claimed: an Office Open XML document (its first member
 * is [Content_Types].xml), or some other archive. */
static const char *foreign_zip(const unsigned char *head, size_t len, const char **fix)
{
    static const char office[] = "[Content_Types].xml";
    const char *name;
    size_t n;
    if (la_zip_first_member(head, len, &name, &n) == LA_ZIP_HEAD_NAMED &&
        n == sizeof office - 1 && memcmp(name, office, n) == 0) {
        *fix = "save the sheet as CSV";
        return "an Office document, .xlsx or .docx";
    }
    *fix = "unzip it first";
    return "a zip archive";
}

/* A JSON object: its first byte past a UTF-8 byte order mark and white space
 * is '{', which no CSV or text of labels starts with. A COCO file is one (its
 * format is not guessed: --format=coco says it is). */
static int json_object(const unsigned char *head, size_t len)
{
    size_t i = starts_with(head, len, "\xef\xbb\xbf", 3) ? 3 : 0;
    while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    return i < len && head[i] == '{';
}

/* UTF-16 without a byte order mark: ASCII in every other byte, NUL in the rest. */
static int utf16_without_bom(const unsigned char *head, size_t len)
{
    size_t n = len < 64 ? len & ~(size_t)1 : 64;
    int le = n >= 4, be = n >= 4;
    for (size_t i = 0; i < n; i += 2) {
        le &= head[i] && head[i] < 0x80 && !head[i + 1];
        be &= !head[i] && head[i + 1] && head[i + 1] < 0x80;
    }
    return le || be;
}

const char *la_foreign_kind(const unsigned char *head, size_t len, const char **fix,
                            char *buf, size_t buflen)
{
    const char *ignored;
    if (!fix)
        fix = &ignored;
    *fix = NULL;
    if (starts_with(head, len, "PK\x03\x04", 4) || starts_with(head, len, "PK\x05\x06", 4))
        return foreign_zip(head, len, fix);
    for (size_t i = 0; i < sizeof g_foreign / sizeof g_foreign[0]; i++)
        if (starts_with(head, len, g_foreign[i].bytes, g_foreign[i].len)) {
            *fix = g_foreign[i].fix;
            return g_foreign[i].looks_like;
        }
    /* a byte order mark says UTF-16 text (or UTF-32, refused as such): NULs belong */
    if (starts_with(head, len, "\xff\xfe", 2) || starts_with(head, len, "\xfe\xff", 2) ||
        starts_with(head, len, "\0\0\xfe\xff", 4))
        return NULL;
    if (json_object(head, len)) {
        *fix = "for COCO instances pass --format=coco, for JSON Lines or records under a key "
               "--format=jsonl (with --field=KEY); else export the labels as CSV or .npy";
        return "a JSON document";
    }
    if (utf16_without_bom(head, len)) {
        *fix = "re-save it as UTF-8 (or as UTF-16 with a byte order mark)";
        return "UTF-16 text without a byte order mark";
    }
    const unsigned char *nul = memchr(head, '\0', len);
    if (!nul)
        return NULL;
    snprintf(buf, buflen, "binary data: a NUL byte at byte %zu", (size_t)(nul - head));
    return buf;
}

/* Whether name can stand inside '...' in Python inside "..." in a shell, and
 * twice in a one-line message. */
static int quotable(const char *name)
{
    return strcmp(name, "-") != 0 && strlen(name) <= 100 && !strpbrk(name, "'\"\\$`\n");
}

char *la_export_command(enum la_format f, const char *path, char *buf, size_t len)
{
    const struct la_format_def *d = la_format_def(f);
    const char *cmd = d && d->export_cmd ? d->export_cmd : "";
    const char *name = quotable(path) ? path : "FILE";
    size_t used = 0;
    buf[0] = '\0';
    for (const char *at; used < len && (at = strstr(cmd, "FILE"));) {
        int n = snprintf(buf + used, len - used, "%.*s%s", (int)(at - cmd), cmd, name);
        used += n > 0 ? (size_t)n : 0;
        cmd = at + 4;
    }
    if (used < len)
        snprintf(buf + used, len - used, "%s", cmd);
    return buf;
}

/* Whether the space-separated list exts holds the extension that ends name[0..n). */
static int ends_in_one_of(const char *name, size_t n, const char *exts)
{
    for (const char *e = exts; *e;) {
        size_t k = strcspn(e, " ");
        if (k && n > k && strncasecmp(name + n - k, e, k) == 0)
            return 1;
        e += k + (e[k] == ' ');
    }
    return 0;
}

/* The compression suffixes a name may end in, and the decompressor each
 * needs, by the name --version's "Decompression:" line gives it. */
static const struct { const char *suffix, *codec; } g_compressed[] = {
    { ".gz", "gzip" }, { ".xz", "xz" }, { ".bz2", "bzip2" }, { ".zst", "zstd" },
};

/* The decompressor path's name asks for, or NULL. */
static const char *codec_of(const char *path)
{
    for (size_t i = 0; i < sizeof g_compressed / sizeof g_compressed[0]; i++)
        if (la_name_ends_in(path, g_compressed[i].suffix))
            return g_compressed[i].codec;
    return NULL;
}

enum la_format la_format_by_extension(const char *path)
{
    size_t n = strlen(path);
    if (codec_of(path))
        n = (size_t)(strrchr(path, '.') - path);   /* y.csv.gz is read as y.csv */
    for (int f = LA_FMT_NONE + 1; f < LA_FMT_COUNT; f++)
        if (ends_in_one_of(path, n, g_formats[f].extensions))
            return (enum la_format)f;
    return LA_FMT_NONE;
}

char *la_formats_list(char *buf, size_t len, int built, const char *sep)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int f = LA_FMT_NONE + 1; f < LA_FMT_COUNT && used < len; f++) {
        if ((g_formats[f].ops != NULL) != (built != 0))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? sep : "", g_formats[f].name);
        used += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

void la_formats_needed(char *const *words, int n, FILE *out)
{
    for (int i = 0; i < n; i++) {
        const char *w = words[i], *codec = codec_of(w);
        enum la_format f = strncmp(w, "--format=", 9) == 0 ? la_format_by_name(w + 9)
                                                           : la_format_by_extension(w);
        if (codec)
            fprintf(out, "%s\n", codec);
        if (f > LA_FMT_NONE)
            fprintf(out, "%s\n", g_formats[f].name);
    }
}
