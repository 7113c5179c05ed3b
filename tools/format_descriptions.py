#!/usr/bin/env python3
"""Rewrites data/architectures/*.json in the house layout: objects indented by two,
a list of scalars (or of short scalar lists) on one line, a tensor rule on one line
when it has no children. Keeps key order. Usage: tools/format_descriptions.py [files]"""
import collections, glob, json, sys


def flat(v):
    return json.dumps(v, ensure_ascii=False, separators=(", ", ": "))


def inline(v):
    if isinstance(v, list):
        return all(not isinstance(x, (dict, list)) or (isinstance(x, list) and inline(x)) for x in v)
    if isinstance(v, dict):
        return "tensors" not in v and all(not isinstance(x, dict) for x in v.values())
    return True


def dump(v, indent=0):
    pad = "  " * (indent + 1)
    if isinstance(v, dict):
        if not v:
            return "{}"
        items = [pad + json.dumps(k) + ": " + dump(x, indent + 1)
                 for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(v, list):
        if inline(v) and len(flat(v)) < 100:
            return flat(v)
        items = [pad + (flat(x) if inline(x) else dump(x, indent + 1)) for x in v]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    return flat(v)


for path in sys.argv[1:] or sorted(glob.glob("data/architectures/*.json")):
    doc = json.load(open(path), object_pairs_hook=collections.OrderedDict)
    open(path, "w").write(dump(doc) + "\n")
