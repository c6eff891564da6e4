"""web_fetch against a real local HTTP server: what it reads, and where it refuses to go."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.pages_server import Seen, serve_pages

from gemtui.tools.base import ToolContext, ToolError, ToolResult
from gemtui.tools.builtin.web_fetch import WebFetchTool, extract_urls
from gemtui.tools.netguard import FetchLimits, is_public
from gemtui.tools.workspace import Workspace


@pytest.fixture
def server() -> Iterator[tuple[str, Seen]]:
    with serve_pages() as served:
        yield served


async def fetch(tmp_path: Path, prompt: str, limits: FetchLimits) -> ToolResult:
    tool = WebFetchTool()
    assert tool.validate({"prompt": prompt}) is None
    ctx = ToolContext(workspace=Workspace(tmp_path), fetch=limits)
    return await tool.build({"prompt": prompt}).execute(ctx)


async def refused(tmp_path: Path, url: str, limits: FetchLimits | None = None) -> str:
    with pytest.raises(ToolError) as info:
        await fetch(tmp_path, f"Summarise {url} please", limits or FetchLimits())
    return str(info.value)


OPEN = FetchLimits(allow_private=True)


class TestWithLoopbackAllowed:
    async def test_html_becomes_markdown_with_its_url(
        self, tmp_path: Path, server: tuple[str, Seen]
    ) -> None:
        base, _ = server
        result = await fetch(tmp_path, f"Summarise {base}/page.", OPEN)
        text = result.llm_content
        assert isinstance(text, str)
        assert text.startswith(f"The request: Summarise {base}/page.")
        assert f"--- Content from {base}/page ---" in text
        assert "# Install" in text
        assert "[the next page](/next)" in text
        assert "* fast" in text or "- fast" in text
        assert "steal()" not in text
        assert "body{}" not in text
        assert result.display == "Fetched 1 of 1 URL(s)"

    async def test_text_charset_redirects_and_several_urls(
        self, tmp_path: Path, server: tuple[str, Seen]
    ) -> None:
        base, _ = server
        result = await fetch(tmp_path, f"Compare {base}/go?/text and {base}/missing", OPEN)
        text = result.llm_content
        assert isinstance(text, str)
        assert f"--- Content from {base}/go?/text (redirected to {base}/text) ---" in text
        assert "plain ünïcode" in text
        assert f"Error fetching {base}/missing: {base}/missing answered HTTP 404" in text
        assert "Fetched 1 of 2 URL(s)" in result.display

    async def test_limits_redirect_loop_size_timeout_and_binary(
        self, tmp_path: Path, server: tuple[str, Seen]
    ) -> None:
        base, seen = server
        limits = FetchLimits(allow_private=True, max_bytes=1000, max_redirects=3, timeout=0.5)
        assert "redirected more than 3 times" in await refused(tmp_path, f"{base}/loop", limits)
        assert sum(1 for p, _ in seen.requests if p == "/loop") == 4
        big = await fetch(tmp_path, f"read {base}/big", limits)
        assert isinstance(big.llm_content, str)
        assert "x" * 1000 in big.llm_content
        assert "x" * 1001 not in big.llm_content
        assert "[Content truncated at 1,000 bytes]" in big.llm_content
        assert "timed out after 0.5 s" in await refused(tmp_path, f"{base}/stall", limits)
        assert "image/png, not a text page" in await refused(tmp_path, f"{base}/png", limits)


class TestRefusedByDefault:
    @pytest.mark.parametrize(
        "host",
        [
            "127.0.0.1",
            "10.0.0.1",
            "169.254.169.254",
            "[::1]",
            "0.0.0.0",
            "172.16.5.4",
            "192.168.1.1",
            "100.100.100.200",
            "[fe80::1]",
            "[fd00:ec2::254]",
            "[::ffff:127.0.0.1]",
            "[::ffff:a9fe:a9fe]",  # 169.254.169.254 inside IPv6
        ],
    )
    async def test_private_loopback_link_local_and_metadata_addresses(
        self, tmp_path: Path, host: str
    ) -> None:
        message = await refused(tmp_path, f"http://{host}/latest/meta-data/")
        assert "private, loopback, link-local or metadata address" in message
        assert "allow_private = true" in message

    async def test_a_name_resolving_to_loopback_and_numeric_tricks(
        self, tmp_path: Path, server: tuple[str, Seen]
    ) -> None:
        base, seen = server
        port = base.rsplit(":", 1)[1]
        message = await refused(tmp_path, f"http://localhost:{port}/page")
        assert "localhost resolves to" in message
        assert "127.0.0.1" in message or "::1" in message
        # 2130706433 and 0x7f.1 are 127.0.0.1 to the resolver
        await refused(tmp_path, f"http://2130706433:{port}/page")
        await refused(tmp_path, f"http://0x7f.1:{port}/page")
        await refused(tmp_path, f"{base}/page")
        assert seen.requests == []  # refused before any connection

    async def test_a_public_looking_url_redirecting_to_loopback(
        self, tmp_path: Path, server: tuple[str, Seen]
    ) -> None:
        """docs.example.test is allowed by name (it is the local server under another name);
        its redirects to loopback addresses and names are checked again and refused."""
        base, seen = server
        port = int(base.rsplit(":", 1)[1])
        resolved: list[str] = []

        async def resolve(host: str, _port: int) -> list[str]:
            resolved.append(host)
            if host == "docs.example.test":
                return ["127.0.0.1"]
            from gemtui.tools.netguard import system_resolver

            return await system_resolver(host, _port)

        limits = FetchLimits(allow=("docs.example.test",), resolve=resolve)
        public = f"http://docs.example.test:{port}"
        for target in (f"{base}/page", f"http://localhost:{port}/page", "http://[::1]/"):
            message = await refused(tmp_path, f"{public}/go?{target}", limits)
            assert "is refused" in message
        assert [p for p, _ in seen.requests] == [
            f"/go?{base}/page",
            f"/go?http://localhost:{port}/page",
            "/go?http://[::1]/",
        ]
        # the allowed name itself works, and the connection went to the address checked:
        # the system resolver does not know docs.example.test
        ok = await fetch(tmp_path, f"read {public}/go?/page", limits)
        assert isinstance(ok.llm_content, str)
        assert "# Install" in ok.llm_content
        assert seen.requests[-1] == ("/page", f"docs.example.test:{port}")
        assert resolved.count("docs.example.test") == 5  # once per hop, never left to httpx

    async def test_a_name_with_one_private_address_among_public_ones(
        self, tmp_path: Path, server: tuple[str, Seen]
    ) -> None:
        """A rebinding name answers public and loopback addresses at once: refused, since
        the connection could go to either."""
        _, seen = server

        async def resolve(host: str, port: int) -> list[str]:
            return ["93.184.216.34", "127.0.0.1"]

        message = await refused(
            tmp_path, "http://rebind.example.test/", FetchLimits(resolve=resolve)
        )
        assert "rebind.example.test resolves to 127.0.0.1" in message
        assert seen.requests == []

    async def test_allow_list_by_network(self, tmp_path: Path, server: tuple[str, Seen]) -> None:
        base, _ = server
        ok = await fetch(tmp_path, f"read {base}/text", FetchLimits(allow=("127.0.0.0/8",)))
        assert isinstance(ok.llm_content, str)
        assert "plain" in ok.llm_content
        await refused(tmp_path, "http://10.0.0.1/", FetchLimits(allow=("127.0.0.0/8",)))

    async def test_only_http_and_https(self, tmp_path: Path, server: tuple[str, Seen]) -> None:
        base, _ = server
        message = await refused(tmp_path, f"{base}/go?file:///etc/passwd", OPEN)
        assert "only http and https" in message


def test_url_extraction_and_validation() -> None:
    assert extract_urls(
        "See https://a.example/x, and (http://b.example/y). Also https://a.example/x!"
    ) == [
        "https://a.example/x",
        "http://b.example/y",
    ]
    assert extract_urls("https://en.wikipedia.org/wiki/Python_(language)") == [
        "https://en.wikipedia.org/wiki/Python_(language)"
    ]
    tool = WebFetchTool()
    assert "at least one valid URL" in (tool.validate({"prompt": "no links here"}) or "")
    many = " ".join(f"https://x{i}.example/" for i in range(21))
    assert "at most 20" in (tool.validate({"prompt": many}) or "")
    assert tool.validate({"prompt": " "}) is not None


def test_is_public() -> None:
    assert is_public("93.184.216.34")
    assert is_public("2606:2800:220:1:248:1893:25c8:1946")
    for address in ("127.0.0.1", "::1", "10.1.2.3", "fc00::1", "fe80::1%eth0", "2002:7f00:1::1"):
        assert not is_public(address)


async def test_the_pages_of_one_call_share_a_total_byte_budget(
    tmp_path: Path, server: tuple[str, Seen]
) -> None:
    base, seen = server
    urls = " ".join(f"{base}/n/{i}" for i in range(5))  # 110,000 bytes each
    limits = FetchLimits(allow_private=True, max_total_bytes=250_000)
    result = await fetch(tmp_path, f"Compare {urls}", limits)
    text = str(result.llm_content)
    assert len(seen.requests) == 5
    assert 250_000 <= len(text) < 250_000 + 2_000
    assert text.count("this call's pages together reached 250,000 bytes") >= 2
    assert text.count("[Content truncated at") == 0
