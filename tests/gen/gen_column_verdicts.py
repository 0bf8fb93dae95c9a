#!/usr/bin/env python3
"""gen_column_verdicts.py - every column a model indexes, against the model
itself (issue 43): for each model family, a tiny randomly-initialised model
built from its config (1 layer, hidden size 8, vocabulary 50, a position
table of 16; nothing downloaded), run forward on the CPU on every row of a
Parquet file written for it. The truth tests/readers/columns.sh holds
labelaudit to: a row is an error exactly when that forward pass raises.

    python3 tests/gen/gen_column_verdicts.py        # from the top of the tree

Writes tests/data/columns/:
  FAMILY/config.json   the config transformers writes (save_pretrained)
  FAMILY.parquet       input_ids, attention_mask and labels, one case a row
  FAMILY-extra.parquet the same with token_type_ids and position_ids, where
                       the family's forward() takes them
  verdicts.txt         "FILE ROW ok CASE" or "FILE ROW raises:ErrorType CASE"
  bert-tok/            the issue's example: a BERT token-classification
                       dataset (vocab 30522, 512 positions, 2 token types) with
                       a 602-token row, a token type 2 and labels one too long
and samples/lm-sft.parquet, the README's example for samples/lm-added (a
Llama of 100 ids, 2048 positions): an added token's id 101, labels one longer
than their input_ids, a row of 2100 tokens

Needs transformers and torch (the generator only; make check reads the
committed files): a venv with --system-site-packages over Debian's
python3-torch, pip install transformers==4.44.2 pyarrow==17.0.0.
"""
import inspect
import json
import os
import shutil
import warnings

import pyarrow as pa
import pyarrow.parquet as pq
import torch
import transformers
from transformers import (AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM,
                          AutoModelForTokenClassification)

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
torch.manual_seed(0)

OUT = "tests/data/columns"
V = 50          # vocab_size
P = 16          # the position table
SMALL = dict(vocab_size=V, num_hidden_layers=1, num_attention_heads=2, hidden_size=8,
             intermediate_size=16)

# family -> (head, config overrides); heads: tok (token classification),
# lm (causal language model), s2s (sequence to sequence)
FAMILIES = {
    "bert": ("tok", dict(max_position_embeddings=P, type_vocab_size=2)),
    "albert": ("tok", dict(max_position_embeddings=P, type_vocab_size=2, embedding_size=8)),
    "electra": ("tok", dict(max_position_embeddings=P, type_vocab_size=2, embedding_size=8)),
    "roberta": ("tok", dict(max_position_embeddings=P + 2, type_vocab_size=1, pad_token_id=1)),
    "xlm-roberta": ("tok", dict(max_position_embeddings=P + 2, type_vocab_size=1,
                                pad_token_id=1)),
    "distilbert": ("tok", dict(max_position_embeddings=P, n_layers=1, n_heads=2, dim=8,
                               hidden_dim=16)),
    "deberta-v2": ("tok", dict(max_position_embeddings=P, type_vocab_size=0,
                               position_biased_input=False, relative_attention=True,
                               pos_att_type=["p2c", "c2p"], position_buckets=4)),
    "gpt2": ("lm", dict(n_positions=P, n_embd=8, n_layer=1, n_head=2)),
    "gpt_neo": ("lm", dict(max_position_embeddings=P, num_layers=1, attention_types=[[["global"], 1]],
                           num_heads=2)),
    "gptj": ("lm", dict(n_positions=P, n_embd=8, n_layer=1, n_head=2, rotary_dim=4)),
    "opt": ("lm", dict(max_position_embeddings=P, ffn_dim=16, word_embed_proj_dim=8)),
    "bart": ("s2s", dict(max_position_embeddings=P, d_model=8, encoder_layers=1, decoder_layers=1,
                         encoder_attention_heads=2, decoder_attention_heads=2,
                         encoder_ffn_dim=16, decoder_ffn_dim=16)),
    "t5": ("s2s", dict(decoder_start_token_id=0, d_model=8, d_kv=4, d_ff=16, num_layers=1, num_decoder_layers=1, num_heads=2,
                       relative_attention_num_buckets=8)),
    "llama": ("lm", dict(max_position_embeddings=P, num_key_value_heads=2)),
    "mistral": ("lm", dict(max_position_embeddings=P, num_key_value_heads=2, sliding_window=None)),
    "qwen2": ("lm", dict(max_position_embeddings=P, num_key_value_heads=2)),
    "gemma": ("lm", dict(max_position_embeddings=P, num_key_value_heads=2, head_dim=4)),
    "phi": ("lm", dict(max_position_embeddings=P)),
}
HEADS = {"tok": AutoModelForTokenClassification, "lm": AutoModelForCausalLM,
         "s2s": AutoModelForSeq2SeqLM}


