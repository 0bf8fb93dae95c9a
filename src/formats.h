/* formats.h - the input formats: enum la_format and the one table that says,
 * per format, its name, file-name extensions, magic bytes, reader and flags.
 *
 * Detection (input.c), --format (options.c), the reports and --version all
 * read the table (formats.c); none of them compares format names. Adding a
 * format = one src/read/read_X.c, one enum value here, one row in formats.c (its
 * ops inside `#if HAVE_X` when a library may be missing), a configure check,
 * tests and the man page. This header depends on nothing else of ours, so
 * options.h and input.h can name a format without knowing the readers. */
#ifndef LA_FORMATS_H
#define LA_FORMATS_H

#include <stddef.h> /* size_t */
#include <stdio.h>  /* FILE */

/* The row of the table each format is; the table is indexed by it. */
enum la_format {
    LA_FMT_AUTO = -1, /* la_config.format: detect each file */
    LA_FMT_NONE = 0,  /* no format (a zeroed report's): refused, or not a format name */
    LA_FMT_CSV,
    LA_FMT_TSV,
    LA_FMT_TEXT,
    LA_FMT_NPY,
    LA_FMT_NPZ,
    LA_FMT_RAW,
    LA_FMT_PNG,         /* read_png.c: a mask image, libspng */
    LA_FMT_TIFF,        /* read_tiff.c: a mask image, libtiff (regular files only) */
    LA_FMT_NIFTI,       /* read_nifti.c: a NIfTI-1 volume, libniftiio */
    LA_FMT_MAT,         /* read_mat.c: libmatio (v7.3 files are HDF5: before hdf5's row) */
    LA_FMT_HDF5,        /* read_hdf5.c: libhdf5, by path */
    LA_FMT_PT,          /* read_pt.c: torch.save's zip, its pickle never run */
    LA_FMT_SAFETENSORS, /* read_safetensors.c: JSON header (cJSON), then the data */
    LA_FMT_IMAGEFOLDER, /* read_imagefolder.c: a folder, read by path */
    LA_FMT_COCO,        /* read_coco.c: JSON read twice, by path */
    LA_FMT_YOLO,        /* read_yolo.c: a folder (or one .txt), read by path */
    LA_FMT_WDS,         /* read_wds.c: WebDataset tar shards, libarchive */
    LA_FMT_PARQUET,     /* read_arrow.cc: Apache Parquet, through Apache Arrow's C++ libraries */
    LA_FMT_ARROW,       /* ... Arrow IPC file (Feather v2) or stream */
    LA_FMT_HF_DATASET,  /* ... a folder of them that Hugging Face `datasets` wrote */
    LA_FMT_MEGATRON,    /* read_megatron.c: PREFIX.idx + PREFIX.bin, opened by path */
    LA_FMT_MDS,         /* read_mds.c: a MosaicML streaming folder (index.json + shards), by path */
    LA_FMT_LITDATA,     /* read_litdata.c: a LitData optimize() folder, by path */
    LA_FMT_JSONL,       /* read_jsonl.c: JSON Lines (or --field's array of records), yajl */
    /* new formats here, before LA_FMT_COUNT */
    LA_FMT_COUNT
};

/* la_format_def.flags */
enum {
    LA_FMTF_TEXT = 1u << 0,     /* read as text: byte order marks, line numbers in reports */
    LA_FMTF_TABLE = 1u << 1,    /* rows of cells: a label column, a header, -d/-c apply */
    LA_FMTF_IN_PLACE = 1u << 2, /* its reader may offer a run (reader.h's la_file_run): a
                                   plain file's values mapped and scanned in place, which
                                   --backend=auto counts (la_auto_hint_of opens only these) */
    LA_FMTF_PATH = 1u << 3,     /* the reader opens the path itself (a folder, or a file it
                                   reads twice): r->src is NULL, r->path and r->notes are set;
                                   only by --format, a folder is then not a dataset of files */
    LA_FMTF_NOTES = 1u << 4,    /* a source's reader that leaves notes (label_notes.h) too */
    LA_FMTF_SERIAL = 1u << 5,   /* its reader may not run while another such reader does:
                                   the files of a folder audited on several threads take
                                   turns (audit.c). libmatio makes no thread-safety
                                   promise; libhdf5 built thread-safe takes one global lock
                                   in every call, so two readers gain nothing, and one
                                   built without it would be entered by both at once */
    LA_FMTF_ONE_BASED_ORIGIN = 1u << 6, /* written by MATLAB, whose arrays count from 1: the
                                           one-based finding's fix says so */
    LA_FMTF_TOKENS = 1u << 7,   /* language-model token ids (megatron, mds, litdata): the
                                   values are ids fed to the embedding, for --vocab-size */
    LA_FMTF_KEYED = 1u << 8,    /* records of named fields (jsonl): -c names the label's, and
                                   so implies a table only where the name says no such format */
    LA_FMTF_IDS_FROM_ONE = 1u << 9, /* its ids rightly start at 1 (COCO's categories:
                                       torchvision's detection models keep class 0 for the
                                       background), so N = max + 1 and no one-based finding */
    LA_FMTF_NEEDS_DTYPE = 1u << 10, /* headerless values (raw): --format=NAME needs --dtype */
};

