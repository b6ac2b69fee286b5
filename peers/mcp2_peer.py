"""An MCP server on the official Python SDK 2.x (the `mcp` package's MCPServer), for Parley's MCP tests.

    mcp2_peer.py stdio                            newline-delimited JSON-RPC on stdin/stdout
    mcp2_peer.py http json|sse [--modern-only]    Streamable HTTP on 127.0.0.1 (ephemeral port), answering calls with
                                                  application/json or with an SSE stream; prints `listening on URL`

The SDK serves both protocol eras from one server: the handshake era (`initialize`, 2024-11-05 to 2025-11-25) and the
per-request era (2026-07-28: no handshake, every request carries its own `_meta` envelope, no server-to-client
requests: the server asks the client for input by answering `input_required`, and the client retries).

Tools: add, shout (text content only), count (progress at each step), tick (progress every `interval` seconds),
wait, fail (an isError result), ask_name (form elicitation), open_url (URL elicitation), sample (sampling),
sample_with_tools (sampling with `tools` and `toolChoice`), roots (the client's roots), tenant_echo (its `tenant`
argument is mirrored in the Mcp-Param-Tenant header), log (a log message at a level), touch (notifies the
subscribers of a resource), add_tool (registers a tool and announces tools/list_changed). In the handshake era the
questions go to the client as requests, on the call's own stream when it can carry one (SSE answers, stdio) and
otherwise on the session's GET stream; in the 2026-07-28 era they ride an `input_required` answer.

Resources: text://greeting, blob://bytes (the bytes 0 to 15), text://item/1 to text://item/10, the template
greeting://{name} (completion for `name`); resources/list answers 5 a page. Prompt: greet(name, style?)
(completion for `style`). Logging (logging/setLevel), resources/subscribe and listChanged are advertised.

Over HTTP an ASGI middleware records every request (HTTP method, path, JSON-RPC method, headers): `GET /requests`
answers them as a JSON array (oldest first), `DELETE /requests` forgets them. With --modern-only it also refuses
every handshake-era request (no or a handshake-era MCP-Protocol-Version header, `initialize`, a GET or DELETE
carrying Mcp-Session-Id) as a server of the 2026-07-28 era alone does: 400 with the SDK's -32022 rejection.
"""

import asyncio
import importlib.metadata
import json
import socket
import sys
import warnings
from typing import Annotated, Any, get_args

from asgi_body import read_body, replaying
from mcp.server.elicitation import elicit_url, elicit_with_validation, render_elicitation_schema
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resources import TextResource
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    MCP_PROTOCOL_VERSION_HEADER,
    unsupported_protocol_version_rejection,
)
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    INVALID_PARAMS,
    UNSUPPORTED_PROTOCOL_VERSION,
    Completion,
    CompletionArgument,
    CompletionContext,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    EmptyResult,
    ErrorData,
    InputRequiredResult,
    JSONRPCError,
    ListResourcesResult,
    ListRootsRequest,
    ListRootsResult,
    LoggingLevel,
    PaginatedRequestParams,
    PromptReference,
    ResourceTemplateReference,
    SamplingMessage,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TextContent,
    Tool,
    ToolChoice,
    UnsubscribeRequestParams,
    UnsupportedProtocolVersionErrorData,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, Field

# The peer uses the features the 2026-07-28 revision deprecates (logging, sampling, roots) on purpose.
warnings.simplefilter("ignore", MCPDeprecationWarning)

args = [arg for arg in sys.argv[1:] if arg != "--modern-only"]
modern_only = "--modern-only" in sys.argv[1:]
mode = args[0] if len(args) > 0 else "stdio"
answer = args[1] if len(args) > 1 else "sse"

server = MCPServer("parley-peer2", version=importlib.metadata.version("mcp"), log_level="WARNING")
# What MCPServer has no decorator for (logging/setLevel, resources/subscribe, a paginated resources/list) is
# registered on its low-level Server with the public add_request_handler; MCPServer keeps that Server in
# `_lowlevel_server`, which the SDK's own Client reads too.
lowlevel = server._lowlevel_server


def is_modern(ctx: Context) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def connection_key(request: Any) -> str:
    """The handshake-era connection a request belongs to: its HTTP session, or the one stdio connection."""
    headers = getattr(request, "headers", None)
    return headers.get("mcp-session-id", "") if headers is not None else "stdio"


def asked(ctx: Context, key: str) -> Any:
    """The client's answer to the question `key` on this 2026-07-28 retry, or None on the first round."""
    return (ctx.input_responses or {}).get(key)


def related_request(ctx: Context) -> Any:
    """Where a handshake-era question or log message goes: this call's stream when it can carry a request (SSE
    answers, stdio), else (answers as JSON) the session's standalone GET stream."""
    return ctx.request_id if ctx.session.can_send_request else None