def ids(n, start=3):
    return [start + i % (V - 4) for i in range(n)]


def cases(head, family, config):
    """(name, row) pairs: each row a dict of the columns it has."""
    out = []

    def row(n, **cols):
        r = {"input_ids": ids(n), "attention_mask": [1] * n}
        if head == "tok":
            r["labels"] = [i % 3 for i in range(n)]
        elif head == "lm":
            r["labels"] = list(r["input_ids"])
        else:
            r["labels"] = ids(6, 5)
        r.update(cols)
        return r

    out.append(("short", row(8)))
    out.append(("at-limit", row(P)))
    out.append(("past-limit", row(P + 1)))
    out.append(("long", row(2 * P + 3)))
    bad = row(8)
    bad["input_ids"][2] = V
    if head == "lm":
        bad["labels"][2] = -100
    out.append(("id-past-vocab", bad))
    neg = row(8)
    neg["input_ids"][1] = -1
    if head == "lm":
        neg["labels"][1] = -100
    out.append(("negative-id", neg))
    longer = row(8)
    longer["labels"] = longer["labels"] + [longer["labels"][0]]
    out.append(("labels-longer", longer))
    mask2 = row(8)
    mask2["attention_mask"][3] = 2
    out.append(("mask-2", mask2))
    shorter_mask = row(8)
    shorter_mask["attention_mask"] = [1] * 7
    out.append(("mask-shorter", shorter_mask))
    if head == "s2s":
        long_labels = row(8)
        long_labels["labels"] = ids(P + 1, 5)
        out.append(("labels-past-limit", long_labels))
    return out


def wants(model, name):
    return name in inspect.signature(model.forward).parameters


def extra_cases(family, model, plain):
    """The rows of FAMILY-extra.parquet: token_type_ids and position_ids given,
    where forward() takes them (given, they replace the model's own)."""
    out = []
    types = wants(model, "token_type_ids")
    positions = wants(model, "position_ids")
    if not (types or positions):
        return out

    def row(base, **cols):
        r = dict(base)
        n = len(r["input_ids"])
        if types:
            r["token_type_ids"] = [0] * n
        if positions:
            r["position_ids"] = list(range(n))
        r.update(cols)
        return r

    short = dict(plain[0][1])
    out.append(("short", row(short)))
    out.append(("past-limit", row(dict(plain[2][1]))))
    if types:
        bound = getattr(model.config, "type_vocab_size", None)
        bad = row(short)
        # the table token types index: their own, or (GPT-2) the words'
        bad["token_type_ids"] = list(bad["token_type_ids"])
        bad["token_type_ids"][2] = bound if bound else V
        out.append(("type-past-table", bad))
        if bound:
            out.append(("type-last", row(short, token_type_ids=[bound - 1] * 8)))
    if positions:
        table = P + 2 if family in ("roberta", "xlm-roberta") else P
        bad = row(short)
        bad["position_ids"] = list(bad["position_ids"])
        bad["position_ids"][3] = table
        out.append(("position-past-table", bad))
        out.append(("position-last", row(short, position_ids=[table - 1] * 8)))
    if family in ("roberta", "xlm-roberta"):
        out.append(("padded-past-table", row(padded_row(), **({"position_ids": None}
                                                                if positions else {}))))
        out[-1][1].pop("position_ids", None)
    return out


def padded_row():
    """RoBERTa: 20 tokens, 8 of them pads (id 1): 12 positions from padding_idx + 1."""
    n = P - 4
    return {"input_ids": ids(n) + [1] * 8, "attention_mask": [1] * n + [0] * 8,
            "labels": [0] * n + [-100] * 8}


