// The payment flow against the Merchant Open Platform sandbox, JDK 17 or later, no build step:
//
//   npx mop sandbox                      # in another terminal: http://127.0.0.1:4010
//   java Flow.java --base-url http://127.0.0.1:4010
//
// syncCustomer -> createOrder (the sandbox's order ids are above 2^53) -> getOrder -> payOrder ->
// the trade paid through the sandbox's control API (as the buyer would) -> queryPayment. The JDK
// has no JSON parser: MopJson (below) reads ids as long, never double. A single-file program runs
// only its own file, so MopSigner and MopJson are written out here; in your project, make each
// its own file (or use Jackson, which reads integers exactly).
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

public class Flow {
    public static void main(String[] args) {
        Map<String, String> options = options(args);
        String baseUrl = options.getOrDefault("base-url", "http://127.0.0.1:4010").replaceAll("/+$", "");
        String appKey = options.getOrDefault("app-key", envOr("MOP_APP_KEY", "demo-app-key"));
        String appSecret = options.getOrDefault("app-secret", envOr("MOP_APP_SECRET", "demo-app-secret"));
        long merchantId = Long.parseLong(options.getOrDefault("merchant-id", "10001"));
        String openUserId = options.getOrDefault("open-user-id", "java-user-4711");
        String notifyUrl = options.getOrDefault("notify-url", "https://app.example.com/mop/notify");
        MopClient client = new MopClient(baseUrl + "/open-api/v1", appKey, appSecret);
        try {
            Map<String, Object> customer = client.object("syncCustomer", "POST", "/customers/sync", Map.of(), Map.of("openUserId", openUserId));
            long appUserId = (Long) customer.get("appUserId");
            System.out.println("customer " + openUserId + ": appUserId " + appUserId);

            Map<String, Object> body = new LinkedHashMap<>();
            body.put("merchantId", merchantId);
            body.put("userId", appUserId);
            body.put("orderType", 1);
            body.put("items", List.of(Map.of("itemType", 1, "itemId", 30001L, "itemName", "拿铁 Latte", "price", 2800, "quantity", 2)));
            long orderId = (Long) client.call("createOrder", "POST", "/orders", Map.of(), body);
            System.out.println("order " + orderId + " created (" + (orderId > (1L << 53) ? "above" : "below") + " 2^53, kept exact)");

            Map<String, Object> order = client.object("getOrder", "GET", "/orders/" + orderId, Map.of("merchantId", Long.toString(merchantId)), null);
            if ((Long) order.get("id") != orderId) throw new IllegalStateException("getOrder answered order " + order.get("id") + ", not " + orderId);
            System.out.println("order " + order.get("id") + " read back: status " + order.get("status") + ", totalAmount " + order.get("totalAmount"));

            Map<String, Object> trade = client.object("payOrder", "POST", "/orders/" + orderId + "/pay", Map.of(), Map.of("merchantId", merchantId, "notifyUrl", notifyUrl));
            String tradeNo = (String) trade.get("tradeNo"); // a string of digits: keep it a string
            System.out.println("trade " + tradeNo + " waiting for payment: " + trade.get("cashierUrl"));

            MopClient.payThroughSandbox(baseUrl, tradeNo);
            System.out.println("trade " + tradeNo + " paid through the sandbox control API");

            Map<String, Object> payment = client.object("queryPayment", "GET", "/payment/query", Map.of("tradeNo", tradeNo), null);
            System.out.println("payment " + payment.get("tradeStatus") + ": trade " + payment.get("tradeNo") + ", order " + orderId + ", totalAmount " + payment.get("totalAmount"));
            System.exit("SUCCESS".equals(payment.get("tradeStatus")) ? 0 : 1);
        } catch (Exception error) {
            System.err.println("flow failed: " + error.getMessage());
            System.exit(1);
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) throw new IllegalArgumentException("unexpected argument " + args[i]);
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isEmpty() ? fallback : value;
    }
}

/** The signed interface on java.net.http; answers the envelope's data, throws on any other code. */
final class MopClient {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build();
    private final String baseUrl;
    private final String appKey;
    private final String appSecret;

