/* class_report.h - where N came from, as the reports say it: the text
 * report's lines and the JSON's num_classes, num_classes_from,
 * class_sources, class_names and tokenizer (the class count: class_count.h).
 * They read the report and decide nothing. */
#ifndef LA_CLASS_REPORT_H
#define LA_CLASS_REPORT_H

#include <stdio.h>  /* FILE */
#include <cjson/cJSON.h>

struct la_file_report;

/** la_class_count_text() : the text report's lines: where N came from, and
 *  the out-of-range classes by name ("class 10 (no name; the model has 10
 *  outputs)"). */
void la_class_count_text(FILE *out, const struct la_file_report *r);

/** la_class_count_json() : num_classes, num_classes_from, class_sources and
 *  class_names into the file's JSON object, when a source beyond -n exists. */
void la_class_count_json(const struct la_file_report *r, cJSON *file);

#endif