def verdict(model, row):
    inputs = {k: torch.tensor([v]) for k, v in row.items() if wants(model, k)}
    try:
        with torch.no_grad():
            model(**inputs)
        return "ok"
    except Exception as e:  # what the training step would die of
        return "raises:" + type(e).__name__


def write_rows(model, name, rows, verdicts):
    columns = sorted({k for _, r in rows for k in r})
    table = {k: [r.get(k) for _, r in rows] for k in columns}
    pq.write_table(pa.table({k: pa.array(v, pa.list_(pa.int64())) for k, v in table.items()}),
                   os.path.join(OUT, name + ".parquet"))
    for i, (case, r) in enumerate(rows):
        verdicts.append("%s %d %s %s" % (name, i, verdict(model, r), case))


def write_family(family, head, over, verdicts):
    params = dict(SMALL)
    params.update(over)
    config = AutoConfig.for_model(family, **params)
    if head == "tok":
        config.num_labels = 3
    model = HEADS[head].from_config(config)
    model.eval()
    d = os.path.join(OUT, family)
    os.makedirs(d)
    # model.save_pretrained writes architectures; the weights are not needed
    model.config.architectures = [type(model).__name__]
    model.config.save_pretrained(d)
    plain = cases(head, family, config)
    if family in ("roberta", "xlm-roberta"):
        plain.append(("padded-past-table", padded_row()))
    write_rows(model, family, plain, verdicts)
    extra = extra_cases(family, model, plain)
    if extra:
        write_rows(model, family + "-extra", extra, verdicts)


def write_bert_example():
    """The issue's BERT example: 602 tokens, a token type 2, labels one too long."""
    d = os.path.join(OUT, "bert-tok")
    os.makedirs(os.path.join(d, "bert"))
    config = AutoConfig.for_model("bert", num_labels=3, architectures=["BertForTokenClassification"],
                                  id2label={0: "O", 1: "B-PER", 2: "I-PER"},
                                  label2id={"O": 0, "B-PER": 1, "I-PER": 2})
    config.save_pretrained(os.path.join(d, "bert"))
    rows = []
    for i in range(6):
        n = 602 if i == 1 else 12
        rows.append({"input_ids": [101] + [2000 + i] * (n - 2) + [102],
                     "token_type_ids": [0] * n, "labels": [0] + [1, 2] * ((n - 2) // 2) + [0]})
    rows[3]["token_type_ids"][4] = 2
    rows[4]["labels"].append(0)
    pq.write_table(pa.table({k: pa.array([r[k] for r in rows], pa.list_(pa.int64()))
                             for k in ("input_ids", "token_type_ids", "labels")}),
                   os.path.join(d, "tok.parquet"))


def write_lm_sample():
    """samples/lm-sft.parquet: supervised fine-tuning rows for samples/lm-added."""
    rows = []
    for i, n in enumerate((24, 30, 2100, 18)):
        ids_ = [1] + [3 + (i + k) % 90 for k in range(n - 2)] + [2]
        rows.append({"input_ids": ids_, "attention_mask": [1] * n,
                     "labels": [-100] * 4 + ids_[4:]})
    rows[1]["input_ids"][7] = 101           # an added token, no embedding row
    rows[3]["labels"].append(2)             # one label more than input_ids
    pq.write_table(pa.table({k: pa.array([r[k] for r in rows], pa.list_(pa.int64()))
                             for k in ("input_ids", "attention_mask", "labels")}),
                   os.path.join(os.path.dirname(OUT), "..", "..", "samples", "lm-sft.parquet"))


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    verdicts = ["# FAMILY ROW VERDICT CASE: transformers %s, torch %s, a forward pass "
                "of each row (gen_column_verdicts.py)" % (transformers.__version__,
                                                           torch.__version__)]
    for family, (head, over) in FAMILIES.items():
        write_family(family, head, over, verdicts)
    write_bert_example()
    write_lm_sample()
    with open(os.path.join(OUT, "verdicts.txt"), "w") as f:
        f.write("\n".join(verdicts) + "\n")


if __name__ == "__main__":
    main()