    MopClient(String baseUrl, String appKey, String appSecret) {
        this.baseUrl = baseUrl;
        this.appKey = appKey;
        this.appSecret = appSecret;
    }

    Object call(String operation, String method, String path, Map<String, String> query, Object body) throws IOException, InterruptedException {
        byte[] payload = body == null ? new byte[0] : MopJson.write(body).getBytes(StandardCharsets.UTF_8);
        String search = query.isEmpty() ? "" : "?" + query.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path + search)).timeout(Duration.ofSeconds(30));
        // Signed over exactly the bytes handed to the body publisher.
        MopSigner.headers(appKey, appSecret, payload, System.currentTimeMillis() / 1000).forEach(request::header);
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofByteArray(payload));
        }
        HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        @SuppressWarnings("unchecked")
        Map<String, Object> envelope = (Map<String, Object>) MopJson.parse(response.body());
        if (!Long.valueOf(0).equals(envelope.get("code"))) {
            throw new IOException(operation + ": HTTP " + response.statusCode() + ", code " + envelope.get("code") + ": " + envelope.get("msg"));
        }
        return envelope.get("data");
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> object(String operation, String method, String path, Map<String, String> query, Object body) throws IOException, InterruptedException {
        return (Map<String, Object>) call(operation, method, path, query, body);
    }

    /** The sandbox's control API pays the trade as the buyer would at the cashier (no signature there). */
    static void payThroughSandbox(String baseUrl, String tradeNo) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/sandbox/trades/" + URLEncoder.encode(tradeNo, StandardCharsets.UTF_8) + "/pay"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.noBody()).build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        @SuppressWarnings("unchecked")
        Map<String, Object> envelope = (Map<String, Object>) MopJson.parse(response.body());
        if (!Long.valueOf(0).equals(envelope.get("code"))) {
            throw new IOException("payTrade: HTTP " + response.statusCode() + ", code " + envelope.get("code") + ": " + envelope.get("msg"));
        }
    }
}

// ---- MopSigner: identical in Signing.java, Flow.java and CallbackReceiver.java (a test keeps them so) ----
/**
 * Merchant Open Platform signing and verification, JDK only. X-Sign = Base64(HMAC-SHA256(app
 * secret, X-App-Key + X-Timestamp + X-Nonce + body)), the body being the exact bytes sent (none
 * for a GET). Copy this class into your project.
 */
final class MopSigner {
    static final int WINDOW_SECONDS = 300;
    private static final java.util.regex.Pattern TIMESTAMP = java.util.regex.Pattern.compile("[0-9]{10}");
    private static final java.util.regex.Pattern NONCE = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{8,64}");
    private static final java.util.regex.Pattern SIGNATURE = java.util.regex.Pattern.compile("[A-Za-z0-9+/]{43}=");
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    private MopSigner() {}

