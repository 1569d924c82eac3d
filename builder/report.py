"""build/reproduction.html and .md from the executed lessons."""

from pathlib import Path

import nbformat

from builder.claims import lesson01_claims
from builder.execute import Run
from builder.outputs import output_text
from builder.reproduction import compare_all, load_reference, write_html, write_markdown

REFERENCE = Path(__file__).resolve().parent.parent / "reference" / "seed_figures.json"


def write_reproduction_report(runs: list[Run], out_dir: Path) -> Path:
    outputs = {run.source.stem: output_text(nbformat.read(run.executed, as_version=4))
               for run in runs if run.executed.exists()}
    figures = compare_all(load_reference(REFERENCE), outputs)
    claims = lesson01_claims(outputs.get("01_attention_asoslari", ""))
    write_markdown(figures, claims, out_dir / "reproduction.md")
    return write_html(figures, claims, out_dir / "reproduction.html")