# Tools


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


@server.tool(description="Reports progress every `interval` seconds, n times, then returns.")
async def tick(n: int, interval: float, ctx: Context) -> str:
    for step in range(1, n + 1):
        await asyncio.sleep(interval)
        await ctx.report_progress(step, n, f"tick {step} of {n}")
    return f"ticked {n} times"


@server.tool(description="Waits.")
async def wait(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return f"waited {seconds} s"


@server.tool(description="Always fails.")
def fail() -> str:
    raise ToolError("this tool always fails")


class Name(BaseModel):
    name: str = Field(description="Your name")


NAME_QUESTION = "What is your name?"


@server.tool(description="Asks the client for a name (form elicitation) and greets it.")
async def ask_name(ctx: Context) -> str | InputRequiredResult:
    if is_modern(ctx):
        reply = asked(ctx, "name")
        if reply is None:
            question = ElicitRequestFormParams(message=NAME_QUESTION, requested_schema=render_elicitation_schema(Name))
            return InputRequiredResult(input_requests={"name": ElicitRequest(params=question)})
        result = ElicitResult.model_validate(reply.model_dump(mode="json", by_alias=True, exclude_none=True))
        if result.action == "accept":
            return f"hello {Name.model_validate(result.content or {}).name}"
        return "declined" if result.action == "decline" else "cancelled"
    outcome = await elicit_with_validation(ctx.session, NAME_QUESTION, Name, related_request_id=related_request(ctx))
    if outcome.action == "accept":
        return f"hello {outcome.data.name}"
    return "declined" if outcome.action == "decline" else "cancelled"


CONSENT_URL = "https://example.com/consent"


@server.tool(description="Asks the client to open a URL (URL elicitation) and returns its action.")
async def open_url(ctx: Context) -> str | InputRequiredResult:
    message = "Please give your consent."
    if is_modern(ctx):
        reply = asked(ctx, "consent")
        if reply is None:
            question = ElicitRequestURLParams(message=message, url=CONSENT_URL, elicitation_id="consent-1")
            return InputRequiredResult(input_requests={"consent": ElicitRequest(params=question)})
        return ElicitResult.model_validate(reply.model_dump(mode="json", by_alias=True, exclude_none=True)).action
    outcome = await elicit_url(ctx.session, message, CONSENT_URL, "consent-1", related_request_id=related_request(ctx))
    return outcome.action


def sampling_request(prompt: str, with_tools: bool) -> CreateMessageRequestParams:
    tools = None
    choice = None
    if with_tools:
        schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        tools = [Tool(name="weather", description="The weather in a city.", input_schema=schema)]
        choice = ToolChoice(mode="auto")
    message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
    return CreateMessageRequestParams(messages=[message], max_tokens=100, tools=tools, tool_choice=choice)


async def ask_sampling(ctx: Context, prompt: str, with_tools: bool) -> Any:
    """The client's sampling answer, or the InputRequiredResult that asks for it (2026-07-28, first round)."""
    params = sampling_request(prompt, with_tools)
    result_type = CreateMessageResultWithTools if with_tools else CreateMessageResult
    if is_modern(ctx):
        reply = asked(ctx, "sample")
        if reply is None:
            return InputRequiredResult(input_requests={"sample": CreateMessageRequest(params=params)})
        return result_type.model_validate(reply.model_dump(mode="json", by_alias=True, exclude_none=True))
    return await ctx.session.create_message(
        params.messages,
        max_tokens=params.max_tokens,
        tools=params.tools,
        tool_choice=params.tool_choice,
        related_request_id=related_request(ctx),
    )


@server.tool(description="Asks the client to sample its model with a prompt and returns the text it answered.")
async def sample(prompt: str, ctx: Context) -> str | InputRequiredResult:
    result = await ask_sampling(ctx, prompt, with_tools=False)
    if isinstance(result, InputRequiredResult):
        return result
    return result.content.text if isinstance(result.content, TextContent) else json.dumps(result.content.model_dump())


@server.tool(description="Asks the client to sample with a `weather` tool offered and returns its whole answer.")
async def sample_with_tools(prompt: str, ctx: Context) -> dict[str, Any] | InputRequiredResult:
    result = await ask_sampling(ctx, prompt, with_tools=True)
    if isinstance(result, InputRequiredResult):
        return result
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


@server.tool(description="Asks the client for its roots.")
async def roots(ctx: Context) -> list[str] | InputRequiredResult:
    if is_modern(ctx):
        reply = asked(ctx, "roots")
        if reply is None:
            return InputRequiredResult(input_requests={"roots": ListRootsRequest()})
        result = ListRootsResult.model_validate(reply.model_dump(mode="json", by_alias=True, exclude_none=True))
    else:
        metadata = ServerMessageMetadata(related_request_id=related_request(ctx))
        result = await ctx.session.send_request(ListRootsRequest(), ListRootsResult, metadata=metadata)
    return [str(root.uri) for root in result.roots]


@server.tool(description="Echoes a tenant (sent as the Mcp-Param-Tenant header too) and a region.")
def tenant_echo(
    tenant: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Tenant"})], region: str, ctx: Context
) -> dict[str, Any]:
    headers = ctx.headers
    return {
        "tenant": tenant,
        "region": region,
        "header": headers.get("mcp-param-tenant") if headers is not None else None,
    }


LEVELS: tuple[str, ...] = get_args(LoggingLevel)  # debug ... emergency, least severe first
log_levels: dict[str, str] = {}  # the level logging/setLevel set, by handshake-era connection


@server.tool(description="Sends a log message to the client at a level.")
async def log(message: str, level: LoggingLevel, ctx: Context) -> str:
    # 2026-07-28: the SDK sends only what the request's `_meta` opted in to. Handshake era: what logging/setLevel set.
    floor = log_levels.get(connection_key(ctx.request_context.request), "debug")
    if not is_modern(ctx) and LEVELS.index(level) < LEVELS.index(floor):
        return f"below {floor}: not sent"
    # Handshake era: on the call's stream if it can carry it (SSE answers, stdio), else the GET stream (JSON answers).
    # 2026-07-28: always on the call's stream (the SDK's rule), which JSON answers cannot carry.
    await ctx.session.send_log_message(level, message, logger="parley-peer2", related_request_id=related_request(ctx))
    return f"logged at {level}"


async def set_logging_level(ctx: Any, params: SetLevelRequestParams) -> EmptyResult:
    log_levels[connection_key(ctx.request)] = params.level
    return EmptyResult()


lowlevel.add_request_handler("logging/setLevel", SetLevelRequestParams, set_logging_level)

# Handshake-era resource subscriptions: uri -> connection -> the session to notify. (2026-07-28 clients listen
# with subscriptions/listen, which MCPServer serves from its subscription bus.)
subscribers: dict[str, dict[str, Any]] = {}


async def subscribe(ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
    subscribers.setdefault(str(params.uri), {})[connection_key(ctx.request)] = ctx.session
    return EmptyResult()


async def unsubscribe(ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
    subscribers.get(str(params.uri), {}).pop(connection_key(ctx.request), None)
    return EmptyResult()


lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)


@server.tool(description="Notifies the subscribers of a resource that it was updated.")
async def touch(uri: str, ctx: Context) -> str:
    await ctx.notify_resource_updated(uri)  # the subscriptions/listen streams (2026-07-28)
    sessions = subscribers.get(uri, {})
    for key, session in list(sessions.items()):  # resources/subscribe (handshake era)
        try:
            await session.send_resource_updated(uri)
        except Exception:
            sessions.pop(key, None)  # that connection is gone
    return f"touched {uri}"


added_tools = 0


@server.tool(description="Registers a new tool (added_1, added_2, ...) and announces tools/list_changed.")
async def add_tool(ctx: Context) -> str:
    global added_tools
    added_tools += 1
    name = f"added_{added_tools}"

    def added() -> str:
        return f"{name} ran"

    server.add_tool(added, name=name, description=f"A tool add_tool registered ({name}).")
    await ctx.notify_tools_changed()  # the subscriptions/listen streams (2026-07-28)
    if not is_modern(ctx):
        await ctx.session.send_tool_list_changed()  # the caller's connection (handshake era)
    return name


# Resources


@server.resource("text://greeting", name="greeting", mime_type="text/plain")
def greeting() -> str:
    return "hello from parley-peer2"


@server.resource("blob://bytes", name="bytes", mime_type="application/octet-stream")
def blob() -> bytes:
    return bytes(range(16))


@server.resource("greeting://{name}", name="greeting-for", mime_type="text/plain")
def greeting_for(name: str) -> str:
    return f"hello {name}"


for number in range(1, 11):
    server.add_resource(
        TextResource(uri=f"text://item/{number}", name=f"item-{number}", mime_type="text/plain", text=f"item {number}")
    )

# MCPServer answers resources/list in one page and has no page size: this handler serves its list in pages of
# PAGE_SIZE, the cursor being the offset of the next page.
PAGE_SIZE = 5


async def list_resources(ctx: Any, params: PaginatedRequestParams) -> ListResourcesResult:
    resources = await server.list_resources()
    cursor = params.cursor if params is not None else None
    if cursor is None:
        start = 0
    elif cursor.isdigit() and int(cursor) < len(resources):
        start = int(cursor)
    else:
        raise MCPError(code=INVALID_PARAMS, message=f"Invalid cursor: {cursor}")
    end = start + PAGE_SIZE
    return ListResourcesResult(resources=resources[start:end], next_cursor=str(end) if end < len(resources) else None)


lowlevel.add_request_handler("resources/list", PaginatedRequestParams, list_resources)


# Prompts and completion


@server.prompt(description="Greets someone.")
def greet(name: str, style: str | None = None) -> str:
    if style == "formal":
        return f"Please greet {name} formally."
    return f"Please greet {name}."


@server.completion()
async def complete(
    ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument, context: CompletionContext | None
) -> Completion | None:
    if isinstance(ref, ResourceTemplateReference) and ref.uri == "greeting://{name}" and argument.name == "name":
        candidates = ["alice", "alex", "bob"]
    elif isinstance(ref, PromptReference) and ref.name == "greet" and argument.name == "style":
        candidates = ["formal", "casual"]
    else:
        return None
    values = [value for value in candidates if value.startswith(argument.value)]
    return Completion(values=values, total=len(values), has_more=False)


# listChanged in the handshake era: MCPServer builds its initialize answer with the low-level Server's default
# NotificationOptions (none); announce the three lists' changes there. (At 2026-07-28 the SDK derives them from
# subscriptions/listen, which MCPServer serves.)
_initialization_options = lowlevel.create_initialization_options


def initialization_options(notification_options: Any = None, *rest: Any, **options: Any) -> Any:
    changes = NotificationOptions(prompts_changed=True, resources_changed=True, tools_changed=True)
    return _initialization_options(notification_options or changes, *rest, **options)


lowlevel.create_initialization_options = initialization_options


# The HTTP middleware: the request log, and the refusal of the handshake era with --modern-only


seen_requests: list[dict[str, Any]] = []


async def send_json(send: Any, status: int, body: Any) -> None:
    data = json.dumps(body).encode() if body is not None else b""
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def handshake_era_rejection(http_method: str, headers: dict[str, str], message: Any) -> JSONRPCError | None:
    """The SDK's -32022 answer to a handshake-era request, or None for a 2026-07-28 one."""
    version = headers.get(MCP_PROTOCOL_VERSION_HEADER)
    rpc_method = message.get("method") if isinstance(message, dict) else None
    refused = (
        version not in MODERN_PROTOCOL_VERSIONS
        or rpc_method == "initialize"
        or (http_method in ("GET", "DELETE") and "mcp-session-id" in headers)
    )
    if not refused:
        return None
    requested = version or ""
    if rpc_method == "initialize":
        params = message.get("params")
        offered = params.get("protocolVersion") if isinstance(params, dict) else None
        requested = offered if isinstance(offered, str) else requested
    rejection = unsupported_protocol_version_rejection(requested)
    if rejection is None:  # a 2026-07-28 version, on an initialize or a session's GET or DELETE
        data = UnsupportedProtocolVersionErrorData(supported=list(MODERN_PROTOCOL_VERSIONS), requested=requested)
        error = ErrorData(code=UNSUPPORTED_PROTOCOL_VERSION, message="Unsupported protocol version", data=data)
    else:
        error = ErrorData(code=rejection.code, message=rejection.message, data=rejection.data)
    request_id = message.get("id") if isinstance(message, dict) else None
    return JSONRPCError(jsonrpc="2.0", id=request_id if isinstance(request_id, str | int) else None, error=error)


def recording_middleware(app: Any) -> Any:
    async def middleware(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        if scope["path"] == "/requests":
            if scope["method"] == "GET":
                await send_json(send, 200, seen_requests)
            elif scope["method"] == "DELETE":
                seen_requests.clear()
                await send_json(send, 204, None)
            else:
                await send_json(send, 405, {"error": "GET or DELETE"})
            return

        headers: dict[str, str] = {}
        for name, value in scope["headers"]:
            key, text = name.decode("latin-1").lower(), value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
        body = b""
        if scope["method"] == "POST":
            read = await read_body(receive)
            if read is None:
                return
            body = read
        try:
            message = json.loads(body) if body else None
        except ValueError:
            message = None
        rpc_method = message.get("method") if isinstance(message, dict) else None
        seen_requests.append(
            {"method": scope["method"], "path": scope["path"], "rpcMethod": rpc_method, "headers": headers}
        )

        if modern_only:
            error = handshake_era_rejection(scope["method"], headers, message)
            if error is not None:
                wire = error.model_dump(mode="json", by_alias=True, exclude_none=True)
                wire["id"] = error.id
                await send_json(send, ERROR_CODE_HTTP_STATUS[error.error.code], wire)
                return

        await app(scope, replaying(body, receive) if scope["method"] == "POST" else receive, send)

    return middleware


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
    # Kept-alive connections stay open 75 s rather than uvicorn's 5 s, as in mcp_peer.py: the suites share one
    # client whose idle connections outlive 5 s between tests.
    app = recording_middleware(server.streamable_http_app(json_response=(answer == "json")))
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, timeout_keep_alive=75)
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
