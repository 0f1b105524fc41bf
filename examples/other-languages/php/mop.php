<?php
// Merchant Open Platform signing, verification, lossless JSON and a signed client: PHP 8, bundled
// extensions only (hash, json, the http stream wrapper). Copy this file into your project; check it
// against the published vectors with `php signing.php --check-vectors FILE`.
//
// X-Sign = Base64(HMAC-SHA256(app secret, X-App-Key + X-Timestamp + X-Nonce + body)), where the
// body is the exact bytes sent (the empty string for a GET).
declare(strict_types=1);

const MOP_WINDOW_SECONDS = 300;

function mop_string_to_sign(string $appKey, string $timestamp, string $nonce, string $body = ''): string
{
    return $appKey . $timestamp . $nonce . $body; // PHP strings are bytes: UTF-8 in, UTF-8 signed
}

function mop_sign(string $appSecret, string $appKey, string $timestamp, string $nonce, string $body = ''): string
{
    // Standard padded Base64 of the raw 32 bytes (hash_hmac's fourth argument), never the hex digest.
    return base64_encode(hash_hmac('sha256', mop_string_to_sign($appKey, $timestamp, $nonce, $body), $appSecret, true));
}

/** 32 random characters of A-Z a-z 0-9 _ -: fresh for every request and every retry. */
function mop_new_nonce(): string
{
    return rtrim(strtr(base64_encode(random_bytes(24)), '+/', '-_'), '=');
}

/** The four signature headers for a body about to be sent, byte for byte. */
function mop_signed_headers(string $appKey, string $appSecret, string $body = '', ?int $now = null): array
{
    $timestamp = (string) ($now ?? time()); // seconds, never milliseconds
    $nonce = mop_new_nonce();
    return [
        'X-App-Key' => $appKey,
        'X-Timestamp' => $timestamp,
        'X-Nonce' => $nonce,
        'X-Sign' => mop_sign($appSecret, $appKey, $timestamp, $nonce, $body),
    ];
}

/**
 * Reads JSON with every integer exact: ints on 64-bit PHP (every id fits in an int64), and a
 * number beyond PHP_INT_MAX as its digits (string) instead of a rounded float.
 */
function mop_json_decode(string $text): mixed
{
    return json_decode($text, true, 512, JSON_BIGINT_AS_STRING | JSON_THROW_ON_ERROR);
}

/**
 * Compact JSON for a request body. An empty PHP array is written as [], not {}: send an empty
 * object as new stdClass() (or (object) []).
 */
