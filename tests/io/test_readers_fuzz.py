"""Property: whatever bytes or table-like text a user gives them, the multiclass, similarity-matrix and RTTM
readers refuse it with a LoadError (or read it), never with any other exception."""
import io
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llrcore as lc

READERS = {"multiclass": lc.read_multiclass, "similarity": lc.read_similarity, "rttm": lc.read_rttm}
SUFFIXES = [".csv", ".txt", ".tsv", ".npz", ".npy", ".rttm", ".gz", ".parquet"]

cell = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-5, 5).map(str),
    st.sampled_from(["eng", "fre", "label", "SPEAKER", "<NA>", "nan", "", "-", "1e999", "spk1"]),
)
row = st.lists(cell, min_size=0, max_size=6).flatmap(
    lambda cells: st.sampled_from([",", "\t", " ", ";"]).map(lambda sep: sep.join(cells)))
table = st.lists(row, min_size=0, max_size=8).map(lambda rows: "\n".join(rows))


def _read(reader, data: bytes, name: str):
    source = io.BytesIO(data)
    source.name = name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an asymmetric matrix is read with a warning: that is fine
        try:
            READERS[reader](source)
        except lc.LoadError:
            pass


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=300), suffix=st.sampled_from(SUFFIXES))
def test_random_bytes_raise_only_loaderror(reader, data, suffix):
    _read(reader, data, "upload" + suffix)


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=table, suffix=st.sampled_from([".csv", ".txt", ".rttm"]))
def test_random_table_text_raises_only_loaderror(reader, text, suffix):
    _read(reader, text.encode(), "upload" + suffix)
