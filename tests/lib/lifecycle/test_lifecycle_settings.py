"""L1 (settings) and L2 (the threshold trigger)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lifecycle_support import small_session

from course_lib.lifecycle import (
    CompactionSettings,
    CompactionSettingsError,
    OfflineSummarizer,
    compaction_threshold,
    should_compact,
)


def test_L1_defaults_are_the_production_values() -> None:
    settings = CompactionSettings()
    assert (settings.enabled, settings.reserve_tokens, settings.keep_recent_tokens) == (True, 16384, 20000)


@pytest.mark.parametrize("reserve", [0, -1, -16384, math.nan, math.inf, True, "16384", None])
def test_L1_a_reserve_of_zero_or_less_is_refused_with_a_clear_error(reserve: object) -> None:
    with pytest.raises(CompactionSettingsError, match="reserve_tokens") as caught:
        CompactionSettings(reserve_tokens=reserve)  # type: ignore[arg-type]  # a wrong type on purpose: it must be refused
    assert caught.value.field == "reserve_tokens"
    assert "needs window space" in str(caught.value)


@pytest.mark.parametrize("keep", [0, -5, math.nan, False])
def test_L1_keep_recent_tokens_must_be_positive(keep: object) -> None:
    with pytest.raises(CompactionSettingsError, match="keep_recent_tokens"):
        CompactionSettings(keep_recent_tokens=keep)  # type: ignore[arg-type]  # a wrong type on purpose: it must be refused


def test_L1_enabled_must_be_a_bool() -> None:
    with pytest.raises(CompactionSettingsError, match="enabled"):
        CompactionSettings(enabled=1)  # type: ignore[arg-type]  # a wrong type on purpose: it must be refused


def test_L1_a_reserve_smaller_than_the_summarizer_needs_is_refused() -> None:
    summarizer = OfflineSummarizer(max_summary_tokens=80)
    settings = CompactionSettings(reserve_tokens=79, keep_recent_tokens=60)
    with pytest.raises(CompactionSettingsError, match="less than the 80 tokens"):
        settings.check_summarizer(summarizer.min_reserve_tokens)
    with pytest.raises(CompactionSettingsError, match="reserve_tokens=79"):
        small_session(settings=settings)
    CompactionSettings(reserve_tokens=80, keep_recent_tokens=60).check_summarizer(80)  # exactly enough is fine


def test_L2_boundary_equal_to_the_threshold_does_not_compact_one_more_does() -> None:
    settings = CompactionSettings(reserve_tokens=100, keep_recent_tokens=60)
    assert compaction_threshold(400, settings) == 300
    assert should_compact(300, 400, settings) is False
    assert should_compact(301, 400, settings) is True
    assert should_compact(0, 400, settings) is False


def test_L2_boundary_with_the_production_defaults() -> None:
    settings = CompactionSettings()
    assert should_compact(200_000 - 16384, 200_000, settings) is False
    assert should_compact(200_000 - 16384 + 1, 200_000, settings) is True


def test_L2_disabled_settings_never_compact() -> None:
    settings = CompactionSettings(enabled=False, reserve_tokens=100, keep_recent_tokens=60)
    assert should_compact(10_000, 400, settings) is False


@pytest.mark.parametrize(
    ("context_tokens", "window", "field"),
    [
        (-1, 400, "context_tokens"),
        (math.nan, 400, "context_tokens"),
        (math.inf, 400, "context_tokens"),
        (True, 400, "context_tokens"),
        ("300", 400, "context_tokens"),
        (10, 0, "context_window"),
        (10, -400, "context_window"),
        (10, math.inf, "context_window"),
        (10, True, "context_window"),
        (10, 100, "reserve_tokens"),  # a window no larger than the reserve leaves nothing
        (10, 99, "reserve_tokens"),
    ],
)
def test_L2_invalid_numbers_are_errors(context_tokens: object, window: object, field: str) -> None:
    settings = CompactionSettings(reserve_tokens=100, keep_recent_tokens=60)
    with pytest.raises(CompactionSettingsError) as caught:
        should_compact(context_tokens, window, settings)  # type: ignore[arg-type]  # a wrong type on purpose: it must be refused
    assert caught.value.field == field


def test_L2_settings_must_be_compaction_settings() -> None:
    with pytest.raises(CompactionSettingsError, match="CompactionSettings"):
        should_compact(10, 400, {"reserve_tokens": 100})  # type: ignore[arg-type]  # a wrong type on purpose: it must be refused


@given(
    context=st.integers(min_value=0, max_value=10**6),
    window=st.integers(min_value=2, max_value=10**6),
    reserve=st.integers(min_value=1, max_value=10**6),
    enabled=st.booleans(),
)
def test_L2_is_exactly_context_above_window_minus_reserve(
    context: int, window: int, reserve: int, enabled: bool
) -> None:
    if reserve >= window:
        reserve = window - 1
    settings = CompactionSettings(enabled=enabled, reserve_tokens=reserve, keep_recent_tokens=1)
    assert should_compact(context, window, settings) is (enabled and context > window - reserve)
