"""The mechdae command line.

    mechdae --version
    mechdae lcp FILE [--method lemke|pgs|...]     solve an LCP stored in a text file
    mechdae run MODEL.py [--t-final T] [--plot out.png] [--out run.h5] [--animate out.gif]
    mechdae regions MODEL.py [--f 0.5] [--out map.png]   impact outcome map (seed 000)
    mechdae sweep MODEL.py -p name=lo:hi:n ... [--out results.parquet]   parameter sweep

`mechdae COMMAND --help` describes each command.
"""
import argparse
import importlib
import sys

from ._version import __version__

#: Subcommand modules (relative to this package), in the order of the help. Each defines
#: ``add_parser(subparsers)``, which registers its parser and sets ``func(args) -> int``.
SUBCOMMANDS = (".lcp._cli", ".simulate._cli", ".contact._cli", ".sweep._cli")


def _unavailable(sub, module, exc):
    """A subcommand whose module cannot be imported reports why when it is used."""
    name = module.split(".")[1]
    name = {"simulate": "run", "contact": "regions"}.get(name, name)
    p = sub.add_parser(name, help=f"(unavailable: {exc})")

    def fail(args):
        raise ImportError(f"'mechdae {name}' is unavailable: {exc}")
    p.set_defaults(func=fail)


def _parser():
    doc = __doc__.split("\n\n")
    p = argparse.ArgumentParser(prog="mechdae", description=doc[0],
                                epilog="\n\n".join(doc[1:]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"mechdae {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS:
        try:
            mod = importlib.import_module(module, __package__)
        except ImportError as exc:
            _unavailable(sub, module, exc)
            continue
        mod.add_parser(sub)
    for parser in sub.choices.values():
        _plain(parser)
    return p


def _plain(parser):
    """Help as plain text: RST literals (double backticks) in descriptions, epilogs and
    option help, from the modules' docstrings, printed without their markup."""
    for attr in ("description", "epilog"):
        text = getattr(parser, attr)
        if text:
            setattr(parser, attr, text.replace("``", ""))
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            action.help = action.help.replace("``", "")


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError, ImportError) as exc:
        print(f"mechdae {args.command}: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
