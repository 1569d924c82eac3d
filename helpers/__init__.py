"""Kurs darslari uchun yordamchilar.

Rasm va jadvallar (`diagramma`, `fig`, `show`) hamma darslarda ishlatiladi; darslarda o'rgatilib,
keyingi darslarda qayta ishlatiladigan kod o'z modulida turadi (`helpers.multihead`, ...).
"""

from helpers.jadval import show
from helpers.muhit import oqimlar_soni
from helpers.rasm import diagramma, fig, rasmlar_papkasi

__all__ = ["diagramma", "fig", "show", "oqimlar_soni", "rasmlar_papkasi"]
