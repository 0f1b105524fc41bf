"""A callback receiver for the Merchant Open Platform, Python 3 standard library only.

    MOP_APP_SECRETS=demo-app-secret python3 receiver.py --port 3000
    # then give http://127.0.0.1:3000/notify as notifyUrl (the sandbox needs --allow-insecure-notify for http)

Verifies X-Sign over the raw body before parsing it (any secret valid during a rotation; the
platform signs with the first), refuses stale timestamps and reused nonces, acknowledges each
event id once (deliveries repeat: at least once, unordered) and answers 2xx quickly.
"""
import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from mop_signing import NonceMemory, verify

MAX_BODY = 1024 * 1024


def make_handler(app_key: str, app_secrets: list):
    nonces = NonceMemory()
    handled_events = set()  # in production: a unique key in your database, claimed in the same transaction as your update
    lock = threading.Lock()

    class CallbackHandler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self.answer(413, "body too large")
            raw = self.rfile.read(length)  # the exact bytes: verify these, never a re-serialised copy
            with lock:
                verdict = verify(dict(self.headers.items()), raw, app_key, app_secrets, nonces)
            if not verdict.ok:
                print(f"refused callback: {verdict.code} {verdict.reason}", flush=True)
                return self.answer(401, f"{verdict.code} {verdict.reason}")
            event = json.loads(raw.decode("utf-8"))  # only now; ids are exact in Python's json
            with lock:
                duplicate = event["id"] in handled_events
                handled_events.add(event["id"])
            if duplicate:
                print(f"duplicate {event['type']} {event['id']}: acknowledged again, not handled again", flush=True)
            else:
                # Check outTradeNo and totalAmount against your own order before you ship anything.
                print(f"verified {event['type']} {event['id']}: {json.dumps(event['data'], ensure_ascii=False, separators=(',', ':'))}", flush=True)
            return self.answer(200, "success")

        def answer(self, status: int, text: str):
            body = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    return CallbackHandler


def main() -> int:
    parser = argparse.ArgumentParser(description="Receives and verifies Merchant Open Platform callbacks.")
    parser.add_argument("--port", type=int, default=3000, help="0 picks a free port")
    parser.add_argument("--app-key", default=os.environ.get("MOP_APP_KEY", "demo-app-key"))
    args = parser.parse_args()
    app_secrets = [s for s in os.environ.get("MOP_APP_SECRETS", "demo-app-secret").split(",") if s]
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.app_key, app_secrets))
    print(f"receiving callbacks on http://127.0.0.1:{server.server_address[1]}/notify", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
