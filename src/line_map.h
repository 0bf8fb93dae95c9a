/* line_map.h - the physical line of a CSV/TSV/text row or a JSON Lines
 * record, for annotations that point at a line of the file in a pull request
 * (--annotations, --sarif, --junit), and for the text report's
 * "row 17 (line 19)" and "record 17 (line 19)".
 *
 * The readers number data rows, not lines: a header, blank lines and quoted
 * fields holding newlines sit between the two. Rather than carry a line
 * number through every chunk of the hot path, the few rows an annotation
 * needs are looked up afterwards by reading the file again, up to the last
 * of them, only when a report shows bad rows, through the readers' own rule for where rows start
 * (la_csv_rows, read_csv.c: its quotes, blank lines and line ends) with the
 * file's delimiter, --skip-rows and header decision. A JSON Lines record is
 * a line holding more than whitespace (the reader read each such line as one
 * record, and refuses a file where one is not); --field's one document has
 * records that may span or share lines, and no lines here. Standard input
 * cannot be read again; there the lines stay unknown, and the annotations
 * name the file. */
#ifndef LA_LINE_MAP_H
#define LA_LINE_MAP_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */
#include "file_report.h"
#include "options.h" /* la_config: the delimiter, --skip-rows */

/** la_line_row() : the row la_line_map() numbers for bad entry b: a JSON
 *  Lines record (its sample: a record of a list is one sample of several
 *  entries), else its index (a table's data row). */
uint64_t la_line_row(const struct la_file_report *r, const struct la_bad *b);

/** la_line_record() : where a JSON Lines bad entry lies, at its record's
 *  line: "record 17 (line 19)", or "index 40 (record 17, line 19)" for an
 *  item of a record's list, into buf. */
void la_line_record(const struct la_bad *b, uint64_t line, char *buf, size_t len);

/** la_line_map() : for the n data-row indices rows[] (ascending), the 1-based
 *  line where each row starts, in lines[] (as grep -n counts them: a quoted
 *  field's newlines count; for jsonl, record indices: la_line_row()).
 *  @return 0, or -1 when the lines are unknown (not a csv/tsv/text/JSON Lines
 *  file, standard input, the file changed): lines[] is all 0. */
int la_line_map(const struct la_file_report *r, const struct la_config *cfg,
                const uint64_t *rows, size_t n, uint64_t *lines);

/** la_line_map_any() : la_line_map() of rows[] in any order (a finding's
 *  distinct values' first rows, then its other entries). */
int la_line_map_any(const struct la_file_report *r, const struct la_config *cfg,
                    const uint64_t *rows, size_t n, uint64_t *lines);

#endif
