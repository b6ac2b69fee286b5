#!/usr/bin/env python3
"""An independent JSON-RPC 2.0 peer over standard input and output, for Parley's stdio interop suite
(Tests/ParleyJSONRPCTests/Peers/StdioPeerTests.swift), which starts it as a child process.

Requests and notifications from the client are handled by the PyPI library `json-rpc`
(https://github.com/pavlov99/json-rpc): its Dispatcher and JSONRPCResponseManager (parsing, batches,
notifications, error objects). The peer's own requests and notifications to the client are built with the
library's JSONRPC20Request. This file only frames messages and keeps track of the answers to its own requests.

Usage: stdio_peer.py [--framing content-length|newline]
    content-length (the default): "Content-Length: N\\r\\n\\r\\n" then N bytes, as language servers frame messages.
    newline: one message per line, as MCP's stdio transport frames them.
    The peer answers until its standard input ends, then exits 0. Nothing but messages goes to standard output.

Methods: subtract, sum, get_data, echo, fail (as peers/jsonrpc_peer.py), notify_hello (recorded),
received(marker), and for the stdio suite:
    ask_back(n)   sends the client a notification `peer_note` ["asking", n] and a request `double` [n],
                  waits for the client's answer, and returns {"asked": n, "answer": <the client's result>}
                  (or {"asked": n, "error": <the client's error object>}).
    hang()        sends the client a notification `hanging` [] once it has started, and answers (with an error)
                  only when the peer's input ends, or with -32800 "Request cancelled" (LSP's code) once the client
                  cancels a request: a call that stays pending until then.
    The cancellation notifications of LSP (`$/cancelRequest` {id}) and MCP (`notifications/cancelled`
    {requestId, reason}) are recorded: received("cancel") lists them as ["cancel", method, params].
    work(steps, interval) reports LSP work done progress ($/progress) on the call's workDoneToken, a step every
                  `interval` seconds (0: at once), and returns "worked N steps".
    exit_now(code) exits the process at once with `code`, answering nothing.
    subscribe(topic, count), unsubscribe(id), burst(count), flood(count, method): subscriptions, and a peer that floods
    the client with notifications or requests (see each function).
"""

import argparse
import itertools
import json
import os
import sys
import threading
import time

from jsonrpc import Dispatcher, JSONRPCResponseManager
from jsonrpc.exceptions import JSONRPCDispatchException
from jsonrpc.jsonrpc2 import JSONRPC20Request

dispatcher = Dispatcher()

_received = []
_received_lock = threading.Lock()
# Set when the input ends: pending `hang` calls and unanswered `ask_back` requests give up.
_input_ended = threading.Event()
# Set when the input ends or the client cancels a request: pending `hang` calls answer.
_stop_hanging = threading.Event()


class Framed:
    """Reads and writes framed messages on binary streams."""

    def __init__(self, framing, reader, writer):
        self.framing = framing
        self.reader = reader
        self.writer = writer
        self.write_lock = threading.Lock()

    def read(self):
        """The next message as bytes, or None at the end of input."""
        if self.framing == "newline":
            while True:
                line = self.reader.readline()
                if not line:
                    return None
                if line.strip():
                    return line.rstrip(b"\r\n")
        length = None
        while True:
            line = self.reader.readline()
            if not line:
                return None
            line = line.rstrip(b"\r\n")
            if not line:
                if length is None:
                    raise ValueError("a header block without Content-Length")
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        body = self.reader.read(length)
        return body if len(body) == length else None

    def write(self, message):
        data = message.encode("utf-8") if isinstance(message, str) else message
        if self.framing == "newline":
            framed = data + b"\n"
        else:
            framed = b"Content-Length: %d\r\n\r\n" % len(data) + data
        with self.write_lock:
            self.writer.write(framed)
            self.writer.flush()


