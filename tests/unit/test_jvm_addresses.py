"""A JVM target's ``host:port`` as text: what parses, what is refused, and how addresses are written back.

(Resolution and the loopback rule through the server are in tests/server/test_server_addresses.py.)
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pyjdwp_server.answers.failures import ToolFailure
from pyjdwp_server.session.addresses import JvmAddress, format_address, is_ascii_number, normal_ip, parse_address
from pyjdwp_server.session.models import TargetInput


@pytest.mark.parametrize(("text", "host", "port"), [
    ("127.0.0.1:5005", "127.0.0.1", 5005),
    ("localhost:1", "localhost", 1),
    ("localhost.:65535", "localhost.", 65535),
    ("[::1]:5005", "::1", 5005),
    ("[::ffff:127.0.0.1]:5005", "::ffff:127.0.0.1", 5005),
    ("[127.0.0.1]:5005", "127.0.0.1", 5005),
    ("127.1:05005", "127.1", 5005),
])
def test_parses_host_and_port(text: str, host: str, port: int) -> None:
    assert parse_address(text) == (host, port)


@pytest.mark.parametrize("text", [
    "127.0.0.1", ":5005", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:+5", "127.0.0.1: 5005",
    "127.0.0.1:-1", "127.0.0.1:5e3", "[::1]", "[::1:5005", "::1]:5005", "[]:5005", "[[::1]]:5005", "a]b:5005",
    "::1:5005",  # IPv6 without brackets: is 5005 the port or the last group?
    "127.0.0.1:１２３",  # fullwidth digits: int() reads 123, isdigit() agrees
    "127.0.0.1:٥٠٠٥",  # Arabic-Indic digits
    "127.0.0.1:²",  # isdigit() is True, int() raises
])
def test_refuses_what_is_not_host_colon_ascii_port(text: str) -> None:
    with pytest.raises(ToolFailure) as refused:
        parse_address(text)
    assert refused.value.code == "INVALID_ARGUMENT" and "host:port" in refused.value.message


def test_an_ipv6_address_without_brackets_is_told_how_to_write_it() -> None:
    with pytest.raises(ToolFailure, match=r"in brackets, as in \[::1\]:5005"):
        parse_address("::1:5005")


def test_ascii_numbers_only() -> None:
    assert is_ascii_number("0123456789")
    for text in ("", "１２３", "²", "٣", "12a", " 1", "+1", "1_000"):
        assert not is_ascii_number(text), text


def test_ipv6_is_written_in_brackets() -> None:
    assert format_address("::1", 5005) == "[::1]:5005"
    assert format_address("127.0.0.1", 5005) == "127.0.0.1:5005"
    both = JvmAddress("localhost:7", 7, ("::1", "127.0.0.1"), True)
    assert both.text == "[::1]:7" and both.keys() == ("jvm:[::1]:7", "jvm:127.0.0.1:7")


def test_ipv4_mapped_ipv6_is_its_ipv4_address() -> None:
    assert str(normal_ip("::ffff:127.0.0.1")) == "127.0.0.1"
    assert normal_ip("::ffff:127.0.0.1").is_loopback
    assert not normal_ip("::ffff:10.0.0.1").is_loopback
    assert str(normal_ip("::1")) == "::1" and normal_ip("::1").is_loopback
    with pytest.raises(ValueError):
        normal_ip("localhost")


@pytest.mark.parametrize(("extra", "says"), [
    ({"deviceId": "emulator-5554"}, "deviceId is for platform android"),
    ({"deviceId": "e", "appId": "a.b"}, "deviceId and appId are for platform android"),
    ({"deviceId": "e", "appId": "a.b", "processId": 7}, "deviceId, appId and processId are for platform android"),
])
def test_android_fields_on_a_jvm_target_are_named_in_good_grammar(extra: dict[str, object], says: str) -> None:
    with pytest.raises(ValidationError, match=says):
        TargetInput.model_validate({"platform": "jvm", "address": "127.0.0.1:5005", **extra})
