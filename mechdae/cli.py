"""The ``mechdae`` command line.

    mechdae --version
    mechdae lcp FILE [--method lemke|pgs|...]     solve an LCP stored in a text file
    mechdae run MODEL.py [--t-final T] [--plot out.png] [-p name=value ...]
    mechdae regions MODEL.py [--f 0.5] [--out map.png]   impact outcome map (seed 000)
    mechdae sweep MODEL.py -p name=lo:hi:n ... [--out results.parquet]   parameter sweep
"""
import argparse
import sys

from ._version import __version__


def _parser():
    p = argparse.ArgumentParser(prog="mechdae", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"mechdae {__version__}")
    sub = p.add_subparsers(dest="command")

    from .lcp import _cli as lcp_cli
    lcp_cli.add_parser(sub)
    try:
        from .simulate import _cli as run_cli
    except ImportError:  # modeling core not built yet
        run_cli = None
    if run_cli is not None:
        run_cli.add_parser(sub)
    from .contact import _cli as contact_cli
    contact_cli.add_parser(sub)
    from .sweep import _cli as sweep_cli
    sweep_cli.add_parser(sub)
    return p


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as exc:
        print(f"mechdae {args.command}: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