    /** appKey + timestamp + nonce + body with no separator, as UTF-8 bytes (the body as sent). */
    static byte[] stringToSign(String appKey, String timestamp, String nonce, byte[] body) {
        byte[] head = (appKey + timestamp + nonce).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] all = java.util.Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    /** Standard padded Base64 of the HMAC-SHA256: 44 characters, never hexadecimal. */
    static String sign(String appSecret, String appKey, String timestamp, String nonce, byte[] body) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(appSecret.getBytes(java.nio.charset.StandardCharsets.UTF_8), "HmacSHA256"));
            return java.util.Base64.getEncoder().encodeToString(mac.doFinal(stringToSign(appKey, timestamp, nonce, body)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
        }
    }

    /** 32 random characters of A-Z a-z 0-9 _ -: fresh for every request and every retry. */
    static String newNonce() {
        byte[] raw = new byte[24];
        RANDOM.nextBytes(raw);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    }

    /** The four signature headers for a body about to be sent, byte for byte. */
    static java.util.Map<String, String> headers(String appKey, String appSecret, byte[] body, long nowSeconds) {
        String timestamp = Long.toString(nowSeconds); // seconds, never milliseconds
        String nonce = newNonce();
        java.util.Map<String, String> headers = new java.util.LinkedHashMap<>();
        headers.put("X-App-Key", appKey);
        headers.put("X-Timestamp", timestamp);
        headers.put("X-Nonce", nonce);
        headers.put("X-Sign", sign(appSecret, appKey, timestamp, nonce, body));
        return headers;
    }

    /** Nonces seen within the window, per app key. With several instances keep them in Redis (SET NX EX) or your database. */
    static final class NonceMemory {
        private final java.util.Map<String, Long> seen = new java.util.HashMap<>();

        synchronized boolean firstUse(String appKey, String nonce, long nowSeconds) {
            seen.values().removeIf(expiry -> expiry <= nowSeconds);
            return seen.putIfAbsent(appKey + '\0' + nonce, nowSeconds + 2L * WINDOW_SECONDS) == null;
        }
    }

    /** 0 when authentic, otherwise the registry's code and why. */
    record Verdict(int code, String reason) {
        boolean ok() {
            return code == 0;
        }
    }

    /**
     * Checks a signed request or callback the way the platform does, in its order. The header
     * lookup is case-insensitive; body is the raw body as received; secrets are every secret valid
     * now (two during a rotation: the platform signs callbacks with the first).
     */
    static Verdict verify(java.util.function.Function<String, String> header, byte[] body, String appKey, java.util.List<String> secrets, NonceMemory nonces, long nowSeconds) {
        String key = orEmpty(header.apply("X-App-Key"));
        String timestamp = orEmpty(header.apply("X-Timestamp"));
        String nonce = orEmpty(header.apply("X-Nonce"));
        String signature = orEmpty(header.apply("X-Sign"));
        if (key.isEmpty() || timestamp.isEmpty() || nonce.isEmpty() || signature.isEmpty()) return new Verdict(100001, "a signature header is missing or empty");
        if (!TIMESTAMP.matcher(timestamp).matches()) return new Verdict(100010, "X-Timestamp is not 10 digits of Unix seconds");
        if (!NONCE.matcher(nonce).matches()) return new Verdict(100011, "X-Nonce is not 8 to 64 characters of A-Z a-z 0-9 _ -");
        if (!SIGNATURE.matcher(signature).matches()) return new Verdict(100012, "X-Sign is not padded standard Base64 of 32 bytes");
        if (!key.equals(appKey)) return new Verdict(100002, "X-App-Key is not this app");
        if (Math.abs(Long.parseLong(timestamp) - nowSeconds) > WINDOW_SECONDS) return new Verdict(100004, "X-Timestamp is more than 300 s from this clock");
        boolean matched = false;
        for (String secret : secrets) {
            matched |= java.security.MessageDigest.isEqual(sign(secret, key, timestamp, nonce, body).getBytes(java.nio.charset.StandardCharsets.US_ASCII), signature.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
        if (!matched) return new Verdict(100003, "X-Sign does not match the body under any valid secret");
        if (!nonces.firstUse(key, nonce, nowSeconds)) return new Verdict(100005, "X-Nonce was already used within the window");
        return new Verdict(0, "ok");
    }

    private static String orEmpty(String value) {
        return value == null ? "" : value;
    }
}
// ---- end MopSigner ----

// ---- MopJson: identical in Signing.java, Flow.java and CallbackReceiver.java (a test keeps them so) ----
/**
 * Lossless JSON for the JDK, which has no JSON parser: integers become Long (BigInteger beyond
 * long), fractions BigDecimal, never double, so an id above 2^53 stays exact. Objects are
 * LinkedHashMap, arrays ArrayList, null is null. write() answers compact JSON. With Jackson you
 * need none of this (it reads integers as Integer/Long/BigInteger); Gson into Map<String, Object>
 * rounds them (see docs/ids-and-int64.md).
 */
final class MopJson {
    private static final int MAX_DEPTH = 512;
    private final String text;
    private int at;

    private MopJson(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        MopJson reader = new MopJson(text);
        Object value = reader.value(0);
        reader.space();
        if (reader.at != text.length()) throw reader.error("unexpected text after the JSON value");
        return value;
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) throw error("nested too deeply");
        space();
        if (at >= text.length()) throw error("unexpected end");
        char c = text.charAt(at);
        switch (c) {
            case '{': return object(depth);
            case '[': return array(depth);
            case '"': return string();
            case 't': return literal("true", Boolean.TRUE);
            case 'f': return literal("false", Boolean.FALSE);
            case 'n': return literal("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return number();
                throw error("unexpected character '" + c + "'");
        }
    }

    private java.util.Map<String, Object> object(int depth) {
        java.util.Map<String, Object> map = new java.util.LinkedHashMap<>();
        at++;
        space();
        if (peek('}')) return map;
        do {
            space();
            if (at >= text.length() || text.charAt(at) != '"') throw error("expected a member name");
            String name = string();
            space();
            expect(':');
            if (map.containsKey(name)) throw error("duplicate member \"" + name + "\"");
            map.put(name, value(depth + 1));
            space();
        } while (peek(','));
        expect('}');
        return map;
    }

    private java.util.List<Object> array(int depth) {
        java.util.List<Object> list = new java.util.ArrayList<>();
        at++;
        space();
        if (peek(']')) return list;
        do {
            list.add(value(depth + 1));
            space();
        } while (peek(','));
        expect(']');
        return list;
    }

    private String string() {
        StringBuilder out = new StringBuilder();
        at++;
        while (true) {
            if (at >= text.length()) throw error("unterminated string");
            char c = text.charAt(at++);
            if (c == '"') return out.toString();
            if (c < 0x20) throw error("control character in a string");
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) throw error("unterminated escape");
            char e = text.charAt(at++);
            switch (e) {
                case '"': case '\\': case '/': out.append(e); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (at + 4 > text.length()) throw error("short \\u escape");
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                    break;
                default: throw error("bad escape \\" + e);
            }
        }
    }

    private Number number() {
        int start = at;
        if (text.charAt(at) == '-') at++;
        digits();
        boolean integer = true;
        if (at < text.length() && text.charAt(at) == '.') {
            integer = false;
            at++;
            digits();
        }
        if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            integer = false;
            at++;
            if (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) at++;
            digits();
        }
        String literal = text.substring(start, at);
        if (!integer) return new java.math.BigDecimal(literal);
        java.math.BigInteger value = new java.math.BigInteger(literal);
        return value.bitLength() < 64 ? (Number) value.longValue() : value;
    }

    private void digits() {
        int start = at;
        while (at < text.length() && Character.isDigit(text.charAt(at))) at++;
        if (at == start) throw error("expected a digit");
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, at)) throw error("unexpected text");
        at += word.length();
        return value;
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) at++;
    }

    private boolean peek(char c) {
        if (at < text.length() && text.charAt(at) == c) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!peek(c)) throw error("expected '" + c + "'");
    }

    private IllegalArgumentException error(String why) {
        return new IllegalArgumentException("invalid JSON at offset " + at + ": " + why);
    }

    /** Compact JSON of maps, lists, strings, numbers (written as their exact digits), booleans and null. */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            out.append('"');
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '"': out.append("\\\""); break;
                    case '\\': out.append("\\\\"); break;
                    case '\n': out.append("\\n"); break;
                    case '\r': out.append("\\r"); break;
                    case '\t': out.append("\\t"); break;
                    default:
                        if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                        else out.append(c);
                }
            }
            out.append('"');
        } else if (value instanceof Double || value instanceof Float) {
            throw new IllegalArgumentException("a double in a request body: ids and amounts are integers (use long)");
        } else if (value instanceof java.math.BigDecimal d) {
            out.append(d.toPlainString());
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof java.util.Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (java.util.Map.Entry<?, ?> entry : map.entrySet()) {
                if (!first) out.append(',');
                first = false;
                write(String.valueOf(entry.getKey()), out);
                out.append(':');
                write(entry.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof java.util.List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) out.append(',');
                write(list.get(i), out);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("cannot write " + value.getClass().getName() + " as JSON");
        }
    }
}
// ---- end MopJson ----