struct la_reader_ops;

struct la_format_def {
    const char *name;       /* --format=NAME, "format" in the JSON report */
    /* Space-separated, matched case-insensitively at the end of the name once
     * a compression suffix (.gz .xz .bz2 .zst) is dropped: ".nii", ".tar". */
    const char *extensions;
    /* Whether the first decompressed bytes (up to LA_PEEK_LEN) are this
     * format's. Tried in the order of enum la_format (the table's index, not
     * the order its rows are written in): a narrower test before a wider one
     * of the same container (mat before hdf5: a v7.3 .mat is an HDF5 file). */
    int (*magic)(const unsigned char *head, size_t len);
    const struct la_reader_ops *ops; /* NULL: configured out (see library) */
    const char *library;    /* what an absent format needs, for messages: "libpng" */
    /* For an absent format: a shell command that exports the labels to .npy,
     * FILE standing for the file's name ("python3 -c ..."); or NULL. */
    const char *export_cmd;
    unsigned flags;         /* LA_FMTF_* */
    char delimiter;         /* a table's cell delimiter when -d gives none (',', '\t'); 0 else */
};

/** la_format_def() : the row of f, or NULL for LA_FMT_AUTO and LA_FMT_NONE. */
const struct la_format_def *la_format_def(enum la_format f);

/** la_format_name() : "csv", ...; "auto" and "none" for the two non-formats. */
const char *la_format_name(enum la_format f);

/** la_format_by_name() : the format named name (case-sensitive), "auto"
 *  included, else LA_FMT_NONE. */
enum la_format la_format_by_name(const char *name);

/** la_format_has() : whether f's row has every flag in flags (0 for non-formats). */
int la_format_has(enum la_format f, unsigned flags);

/** la_format_delimiter() : the cell delimiter of table format f's files when
 *  none is given: ',' for csv, '\t' for tsv; ',' for any other format. */
char la_format_delimiter(enum la_format f);

/** la_format_by_magic() : the first format, in enum order, whose magic claims
 *  head, else LA_FMT_NONE. */
enum la_format la_format_by_magic(const unsigned char *head, size_t len);

/** la_format_by_extension() : the format path's extension names (a trailing
 *  compression suffix ignored), else LA_FMT_NONE; the first in enum order
 *  when two rows list the extension. */
enum la_format la_format_by_extension(const char *path);

/** la_foreign_kind() : what head (a file's first decompressed bytes) looks
 *  like when it is binary data that no format reads: "an SQLite database",
 *  "binary data (a NUL byte at byte 17)", ...; NULL when it may be text.
 *  *fix, when not NULL, gets what to do about it ("unzip it first") or NULL. */
const char *la_foreign_kind(const unsigned char *head, size_t len, const char **fix,
                            char *buf, size_t buflen);

/** la_export_command() : f's export_cmd with FILE replaced by path (when the
 *  shell and Python can take path as it is), into buf; "" when f has none.
 *  @return buf. */
char *la_export_command(enum la_format f, const char *path, char *buf, size_t len);


/** la_formats_list() : the names, separated by sep, of the formats this build
 *  reads (built = 1) or lacks (built = 0), into buf (truncated to fit).
 *  @return buf. */
char *la_formats_list(char *buf, size_t len, int built, const char *sep);

/** la_formats_needed() : for each of words (a command line's words: FILE
 *  names, --format=NAME), what reading it needs by its name alone: the
 *  decompressor its suffix asks for and the format its extension or
 *  --format names, one per line on out. The tests ask the binary this
 *  (labelaudit --formats-needed WORD...) rather than keep a copy of the
 *  extensions. */
void la_formats_needed(char *const *words, int n, FILE *out);

#endif
