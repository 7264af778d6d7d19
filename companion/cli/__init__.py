"""The ``phase10`` command line.

Each area of the project registers its own subcommands from a module of this package
(``rules``: check, hit, score, advise, phases; ``web``: serve; ``vision``: detect, train; ``deck``: deck teach,
deck list, deck remove). A module exposes
``register(subparsers)`` and imports nothing heavy at module level, so the command starts fast.
Exit status: 0 valid/legal/done, 1 not valid/illegal, 2 bad input (message on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

AREAS = ("companion.cli.rules", "companion.cli.web", "companion.cli.vision", "companion.cli.deck")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="phase10", description="Phase 10 Companion: referee, score keeper, camera."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in AREAS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
