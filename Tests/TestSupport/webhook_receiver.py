#!/usr/bin/env python3
"""A webhook receiver for dropcut's delivery tests: a real HTTP server on loopback that
checks each request's Standard Webhooks signature exactly as docs/connect.md tells users to
(hmac, hashlib, base64 from Python's standard library: an oracle independent of dropcut's
own HMAC), and appends one JSON line per request to a log the test reads.

  webhook_receiver.py --secret whsec_... --log FILE [--port N] [--port-file FILE]
                      [--fail 500,500,hang] [--hang SECONDS]

--fail lists how the first requests are answered, in order: a status code (500), or
"hang" (answer 200 only after --hang seconds, past the sender's timeout). Later requests
get 200.
"""
import argparse
import base64
import hashlib
import hmac
import http.server
import json
import os
import signal
import threading
import time


def signature_valid(secret, msg_id, timestamp, body, header):
    key = base64.b64decode(secret[len("whsec_"):]) if secret.startswith("whsec_") else base64.b64decode(secret)
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for part in header.split(" "):
        version, _, value = part.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return True
    return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--secret", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file")
    parser.add_argument("--fail", default="")
    parser.add_argument("--hang", type=float, default=5)
    args = parser.parse_args()
    # A test runner may start us with SIGTERM ignored (inherited across exec): stop on it.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    plan = [step for step in args.fail.split(",") if step]
    lock = threading.Lock()
    count = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            with lock:
                n = count[0]
                count[0] += 1
            step = plan[n] if n < len(plan) else "200"
            headers = {k.lower(): v for k, v in self.headers.items()}
            ts = headers.get("webhook-timestamp", "")
            entry = {
                "n": n,
                "received": time.time(),
                "path": self.path,
                "headers": headers,
                "body": body.decode("utf-8", "replace"),
                "signature_valid": signature_valid(args.secret, headers.get("webhook-id", ""), ts, body,
                                                   headers.get("webhook-signature", "")),
                "timestamp_fresh": ts.isdigit() and abs(time.time() - int(ts)) < 300,
                "answer": step,
            }
            with lock:
                with open(args.log, "a") as log:
                    log.write(json.dumps(entry) + "\n")
            if step == "hang":
                time.sleep(args.hang)
                step = "200"
            status = int(step)
            reply = b'{"ok": true}' if status == 200 else b'{"error": "scripted failure"}'
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.port_file:
        temporary = args.port_file + ".tmp"
        with open(temporary, "w") as f:
            f.write(str(server.server_address[1]))
        os.rename(temporary, args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
