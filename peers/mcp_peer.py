"""An MCP server on the official Python SDK (the `mcp` package's FastMCP), for Parley's MCP tests.

    mcp_peer.py stdio              newline-delimited JSON-RPC on stdin/stdout
    mcp_peer.py http json|sse      Streamable HTTP on 127.0.0.1 (ephemeral port), answering calls with
                                   application/json or with an SSE stream; prints `listening on URL`

Tools: add, shout (text content only), count (progress notifications), tick (progress notifications at intervals),
wait (records its cancellation), fail (an isError result), roots (asks the client for its roots), cancellations (the request ids of every
notifications/cancelled received for a request in flight). Cancellations are also appended, one request id a line, to the file named by
PARLEY_MCP_LOG, if set.
"""

import asyncio
import os
import socket
import sys

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.shared.session import RequestResponder

mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
answer = sys.argv[2] if len(sys.argv) > 2 else "sse"
server = FastMCP("parley-peer", json_response=(answer == "json"))
cancelled: list[str] = []


@server.tool(description="Adds two integers.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Upper-cases a text.", structured_output=False)
def shout(text: str) -> str:
    return text.upper()


@server.tool(description="Counts to n, reporting progress at each step.")
async def count(n: int, ctx: Context) -> str:
    for step in range(1, n + 1):
        await ctx.report_progress(step, n, f"step {step} of {n}")
    return f"counted to {n}"


@server.tool(description="Reports progress n times, every `interval` seconds, then returns.")
async def tick(n: int, interval: float, ctx: Context) -> str:
    for step in range(1, n + 1):
        await asyncio.sleep(interval)
        await ctx.report_progress(step, n, f"tick {step} of {n}")
    return f"ticked {n} times"


def _record_cancellation(request_id):
    cancelled.append(request_id)
    log = os.environ.get("PARLEY_MCP_LOG")
    if log:
        with open(log, "a") as file:
            file.write(f"{request_id}\n")


# Every notifications/cancelled the server receives for a request in flight is recorded, whether or not the request's
# tool had started running (one cancelled before it ran is cancelled all the same); the SDK's handling goes on unchanged.
_cancel = RequestResponder.cancel


async def _recording_cancel(self):
    _record_cancellation(str(self.request_id))
    await _cancel(self)


RequestResponder.cancel = _recording_cancel


@server.tool(description="Waits, and records its cancellation.")
async def wait(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return f"waited {seconds} s"


@server.tool(description="Always fails.")
def fail() -> str:
    raise ToolError("this tool always fails")


@server.tool(description="Asks the client for its roots.")
async def roots(ctx: Context) -> list[str]:
    result = await ctx.session.list_roots()
    return [str(root.uri) for root in result.roots]


@server.tool(description="The request ids of the cancelled waits.")
def cancellations() -> list[str]:
    return cancelled


if mode == "stdio":
    server.run("stdio")
else:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)
    # Kept-alive connections stay open 75 s (nginx's default) rather than uvicorn's 5 s: the suites share one client
    # whose idle connections outlive 5 s between tests, and on a loaded machine uvicorn's close often crossed the next
    # POST (an MCP initialize) on the wire. That race is HTTP/1.1's own, and a POST that meets it fails unsent twice
    # (the Security and limits article's known limitations; PinnedRetryTests shows it): these suites test MCP, not it.
    config = uvicorn.Config(
        server.streamable_http_app(), log_level="warning", timeout_graceful_shutdown=1, timeout_keep_alive=75
    )
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
