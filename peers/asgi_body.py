"""The request body of an ASGI middleware that reads it before the app does: read once, handed to the app again."""

from typing import Any, Awaitable, Callable

Receive = Callable[[], Awaitable[dict[str, Any]]]


async def read_body(receive: Receive) -> bytes | None:
    """The whole request body; `None` when the client disconnects first."""
    body = b""
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            return None
        body += event.get("body", b"")
        if not event.get("more_body", False):
            return body


def replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` for the app that hands it `body` (already read) first, then whatever `receive` gives."""
    replayed = False

    async def replay() -> dict[str, Any]:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
