"""estimate_tokens_bpe (``course_lib.importers.bpe``): tiktoken's cl100k_base built offline from a verified ranks file."""

from __future__ import annotations

import ast
import importlib.util
import socket
from pathlib import Path
from typing import Any

import pytest

from course_lib import AssistantMessage, TextContent, ToolCall, Usage, UserMessage
from course_lib.estimators import estimate_tokens_chars, message_texts
from course_lib.importers import bpe
from course_lib.importers.bpe import (
    CL100K_PATTERN,
    CL100K_SHA256,
    CL100K_SPECIAL_TOKENS,
    TokenizerDataError,
    cl100k_encoding,
    estimate_tokens_bpe,
    verified_ranks,
)

pytest.importorskip("tiktoken")


def _user(text: str) -> UserMessage:
    return UserMessage(content=(TextContent(text=text),), timestamp=1)


def _tiktoken_cl100k_definition() -> dict[str, object]:
    """``expected_hash``, ``pat_str`` and the special tokens as tiktoken's own
    ``tiktoken_ext/openai_public.py`` writes them in ``cl100k_base()``."""
    spec = importlib.util.find_spec("tiktoken_ext.openai_public")
    assert spec and spec.origin
    tree = ast.parse(Path(spec.origin).read_text())
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "cl100k_base")
    constants = {
        n.targets[0].id: n.value.value
        for n in tree.body
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Constant)
    }
    found: dict[str, Any] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.keyword) and node.arg == "expected_hash":
            found["expected_hash"] = node.value.value  # type: ignore[attr-defined]  # a constant in tiktoken's source
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == "pat_str":
                    found["pat_str"] = value.value  # type: ignore[attr-defined]  # a constant in tiktoken's source
                if isinstance(key, ast.Name) and isinstance(value, ast.Constant):
                    found.setdefault("special_tokens", {})[constants[key.id]] = value.value
    return found


def test_constants_are_the_ones_tiktoken_publishes_for_cl100k_base() -> None:
    published = _tiktoken_cl100k_definition()
    assert published["expected_hash"] == CL100K_SHA256
    assert published["pat_str"] == CL100K_PATTERN
    assert published["special_tokens"] == CL100K_SPECIAL_TOKENS


def test_known_counts_of_cl100k_base() -> None:
    assert estimate_tokens_bpe(_user("hello world")) == 2
    assert estimate_tokens_bpe(_user("tiktoken is great!")) == 6
    assert cl100k_encoding().decode(cl100k_encoding().encode_ordinary("tiktoken is great!")) == "tiktoken is great!"


def test_counts_the_same_text_as_the_character_estimate() -> None:
    message = AssistantMessage(
        content=(
            TextContent(text="Reading the store."),
            ToolCall(id="c1", name="read", arguments={"path": "store.py"}),
        ),
        provider="p",
        model="m",
        usage=Usage(input=0, output=0, total_tokens=0),
        stop_reason="toolUse",
        timestamp=1,
    )
    pieces = list(message_texts(message))
    assert pieces == ["Reading the store.", "read", '{"path": "store.py"}']
    encoding = cl100k_encoding()
    assert estimate_tokens_bpe(message) == sum(len(encoding.encode_ordinary(p)) for p in pieces)
    assert estimate_tokens_chars(message) == -(-sum(map(len, pieces)) // 4)


def test_special_token_text_counts_as_ordinary_text() -> None:
    assert estimate_tokens_bpe(_user("<|endoftext|>")) > 1


def test_builds_without_network_or_tiktoken_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("estimate_tokens_bpe must not open a socket")

    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    cl100k_encoding.cache_clear()
    assert estimate_tokens_bpe(_user("offline")) >= 1
    assert not (tmp_path / "cache").exists()


def test_a_ranks_file_with_another_hash_is_refused(tmp_path: Path) -> None:
    genuine = verified_ranks()
    tampered = tmp_path / "cl100k_base.tiktoken"
    tampered.write_bytes(genuine.replace(b" 0\n", b" 1\n", 1))
    with pytest.raises(TokenizerDataError, match="not the 2239"):
        verified_ranks(tampered)


def test_a_missing_ranks_package_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bpe, "RANKS_DISTRIBUTION", "no-such-ranks-package")
    with pytest.raises(TokenizerDataError, match="no-such-ranks-package"):
        verified_ranks()
