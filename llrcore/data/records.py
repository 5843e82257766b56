"""A result as one row of a table: the ``to_frame()`` of the results whose fields are the row itself."""
from __future__ import annotations

import dataclasses
import numbers

import pandas as pd

__all__ = ["one_row"]


def one_row(result, *, columns: dict[str, str] | None = None) -> pd.DataFrame:
    """A one-row DataFrame of the fields of the dataclass `result` that are numbers, strings or booleans, in field
    order (arrays, tables and nested results are left out: they have tables of their own).

    Parameters
    ----------
    result : dataclass instance
    columns : dict, optional
        ``{field: column}`` for the fields whose column name says more than the field's (a unit, a paper's spelling).

    Returns
    -------
    DataFrame
        One row.
    """
    columns = columns or {}
    row = {columns.get(f.name, f.name): getattr(result, f.name) for f in dataclasses.fields(result)
           if isinstance(getattr(result, f.name), (numbers.Number, str))}
    return pd.DataFrame([row])
