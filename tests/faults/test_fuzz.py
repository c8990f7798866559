"""Fuzzing, CI-sized: hypothesis over the JDWP decoders and framing, the ADB framing and the tool inputs;
seeded hostile VM text through the whole server.

Each target (``fuzz_targets``) must succeed or raise its layer's typed error; anything else is a bug.
VM text must come back as envelopes, bounded and JSON-safe, from a server that keeps answering.
The benchmark run (``python bench/fuzz.py``: ≥ 1,000,000 inputs, random and atheris, with the peak
allocation) writes its numbers to docs/reliability.md.
"""

from __future__ import annotations

import random
from typing import Any

import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .fuzz_targets import (
    ADB_ALLOWED,
    DECODERS,
    EXPRESSION_ALLOWED,
    JDWP_ALLOWED,
    MODEL_ALLOWED,
    MODELS,
    SIZES,
    VmText,
    adb_frames,
    decode_body,
    frame_stream,
    parse_text,
    random_adb,
    random_body,
    random_expression,
    random_json,
    random_stream,
    validate_input,
    vm_text_server,
)

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=16),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=10)
tool_inputs = st.dictionaries(
    st.sampled_from(["platform", "deviceId", "appId", "processId", "address", "timeoutMs", "debugSessionId",
                     "className", "line", "breakpointId", "afterSequence", "stopId", "threadId", "frameId", "offset",
                     "limit", "kind", "unknown"]),
    json_values | st.sampled_from(["jvm", "android", "127.0.0.1:5005", "over", "x" * 513]) | st.integers(),
    max_size=6)


@FAST
@given(st.sampled_from(DECODERS), st.sampled_from(SIZES), st.binary(max_size=96))
def test_every_decoder_raises_only_jdwp_errors(decoder: Any, sizes: Any, body: bytes) -> None:
    cmd, which = decoder
    try:
        decode_body(cmd, which, sizes, body)
    except JDWP_ALLOWED:
        pass


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_every_decoder_on_jdwp_shaped_bodies(seed: int) -> None:
    rng = random.Random(seed)  # forged counts, tags, IDs and strings (random_body) reach past the first field
    for cmd, which in DECODERS:
        for sizes in SIZES:
            try:
                decode_body(cmd, which, sizes, random_body(rng))
            except JDWP_ALLOWED:
                pass


@FAST
@given(st.lists(st.binary(max_size=40), max_size=6))
def test_framing_raises_only_protocol_errors(chunks: list[bytes]) -> None:
    try:
        frame_stream(chunks)
    except JDWP_ALLOWED:
        pass


@FAST
@given(st.randoms(use_true_random=False))
def test_framing_of_forged_headers(rng: random.Random) -> None:
    try:
        frame_stream(random_stream(rng))
    except JDWP_ALLOWED:
        pass


@FAST
@given(st.binary(max_size=64) | st.randoms(use_true_random=False).map(random_adb))
def test_adb_framing_raises_only_adb_errors(data: bytes) -> None:
    try:
        adb_frames(data)
    except ADB_ALLOWED:
        pass


@FAST
@given(st.sampled_from(MODELS), tool_inputs | json_values | st.randoms(use_true_random=False).map(random_json))
def test_tool_inputs_give_a_model_or_a_validation_error(tool: Any, value: Any) -> None:
    name, model = tool
    try:
        parsed = validate_input(model, value)
    except MODEL_ALLOWED:
        return
    assert isinstance(parsed, model), name
    assert parsed.timeoutMs is None or 100 <= parsed.timeoutMs <= 30000


@FAST
@given(st.text(max_size=512) | st.randoms(use_true_random=False).map(random_expression))
def test_expressions_parse_or_raise_the_syntax_error(text: str) -> None:
    try:
        parse_text(text)
    except EXPRESSION_ALLOWED:
        return


#: The worst a VM can name things: a million lone surrogates, long runs of pairs sent as two code points,
#: NULs, and a value longer than any cut.
HUGE = VmText(thread_name="\udc00" * 1_000_000, class_name="q" * 300_000 + "\ud83d", method="\ud83d\ude00" * 700,
              source="\x00" * 5000, local_name="\ud800" * 1025, string_value="v\udfff" * 100_000, char_value="\ud83d",
              vm_name="\U0001F600" * 600, modified_utf8=False)


async def test_vm_text_through_the_whole_server() -> None:
    rng = random.Random(2024)
    with trio.fail_after(60):
        async with vm_text_server() as server:
            for _ in range(30):
                await server.journey(VmText.random(rng, huge=0))
            await server.journey(HUGE)
            assert server.largest < 64_000  # the largest answer, with 1024-unit names escaped six-fold
            alive = await server.call("get_debugger_state", debugSessionId="dbg-000000000000")
            assert alive["error"]["code"] == "DEBUGGER_NOT_FOUND"
