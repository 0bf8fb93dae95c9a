/* read_csv.c - placeholder until the libcsv reader lands. */
#include "reader.h"

static int csv_open(struct la_reader *r)
{
    return la_reader_set_error(r, "csv reader not built yet");
}

const struct la_reader_ops la_reader_csv = { "csv", csv_open, NULL, NULL };
