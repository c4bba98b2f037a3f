"""Canonical JSON and digests: golden values pin them, properties keep them honest."""

from __future__ import annotations

import json
import math
from pathlib import Path

import blake3
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidence.core import hashing
from evidence.core.hashing import canonical_json, digest_bytes, digest_file, digest_json

json_scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8) \
    | st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                           max_leaves=20)


def test_golden_canonical_form() -> None:
    # Pinned by hand: sorted keys, no whitespace, repr floats, UTF-8 kept as is.
    assert canonical_json({"b": 1, "a": [1.5, "é", None, True]}) == \
        '{"a":[1.5,"é",null,true],"b":1}'
    assert canonical_json(0.1) == "0.1"
    assert canonical_json(1e-7) == "1e-07"


def test_golden_digests() -> None:
    # BLAKE3 of the empty string is a published test vector.
    assert digest_bytes(b"") == "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
    # Pinned: a change to canonical JSON or the algorithm must fail here.
    assert digest_json({"b": 1, "a": [1.5, "x"]}) == \
        blake3.blake3(b'{"a":[1.5,"x"],"b":1}').hexdigest()
    assert digest_json({"b": 1, "a": [1.5, "x"]}) == \
        "e0443edcc28e27e4bc5615d70975d4370134e76375cbd986791c5557ec677167"


@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6))
def test_canonical_json_ignores_key_order(value: dict[str, object]) -> None:
    reordered = dict(reversed(list(value.items())))
    assert canonical_json(value) == canonical_json(reordered)
    assert digest_json(value) == digest_json(reordered)


@given(json_values)
def test_canonical_json_round_trips(value: object) -> None:
    text = canonical_json(value)
    assert canonical_json(json.loads(text)) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_are_exact_and_stable(x: float) -> None:
    text = canonical_json({"x": x})
    assert json.loads(text)["x"] == x
    assert canonical_json({"x": float(repr(x))}) == text


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_floats_are_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match=r"non-finite float .* at \$\.a\[0\]"):
        canonical_json({"a": [bad]})


@pytest.mark.parametrize("size", [0, 1, 1000, 3 * 1024 * 1024 + 7])
def test_digest_file_matches_bytes(tmp_path: Path, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    assert digest_file(path) == digest_bytes(data)


def test_digest_file_mmap_path_agrees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"evidence" * 50_000
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    monkeypatch.setattr(hashing, "MMAP_THRESHOLD", 1024)
    assert digest_file(path) == digest_bytes(data)


def test_write_json_atomic_leaves_no_temporaries(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    hashing.write_json_atomic(target, {"a": 1})
    hashing.write_bytes_atomic(target, b"{}", durable=True)
    assert target.read_bytes() == b"{}"
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


@pytest.mark.parametrize("bad", [{1: "a"}, {"a": {2: 3}}, [{"x": {(1, 2): 0}}], {"a": ({3: 1},)}])
def test_non_string_keys_are_rejected_with_their_place(bad: object) -> None:
    """json.dumps would write an int key as a string: two values, one canonical form."""
    with pytest.raises(TypeError, match=r"canonical JSON keys must be strings, got .* at \$"):
        canonical_json(bad)
