/* class_findings.h - the findings of the class count's sources (class_count.h
 * resolves them): class-count-mismatch where two sources of N disagree or
 * one contradicts itself (a data.yaml whose nc is not its names' count),
 * vocab-mismatch where the tokenizer and the model's embedding, or the ids
 * and the tokenizer, disagree. The diagnosis of the labels themselves is
 * diagnose.h's. */
#ifndef LA_CLASS_FINDINGS_H
#define LA_CLASS_FINDINGS_H

struct la_class_count;
struct la_file_report;

/** la_class_count_finish() : after the audit: take the reader's classes
 *  (r->notes, la_class_count_take_notes), add the class-count-mismatch and
 *  vocab-mismatch findings to r when it was read, and give cc to r
 *  (r->classes owns it from now on). */
void la_class_count_finish(struct la_class_count *cc, struct la_file_report *r);

#endif
