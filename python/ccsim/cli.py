"""Command line: ``ccsim run | plot | bench | list``.

Errors print one line (``ccsim: error: ...``) on stderr and exit with status 2.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from . import _core
from .errors import InternalError, ScenarioError


def _fmt_table(headers: list[str], rows: list[list]) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _print_summary(res) -> None:
    f = res.columns["flows"]
    rows = []
    for i in range(len(f["id"])):
        fct = float(f["fct_s"][i])
        rows.append([int(f["id"][i]), f["src"][i], f["dst"][i], f["cc"][i],
                     f"{f['goodput_bps'][i] / 1e6:.3f}", f"{f['throughput_bps'][i] / 1e6:.3f}",
                     int(f["retransmits"][i]), int(f["timeouts"][i]),
                     "-" if math.isnan(fct) else f"{fct:.3f}"])
    print(_fmt_table(["flow", "src", "dst", "cc", "goodput_Mbps", "throughput_Mbps", "retx", "timeouts", "fct_s"], rows))
    lk = res.columns["links"]
    idx = [i for i in range(len(lk["name"])) if lk["drops"][i] + lk["losses"][i] > 0 or lk["utilization"][i] > 0.01]
    idx = sorted(idx, key=lambda i: -lk["utilization"][i])[:10]
    print()
    print(_fmt_table(["link", "utilization", "drops", "losses", "max_queue_pkts"],
                     [[lk["name"][i], f"{lk['utilization'][i]:.4f}", int(lk["drops"][i]), int(lk["losses"][i]),
                       int(lk["max_queue_pkts"][i])] for i in idx]))
    print(f"\nsimulated {res.sim_time_s:g} s in {res.wall_time_s:.2f} s wall, {res.events_processed} events")


def cmd_run(a) -> int:
    from .plot import plot_dir
    from .scenario import Scenario

    sc = Scenario.from_file(a.file)
    if a.seed is not None:
        sc = sc.with_seed(a.seed)
    res = sc.run()
    out = Path(a.out) if a.out else Path("results") / Path(a.file).stem
    res.write(out)
    if not a.no_plots:
        plot_dir(out)
    if a.json:
        print(json.dumps(res.summary_json()))
    else:
        _print_summary(res)
        print(f"results written to {out}/")
    return 0


def cmd_plot(a) -> int:
    from .plot import plot_dir

    d = Path(a.dir)
    if not (d / "flow_series.parquet").exists():
        raise ScenarioError("DIR", message=f"{d}: no results here (flow_series.parquet missing); expected the --out folder of 'ccsim run'")
    for p in plot_dir(d):
        print(p)
    return 0


def cmd_bench(a) -> int:
    from .bench import run_bench

    rows = run_bench(repeat=a.repeat)
    if a.json:
        print(json.dumps({"scenarios": rows}))
    else:
        print(_fmt_table(["scenario", "delivered_pkts", "events", "cpu_s", "Mpkts_per_cpu_s", "Mevents_per_cpu_s"],
                         [[r["name"], r["delivered_pkts"], r["events"], f"{r['cpu_s']:.3f}",
                           f"{r['pkts_per_cpu_s'] / 1e6:.2f}", f"{r['events_per_cpu_s'] / 1e6:.2f}"] for r in rows]))
    return 0


def cmd_list(a) -> int:
    from .netmodels import DIST_DOC, LOSS_DOC
    from .scenario import CODEL_DOC, PIE_DOC, QUEUE_KINDS, RED_DOC, TCP_DEFAULTS, TCP_DOC, TOPOLOGY_DOC
    from .traffic import APP_DOC

    what = a.what
    if what == "cc":
        from . import algorithms

        for name in _core.algorithms():
            print(algorithms.describe(name))
    elif what == "all":
        print("congestion control:", ", ".join(_core.algorithms()), "(details: ccsim list cc)")
    if what in ("tcp", "all"):
        print("tcp options (default):")
        for k, v in TCP_DEFAULTS.items():
            print(f"  {k} = {v!r}: {TCP_DOC[k]}")
    if what in ("topology", "all"):
        _print_kinds("topologies (topology = {kind = ..., options}):", TOPOLOGY_DOC)
    if what in ("queue", "all"):
        print("queues:", ", ".join(QUEUE_KINDS))
        _print_kinds(None, {
            "RED-family options (queue = {kind = \"red\", ...})": RED_DOC,
            "CoDel / FQ-CoDel options (queue = {kind = \"codel\" or \"fq_codel\", ...})": CODEL_DOC,
            "PIE options (queue = {kind = \"pie\", ...})": PIE_DOC,
        })
    if what in ("loss", "all"):
        _print_kinds("loss models (loss = {kind = ..., options}; each link direction has its own random stream):", LOSS_DOC)
    if what in ("traffic", "all"):
        _print_kinds("traffic (flow group: app = ..., options in the group):", APP_DOC)
        print("  every group: count, start (a time, a distribution or {spread = [a, b]}), stagger, label")
    if what in ("traffic", "loss", "all"):
        print("distributions (times or sizes):")
        for k, d in DIST_DOC.items():
            print(f"  {k}: {d}")
    return 0


def _print_kinds(title: str | None, docs: dict[str, dict[str, str]]) -> None:
    """Print kinds and their options: {kind: {option: meaning}}."""
    if title:
        print(title)
    for kind, opts in docs.items():
        print(f"  {kind}")
        for k, d in opts.items():
            print(f"    {k}: {d}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="ccsim", description="Packet-level simulator for TCP congestion-control research")
    p.add_argument("--version", action="version", version=f"ccsim {_core.__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run a scenario file")
    r.add_argument("file")
    r.add_argument("--out", help="output folder (default results/<file stem>)")
    r.add_argument("--seed", type=int, help="override sim.seed")
    r.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    r.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    r.set_defaults(fn=cmd_run)
    pl_ = sub.add_parser("plot", help="write PNG plots for a results folder")
    pl_.add_argument("dir")
    pl_.set_defaults(fn=cmd_plot)
    b = sub.add_parser("bench", help="run the reference speed scenarios")
    b.add_argument("--json", action="store_true")
    b.add_argument("--repeat", type=int, default=3, help="runs per scenario; the fastest counts")
    b.set_defaults(fn=cmd_bench)
    ls = sub.add_parser("list", help="list algorithms, options, topologies, queues, loss models, traffic")
    ls.add_argument("what", nargs="?", default="all", choices=["all", "cc", "tcp", "topology", "queue", "loss", "traffic"])
    ls.set_defaults(fn=cmd_list)

    a = p.parse_args(argv)
    try:
        return a.fn(a)
    except ScenarioError as e:
        print(f"ccsim: error: {e}", file=sys.stderr)
        return 2
    except InternalError as e:
        print(f"ccsim: internal error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"ccsim: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
