#!/usr/bin/env python3
"""gen_masks.py - write the mask images and volumes of the tests (committed; run
again only to change them): the samples (samples/voc-masks, samples/cityscapes,
samples/brats), the test fixtures (tests/data/masks) and the broken inputs
(tests/malformed/png-*, tiff-*, nifti-*). Made with the tools users make
them with: PIL, tifffile, nibabel and numpy (pip install pillow tifffile
nibabel numpy); make check needs none of them."""
import gzip, os, struct, zlib

import nibabel as nib
import numpy as np
import tifffile
from PIL import Image

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
rng = np.random.default_rng(13)


def path(*parts):
    p = os.path.join(top, *parts)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    return p


def put(rel, data):
    with open(path(*rel.split("/")), "wb") as f:
        f.write(data)


def voc_palette():
    """Pascal VOC's colour map: class c's colour from the bits of c."""
    pal = []
    for c in range(256):
        r = g = b = 0
        for k in range(8):
            r |= ((c >> 0) & 1) << (7 - k)
            g |= ((c >> 1) & 1) << (7 - k)
            b |= ((c >> 2) & 1) << (7 - k)
            c >>= 3
        pal += [r, g, b]
    return pal


def blobs(h, w, classes, boundary=None):
    """A mask of rectangles of the given classes on background 0, each
    outlined with the boundary value as VOC's annotations are."""
    m = np.zeros((h, w), np.uint8)
    for c in classes:
        y0, x0 = rng.integers(0, h - 8), rng.integers(0, w - 8)
        y1, x1 = y0 + rng.integers(4, 16), x0 + rng.integers(4, 20)
        if boundary is not None:
            m[max(y0 - 1, 0):y1 + 1, max(x0 - 1, 0):x1 + 1] = boundary
        m[y0:y1, x0:x1] = c
    return m


def save_palette_png(rel, mask):
    im = Image.fromarray(mask, mode="P")
    im.putpalette(voc_palette())
    im.save(path(*rel.split("/")), optimize=False)


# ---- samples ----------------------------------------------------------------------
# Pascal VOC: palette PNGs, classes 0..20, 255 on object boundaries (-n 21).
for name, classes in [("2007_000032", [1, 15]), ("2007_000039", [20]),
                      ("2007_000063", [8, 12]), ("2007_000129", [2, 15, 19])]:
    save_palette_png("samples/voc-masks/%s.png" % name, blobs(48, 64, classes, 255))

# Cityscapes: labelIds (0..33) and the trainIds made from them (0..18, 255).
LABEL_TO_TRAIN = {7: 0, 8: 1, 11: 2, 12: 3, 13: 4, 17: 5, 19: 6, 20: 7, 21: 8, 22: 9,
                  23: 10, 24: 11, 25: 12, 26: 13, 27: 14, 28: 15, 31: 16, 32: 17, 33: 18}
label_ids = np.zeros((32, 64), np.uint8)
label_ids[:8] = 23                      # sky
label_ids[8:16] = 11                    # building
label_ids[16:24] = 21                   # vegetation
label_ids[24:] = 7                      # road
label_ids[26:30, 10:20] = 26            # car
label_ids[20:28, 40:44] = 24            # person
label_ids[30:, 50:] = 1                 # ego vehicle (void)
label_ids[0, :4] = 33                   # bicycle
train_ids = np.full_like(label_ids, 255)
for lab, tr in LABEL_TO_TRAIN.items():
    train_ids[label_ids == lab] = tr
stem = "samples/cityscapes/aachen_000000_000019_gtFine_"
Image.fromarray(label_ids, mode="L").save(path(*(stem + "labelIds.png").split("/")))
Image.fromarray(train_ids, mode="L").save(path(*(stem + "trainIds.png").split("/")))

# BraTS: a segmentation volume labelled 0, 1, 2 and 4 (no 3), uint8, gzipped.
seg = np.zeros((24, 24, 16), np.uint8)
seg[6:18, 6:18, 4:12] = 2               # edema
seg[8:16, 8:16, 5:11] = 1               # necrotic core
seg[10:14, 10:14, 6:10] = 4             # enhancing tumour
img = nib.Nifti1Image(seg, np.eye(4))
img.header.set_data_dtype(np.uint8)
nib.save(img, path("samples", "brats", "BraTS20_Training_001_seg.nii.gz"))

