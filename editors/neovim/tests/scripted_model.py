#!/usr/bin/env python3
"""A scripted model for tests: an OpenAI Chat Completions server on 127.0.0.1.

    scripted_model.py SCRIPT.json LOG.jsonl PORT_FILE

SCRIPT.json is {"steps": [{"tool": NAME, "arguments": {...}}, ...],
"final": TEXT}. Each POST .../chat/completions is answered as a stream
(server-sent events): with the tool call of step N, where N is the number of
assistant messages with tool_calls already in the request, or with the
final text once every step has been played. So a host that resends a
request replays the same step, and the answer does not depend on how many
requests came before. GET .../models lists one model, "scripted".

Every request body is appended to LOG.jsonl as one JSON line. The port
(chosen by the system) is written to PORT_FILE once the server listens.
SCRIPT.json is read again for every request.
Standard library only. Not a model of the API's corner cases: enough for a
host's streaming chat turn with tool calls.
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

script_path, log_path, port_file = sys.argv[1:4]


def load_script():
    # Read at each request, so that a test may change the script between turns.
    with open(script_path) as f:
        return json.load(f)


def chunk(delta, finish=None):
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send_json(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.endswith("/models"):
            self.send_json({"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        else:
            self.send_error(404)

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        try:
            req = json.loads(raw)
        except ValueError:
            req = {"unparsed": raw.decode("utf-8", "replace")}
        with open(log_path, "a") as f:
            f.write(json.dumps({"path": self.path, "body": req}) + "\n")
        if not self.path.endswith("/chat/completions"):
            self.send_error(404)
            return
        script = load_script()
        messages = req.get("messages") or []
        done = sum(1 for m in messages if m.get("role") == "assistant" and m.get("tool_calls"))
        steps = script.get("steps") or []
        if done < len(steps):
            step = steps[done]
            call = {
                "index": 0,
                "id": "call_%d" % (done + 1),
                "type": "function",
                "function": {"name": step["tool"], "arguments": json.dumps(step.get("arguments") or {})},
            }
            events = [chunk({"role": "assistant", "content": None, "tool_calls": [call]}), chunk({}, "tool_calls")]
        else:
            events = [chunk({"role": "assistant", "content": script.get("final", "done")}), chunk({}, "stop")]
        if not req.get("stream"):
            msg = {"role": "assistant"}
            for e in events:
                msg.update({k: v for k, v in e["choices"][0]["delta"].items() if k != "role"})
            self.send_json({"id": "chatcmpl-scripted", "object": "chat.completion", "model": "scripted",
                            "choices": [{"index": 0, "message": msg, "finish_reason": events[-1]["choices"][0]["finish_reason"]}]})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for e in events:
            self.wfile.write(b"data: " + json.dumps(e).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
tmp = port_file + ".tmp"
with open(tmp, "w") as f:
    f.write(str(server.server_address[1]))
os.replace(tmp, port_file)
server.serve_forever()
