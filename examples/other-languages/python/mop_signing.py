"""Merchant Open Platform request signing, Python 3 standard library only.

X-Sign = Base64(HMAC-SHA256(app secret, X-App-Key + X-Timestamp + X-Nonce + body)), where the body
is the exact bytes sent (empty for a GET). Copy this file into your project; check it against the
published vectors with:

    python3 mop_signing.py --check-vectors node_modules/merchant-open-platform/vectors/signing-vectors.json
"""
import base64
import hashlib
import hmac
import json
import re
import secrets
import sys
import time

WINDOW_SECONDS = 300
TIMESTAMP = re.compile(r"[0-9]{10}")
NONCE = re.compile(r"[A-Za-z0-9_-]{8,64}")
SIGNATURE = re.compile(r"[A-Za-z0-9+/]{43}=")


def string_to_sign(app_key: str, timestamp: str, nonce: str, body: bytes = b"") -> bytes:
    """appKey + timestamp + nonce + body, concatenated with no separator, as UTF-8 bytes."""
    return (app_key + timestamp + nonce).encode("utf-8") + body


def sign(app_secret: str, app_key: str, timestamp: str, nonce: str, body: bytes = b"") -> str:
    digest = hmac.new(app_secret.encode("utf-8"), string_to_sign(app_key, timestamp, nonce, body), hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")  # standard alphabet, padded: 44 characters


def new_nonce() -> str:
    """32 random characters of A-Z a-z 0-9 _ -: fresh for every request and every retry."""
    return secrets.token_urlsafe(24)


def signed_headers(app_key: str, app_secret: str, body: bytes = b"", now: float = None, nonce: str = None) -> dict:
    """The four signature headers for a body you are about to send, byte for byte."""
    timestamp = str(int(time.time() if now is None else now))  # seconds, never milliseconds
    nonce = new_nonce() if nonce is None else nonce
    return {
        "X-App-Key": app_key,
        "X-Timestamp": timestamp,
        "X-Nonce": nonce,
        "X-Sign": sign(app_secret, app_key, timestamp, nonce, body),
    }


class Verdict:
    def __init__(self, code: int = 0, reason: str = "ok"):
        self.code = code
        self.reason = reason

    @property
    def ok(self) -> bool:
        return self.code == 0


class NonceMemory:
    """Nonces seen within the window, per app key. In production keep them where every instance sees them (Redis SET NX EX)."""

    def __init__(self):
        self._seen = {}

    def first_use(self, app_key: str, nonce: str, now: float) -> bool:
        self._seen = {key: expiry for key, expiry in self._seen.items() if expiry > now}
        key = (app_key, nonce)
        if key in self._seen:
            return False
        self._seen[key] = now + 2 * WINDOW_SECONDS
        return True


def verify(headers: dict, body: bytes, app_key: str, app_secrets: list, nonces: NonceMemory, now: float = None) -> Verdict:
    """Checks a signed request or callback the way the platform does, in its order; answers the registry code.

    `headers` maps header names in any case; `body` is the raw body as received; `app_secrets` are
    every secret valid now (two during a rotation: the platform signs callbacks with the first).
    """
    now = time.time() if now is None else now
    lower = {name.lower(): value for name, value in headers.items()}
    values = [lower.get(name, "") for name in ("x-app-key", "x-timestamp", "x-nonce", "x-sign")]
    if any(value == "" for value in values):
        return Verdict(100001, "a signature header is missing or empty")
    key, timestamp, nonce, signature = values
    if not TIMESTAMP.fullmatch(timestamp):
        return Verdict(100010, "X-Timestamp is not 10 digits of Unix seconds")
    if not NONCE.fullmatch(nonce):
        return Verdict(100011, "X-Nonce is not 8 to 64 characters of A-Z a-z 0-9 _ -")
    if not SIGNATURE.fullmatch(signature):
        return Verdict(100012, "X-Sign is not padded standard Base64 of 32 bytes")
    if key != app_key:
        return Verdict(100002, "X-App-Key is not this app")
    if abs(int(timestamp) - int(now)) > WINDOW_SECONDS:
        return Verdict(100004, "X-Timestamp is more than 300 s from this clock")
    if not any(hmac.compare_digest(sign(secret, key, timestamp, nonce, body), signature) for secret in app_secrets):
        return Verdict(100003, "X-Sign does not match the body under any valid secret")
    if not nonces.first_use(key, nonce, now):
        return Verdict(100005, "X-Nonce was already used within the window")
    return Verdict()


def check_vectors(path: str) -> int:
    with open(path, encoding="utf-8") as file:
        vectors = json.load(file)
    failures = []
    for case in vectors["valid"]:
        body = case["body"].encode("utf-8")
        if len(body) != case["bodyUtf8Bytes"]:
            failures.append(f"{case['name']}: body is {len(body)} UTF-8 bytes, not {case['bodyUtf8Bytes']}")
        if string_to_sign(case["appKey"], case["timestamp"], case["nonce"], body) != case["stringToSign"].encode("utf-8"):
            failures.append(f"{case['name']}: string to sign differs")
        if sign(case["appSecret"], case["appKey"], case["timestamp"], case["nonce"], body) != case["expectedSign"]:
            failures.append(f"{case['name']}: X-Sign differs from expectedSign")
        headers = {"X-App-Key": case["appKey"], "X-Timestamp": case["timestamp"], "X-Nonce": case["nonce"], "X-Sign": case["expectedSign"]}
        verdict = verify(headers, body, case["appKey"], [case["appSecret"]], NonceMemory(), now=int(case["timestamp"]))
        if not verdict.ok:
            failures.append(f"{case['name']}: the verifier refused it with {verdict.code} ({verdict.reason})")
    for case in vectors["wrongVariants"]:
        timestamp = case.get("wrongTimestamp", case["timestamp"])
        headers = {"X-App-Key": case["appKey"], "X-Timestamp": timestamp, "X-Nonce": case["nonce"], "X-Sign": case["wrongSign"]}
        verdict = verify(headers, case["body"].encode("utf-8"), case["appKey"], [case["appSecret"]], NonceMemory(), now=int(case["timestamp"]))
        if verdict.code != case["expectedCode"]:
            failures.append(f"{case['name']}: the verifier answered {verdict.code}, the vectors expect {case['expectedCode']}")
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"signing vectors: {len(vectors['valid'])} valid cases and {len(vectors['wrongVariants'])} wrong variants pass")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check-vectors":
        sys.exit(check_vectors(sys.argv[2]))
    print("usage: python3 mop_signing.py --check-vectors FILE", file=sys.stderr)
    sys.exit(2)
