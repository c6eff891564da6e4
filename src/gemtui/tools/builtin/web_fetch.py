"""web_fetch: pages the model names in its prompt, fetched and turned into Markdown.

Gemini CLI's shape: one ``prompt`` holding up to 20 http(s) URLs and what to do with
them. Each URL is checked by ``tools.netguard`` (no private, loopback, link-local or
metadata addresses unless allowed), fetched with a timeout and a size cap, and redirects
are followed by hand, each hop checked again; HTML becomes Markdown (markdownify).
Every call is a ``fetch``: it asks for approval in default mode, showing the URLs.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx
from msgspec import Struct
from pydantic import Field, field_validator

from gemtui.tools.base import (
    Confirmation,
    ToolContext,
    ToolError,
    ToolInvocation,
    ToolKind,
    ToolResult,
    TypedInvocation,
    TypedTool,
)
from gemtui.tools.netguard import BlockedAddress, FetchLimits, check_url
from gemtui.tools.offload import run_off_loop
from gemtui.tools.params import ToolParams

__all__ = [
    "MAX_URLS",
    "ByteBudget",
    "FetchedPage",
    "WebFetchTool",
    "extract_urls",
    "fetch_page",
    "to_markdown",
]

MAX_URLS = 20
_URL = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING = ".,;:!?)]}>'\""
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_USER_AGENT = "gemtui-web-fetch"


def extract_urls(prompt: str) -> list[str]:
    """The http(s) URLs in ``prompt``, in order, without trailing punctuation, once each."""
    urls = []
    for match in _URL.finditer(prompt):
        url = match.group(0)
        while url and url[-1] in _TRAILING:
            if url[-1] == ")" and url.count("(") >= url.count(")"):
                break  # a Wikipedia-style URL keeps its balanced parenthesis
            url = url[:-1]
        urls.append(url)
    return list(dict.fromkeys(urls))


class FetchedPage(Struct, frozen=True):
    """One fetched page: where it ended up, what it said, whether it was cut."""

    url: str
    final_url: str
    content_type: str
    text: str
    truncated: bool
    over_total: bool = False
    """Cut because the call's pages together reached ``max_total_bytes``."""


class ByteBudget:
    """What one call may still read, shared by its pages (fetched together)."""

    def __init__(self, total: int) -> None:
        self.left = total

    def take(self, wanted: int) -> int:
        granted = min(wanted, max(self.left, 0))
        self.left -= granted
        return granted


def to_markdown(html: str) -> str:
    """Readable Markdown from HTML (scripts and styles dropped), blank runs squeezed."""
    from markdownify import markdownify

    markdown = markdownify(html, heading_style="ATX", strip=["img"])
    return re.sub(r"\n{3,}", "\n\n", markdown).strip()


async def fetch_page(
    client: httpx.AsyncClient, url: str, limits: FetchLimits, budget: ByteBudget | None = None
) -> FetchedPage:
    """GET ``url`` through every redirect, each hop checked, within ``limits.timeout``
    seconds in all (a server that drips a byte at a time cannot hold the call open);
    raises ToolError. ``budget`` is shared by the pages of one call."""
    if budget is None:
        budget = ByteBudget(limits.max_total_bytes)
    try:
        async with asyncio.timeout(limits.timeout):
            return await _fetch(client, url, limits, budget)
    except TimeoutError as exc:
        raise ToolError(f"{url} timed out after {limits.timeout:g} s") from exc


