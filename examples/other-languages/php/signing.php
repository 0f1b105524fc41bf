<?php
// Checks mop.php against the published signing vectors:
//   php signing.php --check-vectors node_modules/merchant-open-platform/vectors/signing-vectors.json
declare(strict_types=1);
require __DIR__ . '/mop.php';

/** A nonce store that forgets: each vector is checked as a first use. */
final class FreshOnceStore implements MopOnceStore
{
    public function firstUse(string $key, int $expiresAt): bool
    {
        return true;
    }
}

if ($argc !== 3 || $argv[1] !== '--check-vectors') {
    fwrite(STDERR, "usage: php signing.php --check-vectors FILE\n");
    exit(2);
}
$vectors = mop_json_decode((string) file_get_contents($argv[2]));
$failures = [];
foreach ($vectors['valid'] as $case) {
    $body = $case['body']; // already UTF-8 bytes
    if (strlen($body) !== $case['bodyUtf8Bytes']) {
        $failures[] = "{$case['name']}: body is " . strlen($body) . " UTF-8 bytes, not {$case['bodyUtf8Bytes']}";
    }
    if (mop_string_to_sign($case['appKey'], $case['timestamp'], $case['nonce'], $body) !== $case['stringToSign']) {
        $failures[] = "{$case['name']}: string to sign differs";
    }
    if (mop_sign($case['appSecret'], $case['appKey'], $case['timestamp'], $case['nonce'], $body) !== $case['expectedSign']) {
        $failures[] = "{$case['name']}: X-Sign differs from expectedSign";
    }
    $headers = ['X-App-Key' => $case['appKey'], 'X-Timestamp' => $case['timestamp'], 'X-Nonce' => $case['nonce'], 'X-Sign' => $case['expectedSign']];
    [$code, $reason] = mop_verify($headers, $body, $case['appKey'], [$case['appSecret']], new FreshOnceStore(), (int) $case['timestamp']);
    if ($code !== 0) {
        $failures[] = "{$case['name']}: the verifier refused it with $code ($reason)";
    }
}
foreach ($vectors['wrongVariants'] as $case) {
    $headers = ['X-App-Key' => $case['appKey'], 'X-Timestamp' => $case['wrongTimestamp'] ?? $case['timestamp'], 'X-Nonce' => $case['nonce'], 'X-Sign' => $case['wrongSign']];
    [$code] = mop_verify($headers, $case['body'], $case['appKey'], [$case['appSecret']], new FreshOnceStore(), (int) $case['timestamp']);
    if ($code !== $case['expectedCode']) {
        $failures[] = "{$case['name']}: the verifier answered $code, the vectors expect {$case['expectedCode']}";
    }
}
foreach ($failures as $failure) {
    fwrite(STDERR, "FAIL $failure\n");
}
if ($failures) {
    exit(1);
}
printf("signing vectors: %d valid cases and %d wrong variants pass\n", count($vectors['valid']), count($vectors['wrongVariants']));
