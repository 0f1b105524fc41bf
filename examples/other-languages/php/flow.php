<?php
// The payment flow against the Merchant Open Platform sandbox, PHP 8 with bundled extensions only:
//
//   npx mop sandbox                      # in another terminal: http://127.0.0.1:4010
//   php flow.php --base-url http://127.0.0.1:4010
//
// syncCustomer -> createOrder (the sandbox's order ids are above 2^53) -> getOrder -> payOrder ->
// the trade paid through the sandbox's control API (as the buyer would) -> queryPayment. On 64-bit
// PHP every id is an exact int; mop_json_decode keeps anything larger as digits, never a float.
declare(strict_types=1);
require __DIR__ . '/mop.php';

$options = getopt('', ['base-url:', 'app-key:', 'app-secret:', 'merchant-id:', 'open-user-id:', 'notify-url:']);
$baseUrl = rtrim($options['base-url'] ?? 'http://127.0.0.1:4010', '/');
$appKey = $options['app-key'] ?? (getenv('MOP_APP_KEY') ?: 'demo-app-key');
$appSecret = $options['app-secret'] ?? (getenv('MOP_APP_SECRET') ?: 'demo-app-secret');
$merchantId = (int) ($options['merchant-id'] ?? 10001);
$openUserId = $options['open-user-id'] ?? 'php-user-4711';
$notifyUrl = $options['notify-url'] ?? 'https://app.example.com/mop/notify';

if (PHP_INT_SIZE < 8) {
    fwrite(STDERR, "flow failed: a 32-bit PHP cannot hold int64 ids as int; keep them as strings\n");
    exit(1);
}
$client = new MopSignedClient("$baseUrl/open-api/v1", $appKey, $appSecret);
try {
    $appUserId = $client->call('syncCustomer', 'POST', '/customers/sync', [], ['openUserId' => $openUserId])['appUserId'];
    echo "customer $openUserId: appUserId $appUserId\n";

    $orderId = $client->call('createOrder', 'POST', '/orders', [], [
        'merchantId' => $merchantId,
        'userId' => $appUserId,
        'orderType' => 1,
        'items' => [['itemType' => 1, 'itemId' => 30001, 'itemName' => '拿铁 Latte', 'price' => 2800, 'quantity' => 2]],
    ]);
    printf("order %s created (%s 2^53, kept exact)\n", $orderId, $orderId > 2 ** 53 ? 'above' : 'below');

    $order = $client->call('getOrder', 'GET', "/orders/$orderId", ['merchantId' => $merchantId]);
    if ($order['id'] !== $orderId) {
        throw new RuntimeException("getOrder answered order {$order['id']}, not $orderId");
    }
    echo "order {$order['id']} read back: status {$order['status']}, totalAmount {$order['totalAmount']}\n";

    $trade = $client->call('payOrder', 'POST', "/orders/$orderId/pay", [], ['merchantId' => $merchantId, 'notifyUrl' => $notifyUrl]);
    echo "trade {$trade['tradeNo']} waiting for payment: {$trade['cashierUrl']}\n";

    // The sandbox's control API pays the trade as the buyer would at the cashier (no signature there).
    [$status, $answer] = mop_http('POST', "$baseUrl/sandbox/trades/" . rawurlencode($trade['tradeNo']) . '/pay', ['Content-Type' => 'application/json'], '');
    if (($answer['code'] ?? null) !== 0) {
        throw new MopApiError('payTrade', $status, (int) ($answer['code'] ?? -1), (string) ($answer['msg'] ?? ''));
    }
    echo "trade {$trade['tradeNo']} paid through the sandbox control API\n";

    $payment = $client->call('queryPayment', 'GET', '/payment/query', ['tradeNo' => $trade['tradeNo']]);
    echo "payment {$payment['tradeStatus']}: trade {$payment['tradeNo']}, order $orderId, totalAmount {$payment['totalAmount']}\n";
    exit($payment['tradeStatus'] === 'SUCCESS' ? 0 : 1);
} catch (Throwable $error) {
    fwrite(STDERR, 'flow failed: ' . $error->getMessage() . "\n");
    exit(1);
}