async def _fetch(
    client: httpx.AsyncClient, url: str, limits: FetchLimits, budget: ByteBudget
) -> FetchedPage:
    try:
        current = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ToolError(f"invalid URL {url}: {exc}") from exc
    for _hop in range(limits.max_redirects + 1):
        try:
            target = await check_url(current, limits)
        except BlockedAddress as exc:
            raise ToolError(str(exc)) from exc
        request = client.build_request(
            "GET",
            current.copy_with(host=target.address),  # connect to the address checked
            headers={"Host": current.netloc.decode("ascii"), "User-Agent": _USER_AGENT},
            extensions={"sni_hostname": current.raw_host.decode("ascii")}
            if current.scheme == "https"
            else {},
        )
        try:
            response = await client.send(request, stream=True)
        except httpx.TimeoutException as exc:
            raise ToolError(f"{current} timed out after {limits.timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise ToolError(f"could not fetch {current}: {type(exc).__name__}: {exc}") from exc
        try:
            location = response.headers.get("location")
            if response.status_code in _REDIRECTS and location:
                try:
                    current = current.join(location)
                except httpx.InvalidURL as exc:
                    raise ToolError(f"{current} redirects to an invalid URL") from exc
                continue
            if response.status_code >= 400:
                raise ToolError(f"{current} answered HTTP {response.status_code}")
            body, truncated, over = await _read_capped(response, limits, budget)
            content_type = response.headers.get("content-type", "")
            text = await _decode(body, content_type, response.encoding or "utf-8", str(current))
            return FetchedPage(url, str(current), content_type, text, truncated, over)
        finally:
            await response.aclose()
    raise ToolError(f"{url} redirected more than {limits.max_redirects} times")


async def _read_capped(
    response: httpx.Response, limits: FetchLimits, budget: ByteBudget
) -> tuple[bytes, bool, bool]:
    """The body within the page's cap and the call's budget: (bytes, cut, cut by budget)."""
    body = bytearray()
    try:
        async for chunk in response.aiter_bytes():
            room = limits.max_bytes - len(body)
            granted = budget.take(min(len(chunk), room + 1))
            body += chunk[:granted]
            if len(body) > limits.max_bytes:
                budget.left += len(body) - limits.max_bytes
                return bytes(body[: limits.max_bytes]), True, False
            if granted < len(chunk):
                return bytes(body), True, True
    except httpx.TimeoutException as exc:
        raise ToolError(f"{response.request.url} timed out while reading") from exc
    except httpx.HTTPError as exc:
        raise ToolError(f"reading {response.request.url} failed: {exc}") from exc
    return bytes(body), False, False


async def _decode(body: bytes, content_type: str, encoding: str, url: str) -> str:
    mime = content_type.split(";", 1)[0].strip().lower()
    try:
        text = body.decode(encoding, errors="replace")
    except LookupError:  # an unknown charset name
        text = body.decode("utf-8", errors="replace")
    if mime in ("text/html", "application/xhtml+xml") or (
        not mime and text.lstrip()[:15].lower().startswith(("<!doctype html", "<html"))
    ):
        return await run_off_loop(lambda _: to_markdown(text), name="gemtui-web-fetch")
    if mime.startswith("text/") or mime.endswith(("json", "xml")) or not mime:
        return text
    raise ToolError(f"{url} is {mime}, not a text page; web_fetch reads text and HTML only")


def _client(limits: FetchLimits) -> httpx.AsyncClient:
    # no proxies from the environment: a proxy would resolve the name itself
    return httpx.AsyncClient(
        timeout=httpx.Timeout(limits.timeout), follow_redirects=False, trust_env=False
    )


class WebFetchParams(ToolParams):
    """web_fetch's arguments, as Gemini CLI declares them: URLs live inside the prompt."""

    prompt: str = Field(
        description=(
            "A comprehensive prompt that includes the URL(s) (up to 20) to fetch and "
            'specific instructions on how to process their content (e.g., "Summarize '
            "https://example.com/article and extract key points from "
            'https://example.com/other"). '
            "Must contain at least one URL starting with http:// or https://."
        )
    )

    @field_validator("prompt")
    @classmethod
    def _prompt(cls, prompt: str) -> str:
        if not prompt.strip():
            raise ValueError(
                "The 'prompt' parameter cannot be empty and must contain URL(s) and instructions."
            )
        urls = extract_urls(prompt)
        if not urls:
            raise ValueError(
                "The 'prompt' must contain at least one valid URL (starting with http:// or "
                "https://)."
            )
        if len(urls) > MAX_URLS:
            raise ValueError(
                f"The 'prompt' names {len(urls)} URLs; at most {MAX_URLS} can be fetched at once."
            )
        return prompt


class WebFetchInvocation(TypedInvocation[WebFetchParams]):
    """One validated web_fetch call."""

    @property
    def urls(self) -> list[str]:
        return extract_urls(self.params.prompt)

    async def confirmation(self, ctx: ToolContext) -> Confirmation | None:
        return Confirmation(
            kind="fetch",
            title="Fetch these URLs?",
            urls=tuple(self.urls),
        )

    async def execute(self, ctx: ToolContext) -> ToolResult:
        limits = ctx.fetch
        sections: list[str] = []
        errors: list[str] = []
        fetched: list[dict[str, Any]] = []
        budget = ByteBudget(limits.max_total_bytes)
        async with _client(limits) as client:
            urls = self.urls
            pages = await asyncio.gather(
                *(fetch_page(client, url, limits, budget) for url in urls),
                return_exceptions=True,
            )
        for url, page in zip(urls, pages, strict=True):
            if isinstance(page, ToolError):
                errors.append(f"Error fetching {url}: {page}")
                continue
            if isinstance(page, BaseException):
                raise page
            note = ""
            if page.over_total:
                note = (
                    f"\n\n[Content truncated: this call's pages together reached "
                    f"{limits.max_total_bytes:,} bytes]"
                )
            elif page.truncated:
                note = f"\n\n[Content truncated at {limits.max_bytes:,} bytes]"
            moved = f" (redirected to {page.final_url})" if page.final_url != url else ""
            sections.append(f"--- Content from {url}{moved} ---\n{page.text}{note}")
            fetched.append({"url": url, "final_url": page.final_url, "chars": len(page.text)})
        if not sections:
            raise ToolError("\n".join(errors))
        body = "\n\n".join([*sections, *errors])
        prompt = self.params.prompt
        display = f"Fetched {len(sections)} of {len(self.urls)} URL(s)"
        if errors:
            display += "\n" + "\n".join(errors)
        return ToolResult(
            llm_content=f"The request: {prompt}\n\n{body}",
            display=display,
            data={"pages": fetched},
        )


class WebFetchTool(TypedTool[WebFetchParams]):
    """Why: documentation and issues the person points at live on the web."""

    name = "web_fetch"
    display_name = "WebFetch"
    kind = ToolKind.FETCH
    description = (
        "Processes content from URL(s), including local and private network addresses "
        "only when the user allowed them, embedded in a prompt. Include up to 20 URLs and "
        "instructions (e.g., summarize, extract specific data) directly in the 'prompt' "
        "parameter. The pages come back as Markdown with their URLs."
    )
    params_model = WebFetchParams

    def invoke(self, params: WebFetchParams, args: dict[str, Any]) -> ToolInvocation:
        return WebFetchInvocation(self, args, params)
