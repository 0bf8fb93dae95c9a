#!/usr/bin/env python3
"""gen_layouts.py - write tests/data/layouts/: one small folder per layout that
labelaudit recognises without --format (src/layouts.c), each kept the way its
tool keeps it (committed; run again only to change them; make check needs
none of these libraries):

  yolo/        Ultralytics: images/{train,val} + labels/{train,val} + data.yaml
               (written with PyYAML as Ultralytics' dataset docs lay it out)
  nnunet/      nnU-Net v2 raw: imagesTr/X_0000.nii.gz, labelsTr/X.nii.gz (nibabel)
               and dataset.json from nnunetv2's own generate_dataset_json
  voc/         VOC2012: JPEGImages/*.jpg, SegmentationClass/*.png (palette, 255
               the border), Annotations/ and ImageSets/ beside (PIL)
  cityscapes/  leftImg8bit/train/CITY/*_leftImg8bit.png, gtFine/train/CITY/
               *_gtFine_{labelIds,color,instanceIds}.png + _polygons.json (PIL)
  ade20k/      ADEChallengeData2016: images/training/*.jpg,
               annotations/training/*.png (PIL, 0 = "other", 1..150)
  coco/        annotations/instances_{train,val}2017.json + train2017/ val2017/
  imagefolder/ torchvision ImageFolder: class folders of JPEG, WebP and BMP (PIL)
  jpegs/       a folder of JPEGs and nothing else: no layout, no labels

pip install pillow nibabel numpy pyyaml nnunetv2 (nnunetv2 --no-deps does)."""
import json, os, shutil

import nibabel as nib
import numpy as np
import yaml
from PIL import Image
from nnunetv2.dataset_conversion.generate_dataset_json import generate_dataset_json

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out = os.path.join(top, "tests", "data", "layouts")
rng = np.random.default_rng(44)


def path(*parts):
    p = os.path.join(out, *parts)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    return p


def rgb(h=8, w=8):
    return Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), "RGB")


def yolo():
    names = ["person", "bicycle", "car"]
    with open(path("yolo", "data.yaml"), "w") as f:
        yaml.safe_dump({"path": ".", "train": "images/train", "val": "images/val",
                        "nc": len(names), "names": names}, f, sort_keys=False)
    rows = {"train": [["0 0.5 0.5 0.2 0.2", "2 0.3 0.6 0.1 0.2"], ["1 0.4 0.4 0.3 0.3"]],
            "val": [["3 0.5 0.5 0.2 0.2"]]}      # class 3 of nc 3: out of range
    for split, files in rows.items():
        for k, lines in enumerate(files):
            rgb().save(path("yolo", "images", split, f"{split}{k}.jpg"))
            with open(path("yolo", "labels", split, f"{split}{k}.txt"), "w") as f:
                f.write("\n".join(lines) + "\n")


def nnunet():
    root = os.path.join(out, "nnunet")
    for case in range(2):
        seg = np.zeros((6, 6, 4), np.uint8)
        seg[1:3, 1:3, 1] = 1
        seg[3:5, 3:5, 2] = 2
        if case == 1:
            seg[5, 5, 3] = 3                     # no label 3 in dataset.json
        affine = np.diag([1.5, 1.5, 3.0, 1.0])
        img = rng.normal(size=seg.shape).astype(np.float32)
        nib.save(nib.Nifti1Image(img, affine), path("nnunet", "imagesTr", f"case_{case:03d}_0000.nii.gz"))
        nib.save(nib.Nifti1Image(seg, affine), path("nnunet", "labelsTr", f"case_{case:03d}.nii.gz"))
    generate_dataset_json(root, {0: "T2"}, {"background": 0, "edema": 1, "tumor": 2}, 2,
                          ".nii.gz", dataset_name="Dataset044_Layouts")


def voc_palette():
    pal = []
    for i in range(256):
        r = g = b = 0
        c = i
        for j in range(8):
            r |= ((c >> 0) & 1) << (7 - j)
            g |= ((c >> 1) & 1) << (7 - j)
            b |= ((c >> 2) & 1) << (7 - j)
            c >>= 3
        pal += [r, g, b]
    return pal


def voc():
    for k, name in enumerate(["2007_000032", "2007_000039"]):
        rgb(12, 16).save(path("voc", "JPEGImages", name + ".jpg"))
        m = np.zeros((12, 16), np.uint8)
        m[2:6, 3:9] = 15 if k == 0 else 21       # 21 of VOC's 21 classes: out of range
        m[2, 3:9] = 255                          # the border VOC ignores
        im = Image.fromarray(m, "P")
        im.putpalette(voc_palette())
        im.save(path("voc", "SegmentationClass", name + ".png"))
        with open(path("voc", "Annotations", name + ".xml"), "w") as f:
            f.write(f"<annotation><filename>{name}.jpg</filename></annotation>\n")
    with open(path("voc", "ImageSets", "Segmentation", "train.txt"), "w") as f:
        f.write("2007_000032\n2007_000039\n")


def cityscapes():
    stem = "aachen_000000_000019"
    rgb(8, 16).save(path("cityscapes", "leftImg8bit", "train", "aachen", stem + "_leftImg8bit.png"))
    ids = np.full((8, 16), 7, np.uint8)          # road
    ids[:2] = 23                                 # sky
    ids[7, 15] = 40                              # past Cityscapes' 34 label ids
    base = path("cityscapes", "gtFine", "train", "aachen", stem + "_gtFine_")
    Image.fromarray(ids, "L").save(base + "labelIds.png")
    rgb(8, 16).save(base + "color.png")          # RGB: not what training reads
    Image.fromarray((ids.astype(np.int32) * 1000), "I").save(base + "instanceIds.png")
    with open(base + "polygons.json", "w") as f:
        json.dump({"imgHeight": 8, "imgWidth": 16, "objects": []}, f)


def ade20k():
    for k in range(2):
        name = f"ADE_train_{k + 1:08d}"
        rgb().save(path("ade20k", "images", "training", name + ".jpg"))
        m = rng.integers(0, 151, (8, 8), dtype=np.uint8)
        Image.fromarray(m, "L").save(path("ade20k", "annotations", "training", name + ".png"))


def coco():
    for split, cats in [("train2017", [1, 3]), ("val2017", [1, 91])]:
        images = [{"id": 1, "file_name": "000000000001.jpg", "width": 8, "height": 8}]
        rgb().save(path("coco", split, "000000000001.jpg"))
        anns = [{"id": i + 1, "image_id": 1, "category_id": c, "bbox": [1, 1, 3, 3],
                 "area": 9, "iscrowd": 0} for i, c in enumerate(cats)]
        doc = {"images": images, "annotations": anns,
               "categories": [{"id": 1, "name": "person"}, {"id": 3, "name": "car"}]}
        with open(path("coco", "annotations", f"instances_{split}.json"), "w") as f:
            json.dump(doc, f)


def imagefolder():
    rgb().save(path("imagefolder", "cat", "cat_1.jpg"))
    rgb().save(path("imagefolder", "cat", "cat_2.webp"), "WEBP")
    rgb().save(path("imagefolder", "dog", "dog_1.bmp"))
    rgb().save(path("imagefolder", "dog", "dog_2.JPEG"), "JPEG")


def jpegs():
    for k in range(3):
        rgb().save(path("jpegs", f"img_{k}.jpg"))


if __name__ == "__main__":
    shutil.rmtree(out, ignore_errors=True)
    for make in (yolo, nnunet, voc, cityscapes, ade20k, coco, imagefolder, jpegs):
        make()
