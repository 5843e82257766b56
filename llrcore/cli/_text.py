"""How the command line prints numbers: as the app shows them (:func:`llrcore.report.number`), so a Cllr of 5.77e305
is ``5.77e+305``, never a number of 306 digits."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def text_table(frame: pd.DataFrame, decimals: dict[str, int] | None = None, *, default: int = 4,
               na_rep: str = "-", **to_string) -> str:
    """`frame` as text, each float column with its `decimals` (``default`` for the others) by the app's rule.

    A missing value prints as `na_rep`; integer and text columns print as they are.
    """
    import pandas as pd

    from .._format import number

    decimals = decimals or {}

    def formatter(column: str):
        digits = decimals.get(column, default)
        return lambda v: na_rep if pd.isna(v) else number(v, digits)

    formatters = {column: formatter(column) for column in frame.columns if frame[column].dtype.kind == "f"}
    return frame.to_string(formatters=formatters, **to_string)
