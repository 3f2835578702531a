"""Parses an agent's key=value arguments the way aideml and ML-Master do:
OmegaConf.merge(defaults, from_cli(args)), then a merge into the structured
config built from the schema (unknown keys and wrong types fail there), then
resolution of interpolations. Prints the resolved config as JSON.

usage: python3 check_omegaconf.py SCHEMA.json ARG...   (exit 2 on rejection)
"""
import dataclasses
import json
import pathlib
import sys
import typing

from omegaconf import OmegaConf

# "list" is a bare `list` annotation in ML-Master's dataclasses; OmegaConf 2.3
# (its pinned version) takes it as List[Any], which is what older OmegaConf
# needs spelled out.
TYPES = {"int": int, "float": float, "bool": bool, "str": str, "path": pathlib.Path, "list": typing.List[typing.Any]}


def make(name, fields):
    spec = []
    for key, t in fields.items():
        if isinstance(t, dict):
            spec.append((key, make(name + "_" + key, t)))
            continue
        opt = t.endswith("?")
        base = TYPES[t.rstrip("?")]
        spec.append((key, typing.Optional[base] if opt else base))
    return dataclasses.make_dataclass(name, spec)


def main():
    doc = json.load(open(sys.argv[1]))
    schema = OmegaConf.structured(make("Config", doc["schema"]))
    try:
        cfg = OmegaConf.merge(OmegaConf.create(doc["defaults"]), OmegaConf.from_dotlist(sys.argv[2:]))
        cfg = OmegaConf.merge(schema, cfg)
        out = OmegaConf.to_container(cfg, resolve=True)
    except Exception as err:  # OmegaConf's errors: the agent would stop here
        print("REJECTED: %s: %s" % (type(err).__name__, err), file=sys.stderr)
        sys.exit(2)
    print(json.dumps(out, default=str))


main()
