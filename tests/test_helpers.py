"""helpers: diagramma, fig, show — real PNGs, readable text, clear errors."""

import struct

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from helpers import diagramma, fig, oqimlar_soni, show
from helpers.rasm import TURLAR

QUTILAR = {
    "1-qadam": (0.2, 0.2, 1.3, 0.7, "manba"),
    "RNN zanjiri\nbosib o'tiladi": (0.2, 1.5, 4.7, 0.8, "xizmat"),
    "Attention": (0.2, 2.7, 4.7, 0.8, "qayta"),
}
BOGLANISHLAR = [("1-qadam", "RNN zanjiri\nbosib o'tiladi"), ("RNN zanjiri\nbosib o'tiladi", "Attention")]


@pytest.fixture(autouse=True)
def figures_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("KURS_RASMLAR", str(tmp_path / "rasmlar"))
    yield tmp_path / "rasmlar"
    plt.close("all")


def png_size(path):
    """Width and height from a PNG header; fails if the file is not a PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_diagramma_writes_a_real_png(figures_dir):
    assert diagramma(QUTILAR, BOGLANISHLAR, nom="sxema.png", izoh="izoh") is None  # no stray repr in a cell
    path = figures_dir / "sxema.png"
    width, height = png_size(path)
    assert width > 300 and height > 200
    assert path.stat().st_size > 5_000  # boxes, text and arrows, not an empty canvas


def test_diagramma_draws_every_box_colour(figures_dir):
    from PIL import Image

    diagramma(QUTILAR, BOGLANISHLAR, nom="ranglar.png")
    image = Image.open(figures_dir / "ranglar.png").convert("RGB")
    colours = {colour for _, colour in image.getcolors(maxcolors=1 << 20)}
    for fill, _ in TURLAR.values():
        rgb = tuple(int(fill[i:i + 2], 16) for i in (1, 3, 5))
        assert rgb in colours, f"box fill {fill} missing from the picture"


def test_fig_saves_current_figure_and_closes_it(figures_dir):
    plt.subplots()
    plt.plot([0, 1, 2], [0, 1, 4])
    fig("egri", caption="Egri chiziq")
    path = figures_dir / "egri.png"
    assert png_size(path)[0] > 200
    assert not plt.get_fignums()


def test_figures_default_beside_the_notebook(tmp_path, monkeypatch):
    monkeypatch.delenv("KURS_RASMLAR")
    monkeypatch.chdir(tmp_path)
    plt.subplots()
    fig("joy.png")
    assert (tmp_path / "rasmlar" / "joy.png").is_file()


def test_fig_without_open_figure_is_a_clear_error():
    plt.close("all")
    with pytest.raises(RuntimeError, match="ochiq rasm yo'q"):
        fig("bosh.png")


def test_diagramma_unknown_box_in_edge_names_it():
    with pytest.raises(ValueError, match="'Mavjud emas'"):
        diagramma(QUTILAR, [("1-qadam", "Mavjud emas")], nom="x.png")


def test_diagramma_unknown_turi_names_it():
    with pytest.raises(ValueError, match="'kok'"):
        diagramma({"A": (0, 0, 1, 1, "kok")}, [], nom="x.png")


@pytest.mark.parametrize("nom", ["", "papka/x.png", None])
def test_bad_figure_name(nom):
    plt.subplots()
    with pytest.raises(ValueError, match="rasm nomi"):
        fig(nom)


def test_show_prints_aligned_text_outside_jupyter(capsys):
    show(pd.DataFrame([{"model": "RNN", "aniqlik": 0.5}, {"model": "attention", "aniqlik": 1.0}]))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["model", "aniqlik"]
    assert lines[2].split() == ["attention", "1.0"]
    assert len({len(line) for line in lines}) == 1  # columns aligned: every line the same width


def test_show_html_in_jupyter():
    from helpers.jadval import _Jadval

    html = _Jadval(pd.DataFrame([{"a": 1}]))._repr_html_()
    assert "<table" in html and "<th>a</th>" in html


def test_show_rejects_non_dataframe():
    with pytest.raises(TypeError, match="DataFrame kutadi, lekin list berildi"):
        show([1, 2])


def test_thread_count_from_environment(monkeypatch):
    monkeypatch.setenv("KURS_OQIMLAR", "3")
    assert oqimlar_soni() == 3
    monkeypatch.setenv("KURS_OQIMLAR", "nol")
    with pytest.raises(ValueError, match="KURS_OQIMLAR"):
        oqimlar_soni()
