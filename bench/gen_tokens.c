/* gen_tokens.c - the token benchmark's inputs (bench/tokens.sh):
 *
 *   gen_tokens PREFIX COUNT V SEQ
 *
 * writes PREFIX.bin, COUNT little-endian uint16 token ids in [0, V) (as
 * nanoGPT's prepare.py writes train.bin) with one id in 2^24 set to V + 7,
 * and PREFIX.idx, the index megatron-core's IndexedDatasetBuilder would write
 * for the same bytes as a dataset of uint16 sequences of SEQ ids (the last
 * shorter), 4 sequences a document: the .bin of a Megatron pair is then the
 * very file train.bin is. Prints the number of ids >= V. */
#include <stdint.h> /* uint64_t */
#include <stdio.h>  /* fopen, fwrite */
#include <stdlib.h> /* strtoull, malloc */
#include <string.h> /* memcpy */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void put64(FILE *f, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    fwrite(b, 1, 8, f);
}

static int write_bin(const char *path, uint64_t count, uint64_t v, uint64_t *bad)
{
    FILE *f = fopen(path, "wb");
    enum { CHUNK = 1 << 20 };
    uint16_t *buf = malloc(CHUNK * sizeof *buf);
    uint64_t st = 42;
    if (!f || !buf)
        return -1;
    for (uint64_t done = 0; done < count;) {
        size_t n = count - done < CHUNK ? (size_t)(count - done) : CHUNK;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = splitmix64(&st);
            int stray = ((done + i) & ((1u << 24) - 1)) == 12345;
            buf[i] = (uint16_t)(stray ? v + 7 : (r >> 16) % v);
            *bad += stray;
        }
        fwrite(buf, sizeof *buf, n, f);
        done += n;
    }
    free(buf);
    return fclose(f);
}

static int write_idx(const char *path, uint64_t count, uint64_t seq)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    uint64_t s = (count + seq - 1) / seq, docs = (s + 3) / 4;
    fwrite("MMIDIDX\0\0", 1, 9, f);
    put64(f, 1);
    fputc(8, f);                              /* uint16 */
    put64(f, s);
    put64(f, docs + 1);
    for (uint64_t i = 0; i < s; i++) {
        uint32_t n = (uint32_t)(i + 1 < s ? seq : count - i * seq);
        unsigned char b[4] = { (unsigned char)n, (unsigned char)(n >> 8),
                               (unsigned char)(n >> 16), (unsigned char)(n >> 24) };
        fwrite(b, 1, 4, f);
    }
    for (uint64_t i = 0; i < s; i++)
        put64(f, i * seq * 2);
    for (uint64_t d = 0; d <= docs; d++)
        put64(f, d * 4 < s ? d * 4 : s);
    return fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: gen_tokens PREFIX COUNT V SEQ\n");
        return 2;
    }
    uint64_t count = strtoull(argv[2], NULL, 10), v = strtoull(argv[3], NULL, 10);
    uint64_t seq = strtoull(argv[4], NULL, 10), bad = 0;
    char bin[4096], idx[4096];
    snprintf(bin, sizeof bin, "%s.bin", argv[1]);
    snprintf(idx, sizeof idx, "%s.idx", argv[1]);
    if (v < 1 || v + 7 > 65535 || seq < 1 || write_bin(bin, count, v, &bad) != 0 ||
        write_idx(idx, count, seq) != 0) {
        fprintf(stderr, "gen_tokens: cannot write %s\n", argv[1]);
        return 1;
    }
    printf("%llu\n", (unsigned long long)bad);
    return 0;
}