function mop_json_encode(mixed $value): string
{
    return json_encode($value, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
}

/** Where nonces and handled event ids are kept; a file per key here, your database or Redis in production. */
interface MopOnceStore
{
    /** Records $key until $expiresAt; answers false when it was already recorded and not expired. */
    public function firstUse(string $key, int $expiresAt): bool;
}

/** Works across PHP's request processes (php -S, FPM) on one machine; atomic through fopen's 'x' mode. */
final class MopFileOnceStore implements MopOnceStore
{
    public function __construct(private string $directory)
    {
        if (!is_dir($directory) && !@mkdir($directory, 0700, true) && !is_dir($directory)) {
            throw new RuntimeException("cannot create $directory");
        }
    }

    public function firstUse(string $key, int $expiresAt): bool
    {
        $file = $this->directory . '/' . hash('sha256', $key);
        $handle = @fopen($file, 'x');
        if ($handle === false) {
            $expiry = (int) @file_get_contents($file);
            if ($expiry > time()) {
                return false;
            }
            @unlink($file); // expired: take it again
            $handle = @fopen($file, 'x');
            if ($handle === false) {
                return false;
            }
        }
        fwrite($handle, (string) $expiresAt);
        fclose($handle);
        return true;
    }
}

/**
 * Checks a signed request or callback the way the platform does, in its order. $headers maps
 * header names in any case; $body is the raw body as received; $secrets are every secret valid
 * now (two during a rotation: the platform signs callbacks with the first).
 * Answers [0, 'ok'] or [registry code, reason].
 */
function mop_verify(array $headers, string $body, string $appKey, array $secrets, MopOnceStore $nonces, ?int $now = null): array
{
    $now ??= time();
    $lower = array_change_key_case($headers, CASE_LOWER);
    $key = (string) ($lower['x-app-key'] ?? '');
    $timestamp = (string) ($lower['x-timestamp'] ?? '');
    $nonce = (string) ($lower['x-nonce'] ?? '');
    $signature = (string) ($lower['x-sign'] ?? '');
    if ($key === '' || $timestamp === '' || $nonce === '' || $signature === '') {
        return [100001, 'a signature header is missing or empty'];
    }
    if (!preg_match('/\A[0-9]{10}\z/', $timestamp)) {
        return [100010, 'X-Timestamp is not 10 digits of Unix seconds'];
    }
    if (!preg_match('/\A[A-Za-z0-9_-]{8,64}\z/', $nonce)) {
        return [100011, 'X-Nonce is not 8 to 64 characters of A-Z a-z 0-9 _ -'];
    }
    if (!preg_match('/\A[A-Za-z0-9+\/]{43}=\z/', $signature)) {
        return [100012, 'X-Sign is not padded standard Base64 of 32 bytes'];
    }
    if ($key !== $appKey) {
        return [100002, 'X-App-Key is not this app'];
    }
    if (abs((int) $timestamp - $now) > MOP_WINDOW_SECONDS) {
        return [100004, 'X-Timestamp is more than 300 s from this clock'];
    }
    $matched = false;
    foreach ($secrets as $secret) {
        $matched = hash_equals(mop_sign($secret, $key, $timestamp, $nonce, $body), $signature) || $matched;
    }
    if (!$matched) {
        return [100003, 'X-Sign does not match the body under any valid secret'];
    }
    if (!$nonces->firstUse("nonce\0$key\0$nonce", $now + 2 * MOP_WINDOW_SECONDS)) {
        return [100005, 'X-Nonce was already used within the window'];
    }
    return [0, 'ok'];
}

final class MopApiError extends RuntimeException
{
    public function __construct(public readonly string $operation, public readonly int $status, public readonly int $envelopeCode, string $msg)
    {
        parent::__construct("$operation: HTTP $status, code $envelopeCode: $msg");
    }
}

/** The signed interface over PHP's http stream wrapper (no curl needed). */
final class MopSignedClient
{
    public function __construct(private string $baseUrl, private string $appKey, private string $appSecret)
    {
        $this->baseUrl = rtrim($baseUrl, '/');
    }

    /** Sends one signed request and answers the envelope's data; any other code throws MopApiError. */
    public function call(string $operation, string $method, string $path, array $query = [], mixed $body = null): mixed
    {
        $payload = $body === null ? '' : mop_json_encode($body);
        $headers = mop_signed_headers($this->appKey, $this->appSecret, $payload); // over exactly the bytes sent
        if ($body !== null) {
            $headers['Content-Type'] = 'application/json';
        }
        $url = $this->baseUrl . $path . ($query ? '?' . http_build_query($query) : '');
        [$status, $envelope] = mop_http($method, $url, $headers, $body === null ? null : $payload);
        if (($envelope['code'] ?? null) !== 0) {
            throw new MopApiError($operation, $status, (int) ($envelope['code'] ?? -1), (string) ($envelope['msg'] ?? $envelope['message'] ?? ''));
        }
        return $envelope['data'];
    }
}

/** One HTTP exchange; answers [status, the decoded JSON envelope]. 4xx and 5xx carry the envelope too. */
function mop_http(string $method, string $url, array $headers, ?string $body): array
{
    $lines = [];
    foreach ($headers as $name => $value) {
        $lines[] = "$name: $value";
    }
    $options = ['method' => $method, 'header' => implode("\r\n", $lines), 'ignore_errors' => true, 'timeout' => 30, 'follow_location' => 0];
    if ($body !== null) {
        $options['content'] = $body;
    }
    $text = @file_get_contents($url, false, stream_context_create(['http' => $options]));
    if ($text === false) {
        throw new RuntimeException("$method $url: no answer (" . (error_get_last()['message'] ?? 'connection failed') . ')');
    }
    $status = 0;
    foreach ($http_response_header as $line) {
        if (preg_match('#^HTTP/\S+\s+(\d{3})#', $line, $match)) {
            $status = (int) $match[1]; // the last status line (after any interim ones)
        }
    }
    return [$status, mop_json_decode($text)];
}
