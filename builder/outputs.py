"""What a reader sees in an executed notebook: each code cell's printed text, errors and images."""

import nbformat


def cell_output_text(cell) -> str:
    """A code cell's printed text: stdout/stderr streams and the text/plain of displayed values."""
    parts = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            parts.append(out["text"])
        elif out["output_type"] in ("execute_result", "display_data"):
            parts.append(out.get("data", {}).get("text/plain", ""))
            parts.append("\n")
        elif out["output_type"] == "error":
            parts.append("\n".join(out.get("traceback", [])))
    return "".join(parts)


def output_text(nb: nbformat.NotebookNode) -> str:
    """All code cells' output text, in order (the lines a reader compares with the seed)."""
    return "\n".join(cell_output_text(c) for c in nb.cells if c.cell_type == "code")


def errors(nb: nbformat.NotebookNode) -> list[str]:
    """Error outputs (tracebacks) left in an executed notebook."""
    return [
        f"{out.get('ename')}: {out.get('evalue')}"
        for c in nb.cells if c.cell_type == "code"
        for out in c.get("outputs", []) if out["output_type"] == "error"
    ]


def images(nb: nbformat.NotebookNode) -> int:
    """How many PNG images the notebook displays."""
    return sum(
        "image/png" in out.get("data", {})
        for c in nb.cells if c.cell_type == "code"
        for out in c.get("outputs", []) if out["output_type"] in ("display_data", "execute_result")
    )
