/* pairs.h - a report's labels paired with their images (SPEC "A label and
 * what it labels"): by the path below the labels' folder without its
 * extension (and the suffixes layouts add: Cityscapes' _leftImg8bit and
 * _gtFine_labelIds, nnU-Net's channel _0000), each image's size read from
 * its header alone (read/image_size.h). The images lie in --images=DIR, or
 * beside the labels where the layouts keep them: labels/ and images/
 * (YOLO), SegmentationClass/ and JPEGImages/ (VOC), gtFine/ and
 * leftImg8bit/ (Cityscapes), annotations/ and images/ (ADE20K), labelsTr/
 * and imagesTr/ (nnU-Net). Findings: size-mismatch, missing-pair,
 * unlabeled-images (YOLO's background images: a notice). */
#ifndef LA_PAIRS_H
#define LA_PAIRS_H

#include "context.h"     /* la_report_ctx */
#include "file_report.h" /* la_file_report */

/** la_pair_images() : pair r's label files (its dataset's sources, below
 *  labels_dir) with their images, when there are images to pair them with:
 *  r->pairs and its findings. Nothing for a report of one file, or where
 *  no images folder is given or found. */
void la_pair_images(const struct la_report_ctx *ctx, const char *labels_dir,
                    struct la_file_report *r);

#endif
