#!/usr/bin/env python3
"""An independent JSON-RPC 2.0 peer for Parley's interop suite
(Tests/ParleyJSONRPCTests/Peers/JSONRPCPeerTests.swift).

The protocol is entirely the PyPI library `json-rpc` (https://github.com/pavlov99/json-rpc): its Dispatcher,
its JSONRPCResponseManager (parsing, batches, notifications, error objects) and its own Flask view
(`jsonrpc.backend.flask.JSONRPCAPI`, which also decides the HTTP status and body of every answer). This file only
registers the methods and serves that view with Werkzeug's threaded HTTP/1.1 server on 127.0.0.1.

Usage: jsonrpc_peer.py PORT [--log FILE]
    PORT 0 picks an ephemeral port. Prints "listening on http://127.0.0.1:PORT/rpc" (flushed) once it accepts
    connections. --log FILE appends every exchange (request bytes, HTTP status, response bytes) to FILE.
"""

import argparse
import io
import json
import logging
import sys
import threading
import time

from flask import Flask
from jsonrpc import Dispatcher
from jsonrpc.backend.flask import JSONRPCAPI
from jsonrpc.exceptions import JSONRPCDispatchException
from werkzeug.serving import make_server

dispatcher = Dispatcher()

# Notifications received, in order: [method, params]. `received` reads them back, so that a test can check that a
# notification it sent (which gets no answer) really arrived.
_received = []
_received_lock = threading.Lock()


def _record(method, args, kwargs):
    with _received_lock:
        _received.append([method, kwargs if kwargs else list(args)])


@dispatcher.add_method
def subtract(minuend, subtrahend):
    return minuend - subtrahend


def _sum(*numbers):
    return sum(numbers)


dispatcher.add_method(_sum, name="sum")


@dispatcher.add_method
def get_data():
    return ["hello", 5]


@dispatcher.add_method
def echo(*args, **kwargs):
    """Returns its params: the object for named params, the array for positional ones."""
    return kwargs if kwargs else list(args)


@dispatcher.add_method
def update(*args, **kwargs):
    _record("update", args, kwargs)


@dispatcher.add_method
def notify_hello(*args, **kwargs):
    _record("notify_hello", args, kwargs)


@dispatcher.add_method
def received(marker):
    """The notifications received so far whose first positional param is `marker`."""
    with _received_lock:
        return [entry for entry in _received if isinstance(entry[1], list) and entry[1][:1] == [marker]]


@dispatcher.add_method
def fail():
    # The library's own application-error API: it becomes the response's error object.
    raise JSONRPCDispatchException(code=-32010, message="Quota exceeded", data={"field": "amount"})


# Calls per key of `limited` and of the status faults below, for the retry tests to count attempts.
_attempts = {}
_attempts_lock = threading.Lock()


def _count(key):
    with _attempts_lock:
        _attempts[key] = _attempts.get(key, 0) + 1
        return _attempts[key]


@dispatcher.add_method
def limited(key, failures):
    """Answers -32005 "limit exceeded" (EIP-1474) to the first `failures` calls with `key`, then succeeds."""
    attempt = _count("limited:" + key)
    if attempt <= failures:
        raise JSONRPCDispatchException(code=-32005, message="limit exceeded", data={"attempt": attempt})
    return {"key": key, "attempt": attempt}


@dispatcher.add_method
def attempts(key):
    """How many requests `limited` (key "limited:K") or a status fault (key "status:K") has seen."""
    with _attempts_lock:
        return _attempts.get(key, 0)


app = Flask(__name__)
app.add_url_rule("/rpc", view_func=JSONRPCAPI(dispatcher=dispatcher).as_view(), methods=["POST"])


class StatusFaults:
    """WSGI middleware: a POST to /rpc/status/CODE/TIMES/KEY is answered CODE (with Retry-After: 0) the first TIMES
    times for KEY, as an overloaded node or its rate limiter does, then served by the JSON-RPC view at /rpc; one to
    /rpc/slow/MS is served after MS milliseconds."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        parts = environ.get("PATH_INFO", "").split("/")
        if len(parts) == 4 and parts[1:3] == ["rpc", "slow"]:
            time.sleep(int(parts[3]) / 1000)  # a slow node: every answer takes this many milliseconds
            environ["PATH_INFO"] = "/rpc"
        elif len(parts) == 6 and parts[1:3] == ["rpc", "status"]:
            code, times, key = int(parts[3]), int(parts[4]), parts[5]
            if _count("status:" + key) <= times:
                length = int(environ.get("CONTENT_LENGTH") or 0)
                if length:
                    environ["wsgi.input"].read(length)
                reason = {429: "Too Many Requests", 503: "Service Unavailable"}.get(code, "Fault")
                start_response(f"{code} {reason}", [("Content-Type", "text/plain"), ("Retry-After", "0")])
                return [b"busy"]
            environ["PATH_INFO"] = "/rpc"
        return self.app(environ, start_response)


class ExchangeLog:
    """WSGI middleware writing the raw bytes of every exchange to a file (debugging aid, off by default)."""

    def __init__(self, app, path):
        self.app = app
        self.path = path
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(body)
        captured = {}

        def capture(status, headers, exc_info=None):
            captured["status"] = status
            captured["headers"] = headers
            return start_response(status, headers, exc_info)

        chunks = list(self.app(environ, capture))
        with self.lock, open(self.path, "a", encoding="utf-8") as log:
            log.write(json.dumps({
                "request": {"method": environ["REQUEST_METHOD"], "path": environ.get("PATH_INFO"),
                            "content_type": environ.get("CONTENT_TYPE"), "body": body.decode("utf-8", "replace")},
                "response": {"status": captured.get("status"), "headers": captured.get("headers"),
                             "body": b"".join(chunks).decode("utf-8", "replace")},
            }) + "\n")
        return chunks


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("port", type=int, help="TCP port on 127.0.0.1; 0 for an ephemeral one")
    parser.add_argument("--log", help="append every exchange's raw bytes to this file")
    arguments = parser.parse_args()

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    application = StatusFaults(ExchangeLog(app, arguments.log) if arguments.log else app)
    # threaded: one thread per connection, HTTP/1.1 keep-alive (Werkzeug switches to HTTP/1.1 when threaded).
    server = make_server("127.0.0.1", arguments.port, application, threaded=True)
    print(f"listening on http://127.0.0.1:{server.server_port}/rpc", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
