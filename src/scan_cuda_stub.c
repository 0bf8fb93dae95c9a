/* scan_cuda_stub.c - the GPU backend of a build without CUDA: never available. */
#include "scan.h"

#include <stdio.h> /* snprintf */

int la_gpu_probe(char *why, size_t whylen)
{
    snprintf(why, whylen, "built without CUDA support");
    return 0;
}

int la_scan_gpu_open(struct la_scan_backend *b, int threads, char *err, size_t errlen)
{
    (void)b, (void)threads;
    snprintf(err, errlen, "built without CUDA support");
    return -1;
}