# Remote sensing: a land-cover tile of classes 0..5 in 32 x 32 tiles (deflate),
# its edge outside the scene marked 255 ("no data"), -n 6.
cover = np.repeat(np.repeat(np.arange(64, dtype=np.uint8).reshape(8, 8) % 6, 8, 0), 8, 1)
cover[:, 60:] = 255
tifffile.imwrite(path("samples", "landcover-tile.tif"), cover, tile=(32, 32), compression="zlib")

# ---- test fixtures (tests/data/masks) -------------------------------------------------
D = "tests/data/masks/"
small = np.array([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 255]], np.uint8)
Image.fromarray(small, mode="L").save(path(*(D + "grey8.png").split("/")))
Image.fromarray(np.array([[0, 1000], [65535, 3]], np.uint16)).save(path(*(D + "grey16.png").split("/")))
Image.fromarray(np.array([[0, 1], [1, 0]], bool)).save(path(*(D + "grey1.png").split("/")))
# 4-bit palette: indices 0..15, unscaled; and 2-bit grey, which PIL scales to 0, 85, 170, 255
im = Image.fromarray(np.arange(16, dtype=np.uint8).reshape(2, 8), mode="P")
im.putpalette(voc_palette()[:48])
im.save(path(*(D + "palette4.png").split("/")), bits=4)
raw2 = bytes([0, 0b00011011, 0, 0b11100100])          # rows 0,1,2,3 and 3,2,1,0
ihdr = struct.pack(">IIBBBBB", 4, 2, 2, 0, 0, 0, 0)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(ihdr_data, idat, extra=b""):
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr_data) + extra +
            chunk(b"IDAT", idat) + chunk(b"IEND", b""))


put(D + "grey2.png", png(ihdr, zlib.compress(raw2)))


def adam7(mask):
    """The passes of an interlaced 8-bit grey image, each row behind filter byte 0
    (PIL writes no interlaced PNG)."""
    out = b""
    for x0, y0, dx, dy in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                           (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]:
        sub = mask[y0::dy, x0::dx]
        if sub.size:
            out += b"".join(b"\0" + row.tobytes() for row in sub)
    return out


# interlaced (Adam7): the same values as grey8.png
h, w = small.shape
put(D + "interlaced.png", png(struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 1), zlib.compress(adam7(small))))
# ADE20K-like: values 0..150, 0 frequent (reduce_zero_label), for -n 150
ade = np.zeros((40, 40), np.uint8)
ade[20:] = (np.arange(800) % 150 + 1).reshape(20, 40)
Image.fromarray(ade, mode="L").save(path(*(D + "ade-like.png").split("/")))
# a mask folder with one mask of 22
for i, m in enumerate([blobs(16, 24, [1, 2]), blobs(16, 24, [3]), blobs(16, 24, [22, 4])]):
    save_palette_png(D + "folder/m%d.png" % i, m)
# TIFF: uint16 in strips, float32 in 16x16 tiles, int8 deflated
t16 = np.array([[0, 1, 2], [3, 300, 5]], np.uint16)
tifffile.imwrite(path(*(D + "strips-u16.tif").split("/")), t16, rowsperstrip=1)
tf = np.zeros((20, 40), np.float32)
tf[3, 33] = 2.5
tf[19, 0] = 7
tifffile.imwrite(path(*(D + "tiles-f32.tif").split("/")), tf, tile=(16, 16))
ti = np.array([[-1, 0, 1, 2]], np.int8)
tifffile.imwrite(path(*(D + "deflate-i8.tif").split("/")), ti, compression="zlib")
# NIfTI: int16 big-endian, and a scaled one (slope 2, inter 1: 1, 3, 5, ...)
v = np.arange(24, dtype=np.int16).reshape(2, 3, 4) % 5
hdr = nib.Nifti1Header(endianness=">")
be = nib.Nifti1Image(v, np.eye(4), hdr)
be.set_data_dtype(np.dtype(">i2"))
nib.save(be, path(*(D + "bigendian-i16.nii").split("/")))
sc = nib.Nifti1Image(np.arange(6, dtype=np.int16).reshape(3, 2, 1), np.eye(4))
sc.header.set_slope_inter(2.0, 1.0)
nib.save(sc, path(*(D + "scaled.nii").split("/")))
# the same sample as a plain .nii, to read through stdin
nib.save(img, path(*(D + "brats.nii").split("/")))

# ---- broken inputs (tests/malformed) ---------------------------------------------------
M = "tests/malformed/"
with open(path(*(D + "grey8.png").split("/")), "rb") as f:
    good_png = f.read()
