<?php
// A callback receiver for the Merchant Open Platform, PHP 8 with bundled extensions only. Serve it
// with any PHP web server, or for a try:
//
//   MOP_APP_SECRETS=demo-app-secret php -S 127.0.0.1:3000 receiver.php
//   # then give http://127.0.0.1:3000/notify as notifyUrl (the sandbox needs --allow-insecure-notify for http)
//
// Verifies X-Sign over the raw body before parsing it (any secret valid during a rotation; the
// platform signs with the first), refuses stale timestamps and reused nonces, handles each event
// id once (deliveries repeat: at least once, unordered) and answers 2xx quickly. Every request is
// its own PHP process, so nonces and event ids live in a store (files here; your database or Redis).
declare(strict_types=1);
require __DIR__ . '/mop.php';

$log = fopen('php://stderr', 'w');
if ($_SERVER['REQUEST_METHOD'] !== 'POST') {
    http_response_code(405);
    echo 'POST only';
    return;
}
$appKey = getenv('MOP_APP_KEY') ?: 'demo-app-key';
$secrets = array_values(array_filter(explode(',', getenv('MOP_APP_SECRETS') ?: 'demo-app-secret')));
$store = new MopFileOnceStore(getenv('MOP_RECEIVER_STATE') ?: sys_get_temp_dir() . '/mop-receiver-' . md5(__DIR__));

$raw = (string) file_get_contents('php://input', false, null, 0, 1024 * 1024 + 1); // the exact bytes: verify these
if (strlen($raw) > 1024 * 1024) {
    http_response_code(413);
    echo 'body too large';
    return;
}
[$code, $reason] = mop_verify(getallheaders(), $raw, $appKey, $secrets, $store);
if ($code !== 0) {
    fwrite($log, "refused callback: $code $reason\n");
    http_response_code(401);
    echo "$code $reason";
    return;
}
$event = mop_json_decode($raw); // only now
if ($store->firstUse("event\0" . $event['id'], time() + 7 * 24 * 3600)) {
    // Check outTradeNo and totalAmount against your own order before you ship anything.
    fwrite($log, "verified {$event['type']} {$event['id']}: " . mop_json_encode($event['data']) . "\n");
} else {
    fwrite($log, "duplicate {$event['type']} {$event['id']}: acknowledged again, not handled again\n");
}
header('Content-Type: text/plain; charset=utf-8');
echo 'success';
