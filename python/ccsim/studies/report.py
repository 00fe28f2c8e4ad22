"""Study reports: one self-contained HTML page (figures embedded as data
URIs, no network needed) and a Markdown twin that links the PNG files; an
index page for ``ccsim study all``."""

from __future__ import annotations

import base64
import html
import json
import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import _core
from .base import VERDICTS, Figure, Study, StudyData, StudyOutcome, Verdict, fmt
from .counterfactual import text as counterfactual_text
from .full_size import load as load_full_size
from .full_size import text as full_size_text

# The column of claims that are reproduced or whose shortfall has a measured reason.
ACCOUNTED = "reproduced or measured reason"

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;width:100%;margin:.6em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:.35em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.v-reproduced{background:#e3f4e3;font-weight:600}td.v-partly{background:#fff4d6;font-weight:600}
td.v-not{background:#fbe1e1;font-weight:600}
figure{margin:1.2em 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:.9em;color:#444}
.meta{color:#555;font-size:.92em}code{background:#f5f5f5;padding:0 .2em}
"""


def _vclass(v: str) -> str:
    return {"reproduced": "v-reproduced", "partly": "v-partly"}.get(v, "v-not")


def _measured_text(m: dict[str, Any]) -> str:
    return "; ".join(f"{k} = {fmt(v) if isinstance(v, float) else v}" for k, v in m.items())


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _caption(f: Figure) -> str:
    """A figure's caption, saying which claims' paper values it draws."""
    if not f.paper:
        return f.caption
    return f"{f.caption} Black dots and stars: the paper's own values ({', '.join(f.paper)})."


def claim_figures(claim_id: str, figures: Sequence[Figure]) -> list[Figure]:
    """The figures whose caption names the claim's section: 'W4a' and 'W4b'
    are shown by a figure captioned 'W4 (paper Figs 27–30) ...'."""
    import re

    m = re.match(r"([A-Za-z]+\d+)", claim_id)
    if not m:
        return []
    pat = re.compile(r"(?<![A-Za-z0-9])" + re.escape(m.group(1)) + r"(?![0-9])", re.I)
    return [
        f
        for f in figures
        if claim_id in f.paper or pat.search(f.caption.split(":")[0]) or pat.search(f.file.split("_")[0])
    ]


def _anchor(f: Figure) -> str:
    return "fig-" + f.file.rsplit(".", 1)[0]


# what a points run's report says where figures would be (runner.py draws none)
NO_FIGURES = (
    "None: a points run holds only the experiments some claims read, and the study's figures need them all; "
    "the quick and full reports draw them."
)


def write_report(
    study: Study,
    data: StudyData,
    verdicts: list[Verdict],
    figures: Sequence[Figure],
    timing: dict[str, Any],
    root: Path,
) -> tuple[Path, Path]:
    """Write report.html and report.md into `root`; return their paths."""
    plan = data.plan
    counts = {v: sum(x.verdict == v for x in verdicts) for v in VERDICTS}
    claims = {c.id: c for c in study.claims()}
    seeds = plan.seeds
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
    meta = [
        ("ccsim version", f"{_core.__version__} (model version {_core.MODEL_VERSION})"),
        ("mode", f"{data.mode}: {plan.describe}"),
        ("seeds", ", ".join(map(str, seeds))),
        (
            "runs",
            f"{timing['runs']} ({timing['computed_now']} computed by this call, the rest read from the campaign store)",
        ),
        ("CPU time of this call", f"{timing['cpu_s']:.1f} s (this process and its worker processes)"),
        (
            "simulation CPU",
            f"{timing['run_cpu_s']:.1f} s: the core's CPU over every run of the study, "
            "including runs computed by earlier calls",
        ),
        ("wall time of this call", f"{timing['wall_s']:.1f} s"),
        ("written", f"{when} on {platform.node() or 'this machine'}, Python {platform.python_version()}"),
    ]
    summary = study.summary(verdicts)
    # beside a shorter mode's verdicts, what the paper's size gave (recorded runs, full_size.py)
    full = load_full_size() if data.mode not in ("full", "points") else None
    full_note = (
        " At full size: the verdict of the claim's experiments at the paper's size (--full, or --points: only "
        "the points the claim reads, marked 'its points only'), the model version of those runs and the day "
        "they ended; 'not run' where they have not been."
        if full is not None
        else ""
    )

    # ---- HTML
    h = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(study.title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{html.escape(study.title)}</h1>",
        f"<p class='meta'>Reproduction of {html.escape(study.reference)} ({html.escape(study.simulator)}) "
        f"with ccsim. Study <code>{study.name}</code>: <code>ccsim study {study.name} --{data.mode}</code></p>",
        "<nav><b>Contents</b>: <a href='#summary'>Summary</a> · <a href='#claims'>Claims</a> · "
        "<a href='#setup'>Set-up</a> · <a href='#choices'>Choices</a> · <a href='#figures'>Figures</a>"
        + (
            " ("
            + ", ".join(f"<a href='#{_anchor(f)}'>{html.escape(f.file.rsplit('.', 1)[0])}</a>" for f in figures)
            + ")"
            if figures
            else ""
        )
        + " · <a href='#run'>Run</a></nav>",
        f"<h2 id='summary'>Summary</h2><p>{html.escape(summary)}</p>",
        "<table><tr>"
        + "".join(f"<th>{v}</th>" for v in VERDICTS)
        + "</tr><tr>"
        + "".join(f"<td class='{_vclass(v)}'>{counts[v]}</td>" for v in VERDICTS)
        + "</tr></table>",
        "<h2 id='claims'>Claims</h2><p class='meta'>seeds: on how many of the seeds every check of the rule "
        "held (each check must hold pooled and on a clear majority of seeds for the claim to count as reproduced)"
        f"{full_note}</p><table><tr><th>id</th><th>the paper says</th><th>rule</th><th>verdict</th>"
        f"<th>seeds</th>{'<th>at full size</th>' if full is not None else ''}<th>measured and why</th></tr>",
    ]
    for v in verdicts:
        c = claims[v.claim]
        links = " ".join(
            f"<a href='#{_anchor(f)}'>figure {html.escape(f.file.rsplit('.', 1)[0])}</a>"
            for f in claim_figures(v.claim, figures)
        )
        h.append(
            f"<tr><td>{html.escape(v.claim)}</td><td>{html.escape(c.statement)}"
            + (f"<br><span class='meta'>The paper's numbers: {html.escape(c.paper_text())}</span>" if c.paper else "")
            + f"</td><td>{html.escape(c.rule_text())}</td>"
            f"<td class='{_vclass(v.verdict)}'>{v.verdict}</td><td>{html.escape(v.seeds_text())}</td>"
            + (f"<td>{html.escape(full_size_text(full.get((study.name, v.claim))))}</td>" if full is not None else "")
            + f"<td>{html.escape(v.reason)}<br><span class='meta'>{html.escape(_measured_text(v.measured))}</span>"
            f"<br><span class='meta'>{html.escape(counterfactual_text(v.counterfactual))}</span>"
            + (f"<br>{links}" if links else "")
            + "</td></tr>"
        )
    h.append("</table><h2 id='setup'>Set-up</h2><table><tr><th>parameter</th><th>value</th></tr>")
    for k, val in study.setup_rows(plan):
        h.append(f"<tr><td>{html.escape(k)}</td><td>{html.escape(val)}</td></tr>")
    h.append(
        "</table><h2 id='choices'>Choices (parameters the paper does not give)</h2>"
        "<table><tr><th>choice</th><th>value</th><th>why</th></tr>"
    )
    for ch in study.choices():
        note = " <em>(made after seeing results)</em>" if ch.after_results else ""
        h.append(
            f"<tr><td>{html.escape(ch.name)}</td><td>{html.escape(ch.value)}</td><td>{html.escape(ch.why)}{note}</td></tr>"
        )
    h.append("</table><h2 id='figures'>Figures</h2>")
    if plan.claims is not None:
        h.append(f"<p>{html.escape(NO_FIGURES)}</p>")
    for f in figures:
        b64 = base64.b64encode((root / "figures" / f.file).read_bytes()).decode("ascii")
        h.append(
            f"<figure id='{_anchor(f)}'><img alt='{html.escape(f.caption)}' src='data:image/png;base64,{b64}'>"
            f"<figcaption>{html.escape(_caption(f))}</figcaption></figure>"
        )
    h.append("<h2 id='run'>Run</h2><table>")
    for k, val in meta:
        h.append(f"<tr><th>{html.escape(k)}</th><td>{html.escape(val)}</td></tr>")
    h.append("</table></body></html>")
    html_path = root / "report.html"
    _atomic_write(html_path, "\n".join(h))

    # ---- Markdown twin
    def cell(s: str) -> str:
        return s.replace("|", "\\|").replace("\n", " ")

    m = [
        f"# {study.title}",
        "",
        f"Reproduction of {study.reference} ({study.simulator}) with ccsim: `ccsim study {study.name} --{data.mode}`.",
        "",
        "Contents: [Summary](#summary) · [Claims](#claims) · [Set-up](#set-up) · [Figures](#figures) · [Run](#run)",
        "",
        "## Summary",
        "",
        summary,
        "",
        "## Claims",
        "",
        "Seeds: on how many of the seeds every check of the rule held (each check must hold pooled and on a "
        f"clear majority of seeds for the claim to count as reproduced).{full_note}",
        "",
        f"| id | the paper says | rule | verdict | seeds |{' at full size |' if full is not None else ''} "
        "measured and why |",
        "|---|---|---|---|---|---|" + ("---|" if full is not None else ""),
    ]
    for v in verdicts:
        c = claims[v.claim]
        links = " ".join(
            f"[figure {f.file.rsplit('.', 1)[0]}](figures/{f.file})" for f in claim_figures(v.claim, figures)
        )
        m.append(
            f"| {cell(v.claim)} | {cell(c.statement)}"
            + (f" (the paper's numbers: {cell(c.paper_text())})" if c.paper else "")
            + f" | {cell(c.rule_text())} | **{v.verdict}** | {v.seeds_text()} | "
            + (f"{full_size_text(full.get((study.name, v.claim)))} | " if full is not None else "")
            + f"{cell(v.reason)} — {cell(_measured_text(v.measured))} — {cell(counterfactual_text(v.counterfactual))}"
            f"{' — ' + links if links else ''} |"
        )
    m += ["", "## Set-up", "", "| parameter | value |", "|---|---|"]
    m += [f"| {cell(k)} | {cell(val)} |" for k, val in study.setup_rows(plan)]
    m += ["", "## Choices (parameters the paper does not give)", "", "| choice | value | why |", "|---|---|---|"]
    m += [
        f"| {cell(ch.name)} | {cell(ch.value)} | {cell(ch.why)}"
        f"{' (made after seeing results)' if ch.after_results else ''} |"
        for ch in study.choices()
    ]
    m += ["", "## Figures", ""] + ([NO_FIGURES, ""] if plan.claims is not None else [])
    for f in figures:
        m += [f"![{f.caption}](figures/{f.file})", "", f"*{_caption(f)}*", ""]
    m += ["## Run", "", "| | |", "|---|---|"] + [f"| {k} | {cell(val)} |" for k, val in meta]
    md_path = root / "report.md"
    _atomic_write(md_path, "\n".join(m) + "\n")
    return html_path, md_path


def write_index(outcomes: Sequence[StudyOutcome], base: Path, mode: str) -> Path:
    """index.html (and index.md) in `base` linking every study's report."""
    base.mkdir(parents=True, exist_ok=True)
    rows_h, rows_m = [], []
    for o in outcomes:
        c = o.counts()
        rel = os.path.relpath(o.report_html, base)
        title = f"{o.title} ({o.cite})" if o.cite else o.title
        rows_h.append(
            f"<tr><td><a href='{html.escape(rel)}'>{html.escape(o.name)}</a></td><td>{html.escape(title)}</td>"
            + "".join(f"<td class='{_vclass(v)}'>{c[v]}</td>" for v in VERDICTS)
            + f"<td>{o.accounted()} of {len(o.verdicts)}</td>"
            + f"<td>{o.runs}</td><td>{o.cpu_s:.0f} s</td><td>{o.wall_s:.0f} s</td></tr>"
        )
        rows_m.append(
            f"| [{o.name}]({os.path.relpath(o.report_md, base)}) | {title} | "
            + " | ".join(str(c[v]) for v in VERDICTS)
            + f" | {o.accounted()} of {len(o.verdicts)} | {o.runs} | {o.cpu_s:.0f} s | {o.wall_s:.0f} s |"
        )
    head = (
        "<tr><th>study</th><th>paper</th>"
        + "".join(f"<th>{v}</th>" for v in VERDICTS)
        + f"<th>{ACCOUNTED}</th><th>runs</th><th>CPU</th><th>wall</th></tr>"
    )
    page = (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>ccsim studies ({mode})</title>"
        f"<style>{CSS}</style></head><body><h1>ccsim study reproductions ({html.escape(mode)})</h1>"
        f"<p class='meta'>ccsim {_core.__version__}, model version {_core.MODEL_VERSION}. Each report lists "
        f"the paper's claims, the rule that judges each, the numbers measured and the verdict.</p>"
        f"<table>{head}{''.join(rows_h)}</table></body></html>"
    )
    path = base / "index.html"
    _atomic_write(path, page)
    md = [
        "# ccsim study reproductions (" + mode + ")",
        "",
        "| study | paper | " + " | ".join(VERDICTS) + f" | {ACCOUNTED} | runs | CPU | wall |",
        "|---|---|" + "---|" * len(VERDICTS) + "---|---|---|---|",
    ] + rows_m
    total = sum(o.accounted() for o in outcomes)
    md += [
        "",
        f"{total} of {sum(len(o.verdicts) for o in outcomes)} claims reproduced or with a measured reason for "
        "their shortfall; every other shortfall's reason is marked 'not yet shown'.",
    ]
    _atomic_write(base / "index.md", "\n".join(md) + "\n")
    (base / "index.json").write_text(
        json.dumps(
            [
                {
                    "study": o.name,
                    "mode": o.mode,
                    **o.counts(),
                    "accounted": o.accounted(),
                    "runs": o.runs,
                    "cpu_s": o.cpu_s,
                    "wall_s": o.wall_s,
                }
                for o in outcomes
            ],
            indent=2,
        )
    )
    return path
