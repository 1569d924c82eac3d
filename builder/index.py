"""Write build/index.html: the executed lessons with their HTML, notebook and status."""

import html
import json
from pathlib import Path

from builder.execute import Run


def lesson_title(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return notebook.stem


def write_index(runs: list[Run], out_dir: Path) -> Path:
    rows = []
    for run in runs:
        status = "bajarildi" if run.ok else f"XATO: {html.escape(run.error or '')}"
        rows.append(
            f"<tr><td><a href='{run.html.name}'>{html.escape(lesson_title(run.source))}</a></td>"
            f"<td><a href='{run.executed.name}'>{run.executed.name}</a></td>"
            f"<td>{run.seconds:.0f} s</td><td>{status}</td></tr>"
        )
    page = (
        "<!doctype html><html lang='uz'><head><meta charset='utf-8'>"
        "<title>Attention kursi — darslar</title>"
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
        "td,th{padding:.3em .8em;text-align:left}</style></head><body>"
        "<h1>Attention va multi-head attention — bajarilgan darslar</h1>"
        "<table><tr><th>Dars</th><th>Daftar</th><th>Vaqt</th><th>Holat</th></tr>"
        + "".join(rows)
        + "</table></body></html>"
    )
    index = out_dir / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
