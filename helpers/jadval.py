"""Jadvallarni ko'rsatish: Jupyter da HTML, terminal va papermill jurnalida tekis matn."""

import pandas as pd


class _Jadval:
    """DataFrame ni indekssiz, qisqartirmasdan ko'rsatadigan o'rovchi (HTML va matn ko'rinishi bilan)."""

    def __init__(self, df: pd.DataFrame):
        self.df = df

    def _repr_html_(self) -> str:
        return self.df.to_html(index=False, border=0, classes="kurs-jadval")

    def __repr__(self) -> str:
        return self.df.to_string(index=False)


def show(df: pd.DataFrame) -> None:
    """DataFrame ni chiroyli ko'rsatadi: Jupyter da jadval, boshqa joyda tekislangan matn.

    Dars: notebooks/01_attention_asoslari.ipynb (birinchi ishlatilishi).
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"show() pandas.DataFrame kutadi, lekin {type(df).__name__} berildi")
    jadval = _Jadval(df)
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        print(repr(jadval))
        return
    if get_ipython() is None:
        print(repr(jadval))
    else:
        display(jadval)