class Outgoing:
    """The peer's own requests to the client, waiting for their answers by id."""

    def __init__(self, stream):
        self.stream = stream
        self.ids = itertools.count(1)
        self.lock = threading.Lock()
        self.waiting = {}

    def start(self, method, params):
        """Sends a request; returns its id and the slot its answer will arrive in."""
        request_id = "peer-%d" % next(self.ids)
        slot = {"event": threading.Event()}
        with self.lock:
            self.waiting[request_id] = slot
        self.stream.write(JSONRPC20Request(method=method, params=params, _id=request_id).json)
        return request_id, slot

    def call(self, method, params, timeout=30):
        _, slot = self.start(method, params)
        if not slot["event"].wait(timeout) or "answer" not in slot:
            raise JSONRPCDispatchException(code=-32001, message="the client did not answer " + method)
        return slot["answer"]

    def notify(self, method, params):
        self.stream.write(JSONRPC20Request(method=method, params=params, is_notification=True).json)

    def deliver(self, answer):
        """Hands an answer from the client to the request waiting for it; False when none waits."""
        with self.lock:
            slot = self.waiting.pop(answer.get("id"), None)
        if slot is None:
            return False
        slot["answer"] = answer
        slot["event"].set()
        return True

    def give_up(self):
        with self.lock:
            slots, self.waiting = list(self.waiting.values()), {}
        for slot in slots:
            slot["event"].set()


outgoing = None  # set in main()


@dispatcher.add_method
def subtract(minuend, subtrahend):
    return minuend - subtrahend


dispatcher.add_method(lambda *numbers: sum(numbers), name="sum")


@dispatcher.add_method
def get_data():
    return ["hello", 5]


@dispatcher.add_method
def echo(*args, **kwargs):
    return kwargs if kwargs else list(args)


@dispatcher.add_method
def notify_hello(*args, **kwargs):
    with _received_lock:
        _received.append(["notify_hello", kwargs if kwargs else list(args)])


@dispatcher.add_method
def received(marker):
    with _received_lock:
        return [entry for entry in _received if isinstance(entry[1], list) and entry[1][:1] == [marker]]


@dispatcher.add_method
def fail():
    raise JSONRPCDispatchException(code=-32010, message="Quota exceeded", data={"field": "amount"})


@dispatcher.add_method
def ask_back(number):
    outgoing.notify("peer_note", ["asking", number])
    answer = outgoing.call("double", [number])
    if "error" in answer:
        return {"asked": number, "error": answer["error"]}
    return {"asked": number, "answer": answer.get("result")}


@dispatcher.add_method
def ask_and_cancel(style):
    """Calls the client's `slow`, cancels it at once in the words of `style` (lsp or mcp), and returns the client's
    answer to it: LSP answers -32800 (waited for up to 25 s, so that a loaded machine cannot fail the test: the answer
    always comes); MCP answers nothing, so after 2 s this returns None."""
    request_id, slot = outgoing.start("slow", [])
    if style == "lsp":
        outgoing.notify("$/cancelRequest", {"id": request_id})
    else:
        outgoing.notify("notifications/cancelled", {"requestId": request_id, "reason": "no longer needed"})
    if not slot["event"].wait(25 if style == "lsp" else 2) or "answer" not in slot:
        return None
    return slot["answer"]


