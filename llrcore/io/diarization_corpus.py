"""Read a diarization corpus: similarity matrices, each with the RTTM reference of the same name.

A folder holds ``<recording>.npz`` (the matrix with arrays ``start`` and ``end``, see
:func:`~llrcore.io.diarization.read_similarity`) beside ``<recording>.rttm``; other files (an index, a
``SOURCE.txt``, sub-folders) are left alone. The same pairs may come as a list of files (paths, or uploaded files
with a ``.name``): RTTMs are matched with matrices by their stem, and a matrix path given without its RTTM takes the
one beside it on disk.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..data.similarity import SimilarityMatrix
from ._source import LoadError, Source
from .diarization import read_similarity

__all__ = ["read_corpus"]


def _name(source) -> str:
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    name = getattr(source, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError("Every file of a corpus needs a name (a path, or a file object with .name) to be paired.")
    return name


def _stem(name: str) -> str:
    base = Path(name).name
    return Path(base[:-3] if base.lower().endswith(".gz") else base).stem


def _is_rttm(name: str) -> bool:
    return name.lower().removesuffix(".gz").endswith(".rttm")


def read_corpus(source: Source | Iterable[Source]) -> tuple[SimilarityMatrix, ...]:
    """Every similarity matrix of a corpus with its reference turns, in the order of the names.

    Parameters
    ----------
    source : path, or iterable of paths / file objects
        A folder (each ``*.npz`` with the ``.rttm`` of the same stem), or files: matrices and RTTMs paired by
        stem (a folder among them counts as all its pairs).

    Returns
    -------
    tuple of SimilarityMatrix
        Read by ``read_similarity(matrix, reference=rttm)``: segment times, reference labels and turns.

    Raises
    ------
    LoadError
        Naming the matrix whose RTTM is missing, an RTTM without a matrix, two files of the same recording, or
        any problem of a file (see :func:`~llrcore.read_similarity`, :func:`~llrcore.read_rttm`).
    """
    sources = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    matrices: dict[str, Source] = {}
    references: dict[str, Source] = {}
    for item in sources:
        name = _name(item)
        if isinstance(item, (str, os.PathLike)) and not Path(item).exists():
            raise LoadError("there is no such file or folder.", name)
        if isinstance(item, (str, os.PathLike)) and Path(item).is_dir():
            found = sorted(Path(item).glob("*.npz"))
            if not found:
                raise LoadError("the folder holds no similarity matrix (.npz file).", name)
            for path in found:
                _add(matrices, _stem(path.name), path)
                rttm = path.with_suffix(".rttm")
                if rttm.is_file():
                    _add(references, _stem(path.name), rttm)
            continue
        _add(references if _is_rttm(name) else matrices, _stem(name), item)
    for stem in sorted(set(references) - set(matrices)):
        raise LoadError("there is no similarity matrix of the same name for this RTTM.", _name(references[stem]))
    if not matrices:
        raise ValueError("There are no similarity matrices to read.")
    corpus = []
    for stem in sorted(matrices):
        matrix = matrices[stem]
        reference = references.get(stem)
        if reference is None and isinstance(matrix, (str, os.PathLike)):
            beside = Path(matrix).with_name(f"{stem}.rttm")
            reference = beside if beside.is_file() else None
        if reference is None:
            raise LoadError(f"its reference {stem}.rttm is missing: every recording of a corpus needs the RTTM of "
                            "the same name.", _name(matrix))
        corpus.append(read_similarity(matrix, reference=reference, name=stem))
    return tuple(corpus)


def _add(table: dict, stem: str, item) -> None:
    if stem in table and Path(_name(table[stem])) != Path(_name(item)):
        raise LoadError(f"two files are named {stem}; each recording needs one matrix and one RTTM.", _name(item))
    table[stem] = item
