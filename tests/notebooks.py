"""Reading executed notebooks in tests (one definition, in builder.outputs)."""

from builder.outputs import cell_output_text, errors, images, output_text

__all__ = ["cell_output_text", "errors", "images", "output_text"]
