/* formats.c - the one table of input formats (see formats.h), kept apart from
 * reader.c so that a reader's unit test links without the other readers. */
#include "config.h"  /* HAVE_SPNG, ... */
#include "formats.h"
#include "reader.h" /* la_reader_csv, ... */

#include <stdio.h>   /* snprintf */
#include <string.h>  /* memcmp, strcmp, strcspn, strlen, strrchr */
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
    if (!starts_with(head, len, "PK\x03\x04", 4))
        return 0;
    if (len < 30)
        return 1;
    size_t name_len = (size_t)head[26] | (size_t)head[27] << 8;
    if (30 + name_len > len)
        return 1;
    const char *name = (const char *)head + 30;
    return name_len >= 4 && strncasecmp(name + name_len - 4, ".npy", 4) == 0;
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

static const struct la_format_def g_formats[LA_FMT_COUNT] = {
    [LA_FMT_CSV] = { .name = "csv", .extensions = ".csv", .ops = &la_reader_csv,
                     .flags = LA_FMTF_TEXT | LA_FMTF_TABLE },
    [LA_FMT_TSV] = { .name = "tsv", .extensions = ".tsv .tab", .ops = &la_reader_csv,
                     .flags = LA_FMTF_TEXT | LA_FMTF_TABLE },
    [LA_FMT_TEXT] = { .name = "text", .extensions = ".txt .labels", .ops = &la_reader_text,
                      .flags = LA_FMTF_TEXT },
    [LA_FMT_NPY] = { .name = "npy", .extensions = ".npy", .magic = npy_magic,
                     .ops = &la_reader_npy, .flags = LA_FMTF_IN_PLACE },
    [LA_FMT_NPZ] = { .name = "npz", .extensions = ".npz", .magic = npz_magic,
                     .ops = &la_reader_npz },
    [LA_FMT_RAW] = { .name = "raw", .extensions = ".raw .bin .dat", .ops = &la_reader_raw,
                     .flags = LA_FMTF_IN_PLACE },
    /* by --format only (no extension, no magic): a folder or a JSON could be many things */
    [LA_FMT_IMAGEFOLDER] = { .name = "imagefolder", .extensions = "", .ops = &la_reader_imagefolder,
                             .flags = LA_FMTF_PATH },
    [LA_FMT_COCO] = { .name = "coco", .extensions = "", .library = "yajl",
#if HAVE_YAJL
                      .ops = &la_reader_coco,
#endif
                      .flags = LA_FMTF_PATH },
    [LA_FMT_YOLO] = { .name = "yolo", .extensions = "", .ops = &la_reader_yolo,
                      .flags = LA_FMTF_PATH },
    [LA_FMT_MAT] = { .name = "mat", .extensions = ".mat", .magic = mat_magic,
                     .library = "libmatio", .flags = LA_FMTF_SERIAL,
#if HAVE_MATIO
                     .ops = &la_reader_mat,
#endif
    },
    [LA_FMT_HDF5] = { .name = "hdf5", .extensions = ".h5 .hdf5 .he5", .magic = hdf5_magic,
                      .library = "libhdf5", .flags = LA_FMTF_SERIAL,
#if HAVE_HDF5
                      .ops = &la_reader_hdf5,
#endif
    },
    /* before npz's row would matter: a .pt is a zip whose first member is PREFIX/data.pkl */
    [LA_FMT_PT] = { .name = "pt", .extensions = ".pt .pth", .magic = la_pt_magic,
                    .ops = &la_reader_pt },
    [LA_FMT_SAFETENSORS] = { .name = "safetensors", .extensions = ".safetensors",
                             .magic = la_safetensors_magic, .ops = &la_reader_safetensors },
    /* mask images and volumes (issue 13): one file is one sample */
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
    /* issue 16: the tar is parsed by libarchive, after the source decompressed it */
    [LA_FMT_WDS] = { .name = "wds", .extensions = ".tar .tgz", .magic = tar_magic,
                     .library = "libarchive",
#if HAVE_LIBARCHIVE
                     .ops = &la_reader_wds,
#endif
                     .flags = LA_FMTF_NOTES },
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

enum la_format la_format_by_magic(const unsigned char *head, size_t len)
{
    for (int f = LA_FMT_NONE + 1; f < LA_FMT_COUNT; f++)
        if (g_formats[f].magic && g_formats[f].magic(head, len))
            return (enum la_format)f;
    return LA_FMT_NONE;
}

int la_name_ends_in(const char *path, const char *ext)
{
    size_t n = strlen(path), k = strlen(ext);
    return n > k && strncasecmp(path + n - k, ext, k) == 0;
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

enum la_format la_format_by_extension(const char *path)
{
    size_t n = strlen(path);
    if (ends_in_one_of(path, n, ".gz .xz .bz2 .zst"))
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