@dispatcher.add_method
def work(steps=2, workDoneToken=None, interval=0, **_):
    """Reports LSP work done progress on the client's token ($/progress begin, a report a step, end), a step every
    `interval` seconds; a cancellation (or the end of the input) stops it with -32800 "Request cancelled"."""
    if workDoneToken is not None:
        outgoing.notify("$/progress", {"token": workDoneToken, "value": {"kind": "begin", "title": "Working", "percentage": 0}})
        for step in range(1, steps + 1):
            if interval and _stop_hanging.wait(interval):
                raise JSONRPCDispatchException(code=-32800, message="Request cancelled")
            value = {"kind": "report", "message": "step %d" % step, "percentage": step * 100 // (steps + 1)}
            outgoing.notify("$/progress", {"token": workDoneToken, "value": value})
        outgoing.notify("$/progress", {"token": workDoneToken, "value": {"kind": "end", "message": "done"}})
    return "worked %d steps" % steps


@dispatcher.add_method
def hang():
    outgoing.notify("hanging", [])
    _stop_hanging.wait()
    if not _input_ended.is_set():
        raise JSONRPCDispatchException(code=-32800, message="Request cancelled")
    raise JSONRPCDispatchException(code=-32002, message="the input ended")


def _cancellation(method):
    def record(**params):
        with _received_lock:
            _received.append([method, ["cancel", method, params]])
        _stop_hanging.set()

    return record


dispatcher.add_method(_cancellation("$/cancelRequest"), name="$/cancelRequest")
dispatcher.add_method(_cancellation("notifications/cancelled"), name="notifications/cancelled")


_subscriptions = itertools.count(1)


@dispatcher.add_method
def subscribe(topic, count=5):
    """A subscription in the style of eth_subscribe: returns its id, and sends `count` notifications `tick`
    {"subscription": id, "topic": topic, "n": 0…count-1}. The first two go out before the answer (a client must hold
    them for the subscription), the rest from a thread of their own, after or around it."""
    subscription = "sub-%d" % next(_subscriptions)

    def tick(n):
        outgoing.notify("tick", {"subscription": subscription, "topic": topic, "n": n})

    for n in range(min(2, count)):
        tick(n)
    threading.Thread(target=lambda: [tick(n) for n in range(2, count)]).start()
    return subscription


@dispatcher.add_method
def unsubscribe(subscription):
    with _received_lock:
        _received.append(["unsubscribe", ["unsubscribe", subscription]])
    return True


@dispatcher.add_method
def burst(count):
    """Sends `count` notifications `burst` {"n": i}, then answers `count`: a peer that floods the client."""
    for n in range(count):
        outgoing.notify("burst", {"n": n})
    return count


@dispatcher.add_method
def flood(count, method="hold", release_after_errors=None):
    """Sends the client `count` requests `method` [i] at once, waits for every answer (at most 60 s), and returns how
    many were answered with a result: a peer that floods the client with requests. With `release_after_errors`, once
    that many requests were answered with an error, it notifies the client `flood_release` (so that the client's
    handlers, held until then, can finish)."""
    slots = [outgoing.start(method, [n])[1] for n in range(count)]
    if release_after_errors is not None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            errors = sum(1 for slot in slots if slot["event"].is_set() and "error" in slot.get("answer", {}))
            if errors >= release_after_errors:
                break
            time.sleep(0.01)
        outgoing.notify("flood_release", [])
    answered = 0
    for slot in slots:
        if slot["event"].wait(60) and "result" in slot.get("answer", {}):
            answered += 1
    return answered


@dispatcher.add_method
def exit_now(code):
    os._exit(code)


def is_answer(message):
    """Whether `message` is a response (to one of the peer's own requests) rather than a request."""
    return isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message)


def handle(stream, raw):
    response = JSONRPCResponseManager.handle(raw, dispatcher)
    if response is not None:
        try:
            stream.write(response.json)
        except (BrokenPipeError, ValueError):
            pass  # the client went away


def main():
    global outgoing
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--framing", choices=["content-length", "newline"], default="content-length")
    arguments = parser.parse_args()

    stream = Framed(arguments.framing, sys.stdin.buffer, sys.stdout.buffer)
    outgoing = Outgoing(stream)
    workers = []
    while True:
        raw = stream.read()
        if raw is None:
            break
        try:
            message = json.loads(raw)
        except ValueError:
            message = None
        if is_answer(message) and outgoing.deliver(message):
            continue
        # Each request on its own thread: `ask_back` waits for an answer that this loop has to read.
        worker = threading.Thread(target=handle, args=(stream, raw.decode("utf-8", "replace")))
        worker.start()
        workers.append(worker)
    _input_ended.set()
    _stop_hanging.set()
    outgoing.give_up()
    for worker in workers:
        worker.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
