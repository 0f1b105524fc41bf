"""The payment flow against the Merchant Open Platform sandbox, Python 3 standard library only.

    npx mop sandbox                      # in another terminal: http://127.0.0.1:4010
    python3 flow.py --base-url http://127.0.0.1:4010

syncCustomer -> createOrder (the sandbox's order ids are above 2^53) -> getOrder -> payOrder ->
the trade paid through the sandbox's control API (as the buyer would) -> queryPayment.
Python's json module reads integers exactly, at any size: ids need no special care here, only
never a float() (see docs/ids-and-int64.md).
"""
import argparse
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

from mop_signing import signed_headers


class ApiError(Exception):
    def __init__(self, operation, status, envelope):
        super().__init__(f"{operation}: HTTP {status}, code {envelope.get('code')}: {envelope.get('msg') or envelope.get('message')}")
        self.code = envelope.get("code")


class SignedClient:
    def __init__(self, base_url: str, app_key: str, app_secret: str):
        self.base_url = base_url.rstrip("/")
        self.app_key = app_key
        self.app_secret = app_secret

    def call(self, operation: str, method: str, path: str, query: dict = None, body=None):
        """Sends one signed request and answers the envelope's data; any other code raises ApiError."""
        # Compact JSON, sent as exactly these bytes: the signature covers them.
        data = b"" if body is None else json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        headers = signed_headers(self.app_key, self.app_secret, data)
        if body is not None:
            headers["Content-Type"] = "application/json"
        url = f"{self.base_url}/open-api/v1{path}"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        envelope, status = send(url, method, headers, data if body is not None else None)
        if envelope.get("code") != 0:
            raise ApiError(operation, status, envelope)
        return envelope["data"]


def send(url: str, method: str, headers: dict, data):
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read().decode("utf-8")), response.status
    except urllib.error.HTTPError as error:  # the envelope comes with 4xx/5xx too; its code decides
        return json.loads(error.read().decode("utf-8")), error.code


def pay_through_sandbox(base_url: str, trade_no: str):
    """The sandbox's control API pays the trade as the buyer would at the cashier (no signature there)."""
    url = f"{base_url.rstrip('/')}/sandbox/trades/{urllib.parse.quote(trade_no)}/pay"
    envelope, status = send(url, "POST", {"Content-Type": "application/json"}, b"")
    if envelope.get("code") != 0:
        raise ApiError("payTrade", status, envelope)


def main() -> int:
    parser = argparse.ArgumentParser(description="The payment flow against the Merchant Open Platform sandbox.")
    parser.add_argument("--base-url", default="http://127.0.0.1:4010", help="the sandbox (its /open-api/v1 and /sandbox)")
    parser.add_argument("--app-key", default=os.environ.get("MOP_APP_KEY", "demo-app-key"))
    parser.add_argument("--app-secret", default=os.environ.get("MOP_APP_SECRET", "demo-app-secret"))
    parser.add_argument("--merchant-id", type=int, default=10001)
    parser.add_argument("--open-user-id", default="python-user-4711")
    parser.add_argument("--notify-url", default="https://app.example.com/mop/notify")
    args = parser.parse_args()

    client = SignedClient(args.base_url, args.app_key, args.app_secret)
    try:
        app_user_id = client.call("syncCustomer", "POST", "/customers/sync", body={"openUserId": args.open_user_id})["appUserId"]
        print(f"customer {args.open_user_id}: appUserId {app_user_id}")

        order_id = client.call("createOrder", "POST", "/orders", body={
            "merchantId": args.merchant_id,
            "userId": app_user_id,
            "orderType": 1,
            "items": [{"itemType": 1, "itemId": 30001, "itemName": "拿铁 Latte", "price": 2800, "quantity": 2}],
        })
        print(f"order {order_id} created ({'above' if order_id > 2**53 else 'below'} 2^53, kept exact)")

        order = client.call("getOrder", "GET", f"/orders/{order_id}", query={"merchantId": args.merchant_id})
        assert order["id"] == order_id, f"getOrder answered order {order['id']}, not {order_id}"
        print(f"order {order['id']} read back: status {order['status']}, totalAmount {order['totalAmount']}")

        trade = client.call("payOrder", "POST", f"/orders/{order_id}/pay", body={"merchantId": args.merchant_id, "notifyUrl": args.notify_url})
        print(f"trade {trade['tradeNo']} waiting for payment: {trade['cashierUrl']}")

        pay_through_sandbox(args.base_url, trade["tradeNo"])
        print(f"trade {trade['tradeNo']} paid through the sandbox control API")

        payment = client.call("queryPayment", "GET", "/payment/query", query={"tradeNo": trade["tradeNo"]})
        print(f"payment {payment['tradeStatus']}: trade {payment['tradeNo']}, order {order_id}, totalAmount {payment['totalAmount']}")
        return 0 if payment["tradeStatus"] == "SUCCESS" else 1
    except (ApiError, AssertionError, OSError, ValueError) as error:
        print(f"flow failed: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
