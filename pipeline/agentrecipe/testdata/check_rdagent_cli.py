"""Parses an `rdagent ...` command line with a Typer app whose data_science
command has the signature of rdagent v0.8.0's data_science entry point
(microsoft/RD-Agent commit 274e274d5dbb72cc2ea139d1a7c93d73ce9b1198,
rdagent/app/data_science/loop.py main(), registered in rdagent/app/cli.py as
app.command(name="data_science")). Written for rexmle from that signature.
Prints the parsed parameters as JSON; exits non-zero when Typer rejects them.

usage: python3 check_rdagent_cli.py rdagent data_science ARG...
"""
import json
import sys
from typing import Optional

import typer

app = typer.Typer()


def data_science(
    path: Optional[str] = None,
    checkout: bool = True,
    checkout_path: Optional[str] = None,
    step_n: Optional[int] = None,
    loop_n: Optional[int] = None,
    timeout: Optional[str] = None,
    competition="bms-molecular-translation",
    replace_timer=True,
    exp_gen_cls: Optional[str] = None,
):
    print(json.dumps({"path": path, "checkout": checkout, "checkout_path": checkout_path, "step_n": step_n,
                      "loop_n": loop_n, "timeout": timeout, "competition": competition,
                      "replace_timer": replace_timer, "exp_gen_cls": exp_gen_cls}))


def health_check():
    pass


app.command(name="data_science")(data_science)
app.command(name="health_check")(health_check)

if sys.argv[1] != "rdagent":
    sys.exit("want the rdagent executable first, got %r" % sys.argv[1])
sys.argv = sys.argv[1:]
app(prog_name="rdagent")