put(M + "png-truncated.png", good_png[:len(good_png) // 2])
rows = b"".join(b"\0" + bytes(8) for _ in range(8))          # 8 x 8 of zeros
put(M + "png-lying-ihdr.png", png(struct.pack(">IIBBBBB", 4096, 4096, 8, 0, 0, 0, 0),
                                  zlib.compress(rows)))
put(M + "png-huge-claimed.png", png(struct.pack(">IIBBBBB", 2**31 - 1, 2**31 - 1, 16, 0, 0, 0, 0),
                                    zlib.compress(b"\0" * 64)))
put(M + "png-16bit-palette.png", png(struct.pack(">IIBBBBB", 4, 4, 16, 3, 0, 0, 0),
                                     zlib.compress(b"\0" * 40), chunk(b"PLTE", bytes(6))))
Image.fromarray(np.zeros((4, 4, 3), np.uint8), mode="RGB").save(path(*(M + "png-rgb.png").split("/")))
bad = bytearray(good_png)
bad[good_png.find(b"IDAT") + 8] ^= 0xFF                     # a damaged IDAT: CRC mismatch
put(M + "png-bad-crc.png", bytes(bad))
tifffile.imwrite(path(*(M + "tiff-3-channels.tif").split("/")), np.zeros((4, 4, 3), np.uint8),
                 photometric="rgb")
with open(path(*(D + "strips-u16.tif").split("/")), "rb") as f:
    good_tif = f.read()
put(M + "tiff-truncated.tif", good_tif[:40])
put(M + "tiff-not-a-tiff.tif", b"II*\0" + b"\xff" * 12)
nii = bytearray(nib.Nifti1Image(np.zeros((4, 4, 4), np.uint8), np.eye(4)).to_bytes())
struct.pack_into("<h", nii, 40 + 2 * 2, -5)                 # dim[2] = -5
put(M + "nifti-negative-dim.nii", bytes(nii))
# a .nii.gz bomb: a header claiming 32767^3 int16 voxels, then 64 MiB of zeros
# that gzip packs into 64 KiB; memory must not follow the claim
bomb = bytearray(nib.Nifti1Image(np.zeros((1, 1, 1), np.int16), np.eye(4)).to_bytes()[:352])
struct.pack_into("<4h", bomb, 40, 3, 32767, 32767, 32767)
z = zlib.compressobj(9, zlib.DEFLATED, 31)
gz = z.compress(bytes(bomb)) + b"".join(z.compress(bytes(1 << 20)) for _ in range(64)) + z.flush()
put(M + "nifti-gz-bomb.nii.gz", gz)
nii = bytearray(nib.Nifti1Image(np.zeros((4, 4, 4), np.uint8), np.eye(4)).to_bytes())
put(M + "nifti-truncated.nii", bytes(nii[:352 + 10]))
struct.pack_into("<h", nii, 70, 128)                        # DT_RGB24
struct.pack_into("<h", nii, 72, 24)
put(M + "nifti-rgb.nii", bytes(nii))
# a TIFF whose tags claim 65535 x 65535 uint8 pixels in one strip stored with
# no bytes: libtiff would fill it with zeros (a sparse file) from 122 bytes
tags = [(256, 4, 65535), (257, 4, 65535), (258, 3, 8), (259, 3, 1), (262, 3, 1),
        (273, 4, 8), (277, 3, 1), (278, 4, 65535), (279, 4, 0)]
ifd = struct.pack("<H", len(tags)) + b"".join(
    struct.pack("<HHI", t, typ, 1) + (struct.pack("<HH", v, 0) if typ == 3 else struct.pack("<I", v))
    for t, typ, v in tags) + struct.pack("<I", 0)
put(M + "tiff-sparse-claim.tif", b"II*\0" + struct.pack("<I", 8) + ifd)

# a Pascal VOC-like 512 x 512 mask: a few objects of large smooth regions,
# each with a 5-pixel 255 boundary, about 3 KB (tests/readers/masks.sh copies it into
# folders to count what each further image costs)
r29 = np.random.default_rng(29)
yy, xx = np.mgrid[0:512, 0:512]
voc = np.zeros((512, 512), np.uint8)
for _ in range(3):
    cy, cx = r29.integers(128, 384, 2)
    ry, rx = r29.integers(40, 140, 2)
    dist = np.sqrt(((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2)
    dist *= 1 + 0.08 * np.sin(np.arctan2(yy - cy, xx - cx) * r29.integers(3, 9) + r29.uniform(0, 6.3))
    voc[dist <= 1.0 + 5.0 / min(ry, rx)] = 255
    voc[dist <= 1.0] = r29.integers(1, 21)
save_palette_png(D + "voc512.png", voc)
