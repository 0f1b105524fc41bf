// Checks MopSigner against the published signing vectors, JDK 17 or later, no build step:
//
//   java Signing.java --check-vectors node_modules/merchant-open-platform/vectors/signing-vectors.json
//
// A single-file program runs only its own file, so MopSigner and MopJson are written out in each
// of Signing.java, Flow.java and CallbackReceiver.java. In your project, make each its own file.
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

public class Signing {
    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !args[0].equals("--check-vectors")) {
            System.err.println("usage: java Signing.java --check-vectors FILE");
            System.exit(2);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> vectors = (Map<String, Object>) MopJson.parse(Files.readString(Path.of(args[1]), StandardCharsets.UTF_8));
        List<String> failures = new ArrayList<>();
        List<Map<String, Object>> valid = cases(vectors, "valid");
        List<Map<String, Object>> wrong = cases(vectors, "wrongVariants");
        for (Map<String, Object> c : valid) {
            String name = (String) c.get("name");
            byte[] body = ((String) c.get("body")).getBytes(StandardCharsets.UTF_8);
            String appKey = (String) c.get("appKey"), appSecret = (String) c.get("appSecret"), timestamp = (String) c.get("timestamp"), nonce = (String) c.get("nonce");
            if (body.length != ((Number) c.get("bodyUtf8Bytes")).intValue()) failures.add(name + ": body is " + body.length + " UTF-8 bytes, not " + c.get("bodyUtf8Bytes"));
            if (!new String(MopSigner.stringToSign(appKey, timestamp, nonce, body), StandardCharsets.UTF_8).equals(c.get("stringToSign"))) failures.add(name + ": string to sign differs");
            if (!MopSigner.sign(appSecret, appKey, timestamp, nonce, body).equals(c.get("expectedSign"))) failures.add(name + ": X-Sign differs from expectedSign");
            Map<String, String> headers = Map.of("x-app-key", appKey, "x-timestamp", timestamp, "x-nonce", nonce, "x-sign", (String) c.get("expectedSign"));
            MopSigner.Verdict verdict = MopSigner.verify(h -> headers.get(h.toLowerCase()), body, appKey, List.of(appSecret), new MopSigner.NonceMemory(), Long.parseLong(timestamp));
            if (!verdict.ok()) failures.add(name + ": the verifier refused it with " + verdict.code() + " (" + verdict.reason() + ")");
        }
        for (Map<String, Object> c : wrong) {
            String timestamp = (String) c.getOrDefault("wrongTimestamp", c.get("timestamp"));
            Map<String, String> headers = Map.of("x-app-key", (String) c.get("appKey"), "x-timestamp", timestamp, "x-nonce", (String) c.get("nonce"), "x-sign", (String) c.get("wrongSign"));
            byte[] body = ((String) c.get("body")).getBytes(StandardCharsets.UTF_8);
            MopSigner.Verdict verdict = MopSigner.verify(h -> headers.get(h.toLowerCase()), body, (String) c.get("appKey"), List.of((String) c.get("appSecret")), new MopSigner.NonceMemory(), Long.parseLong((String) c.get("timestamp")));
            long expected = ((Number) c.get("expectedCode")).longValue();
            if (verdict.code() != expected) failures.add(c.get("name") + ": the verifier answered " + verdict.code() + ", the vectors expect " + expected);
        }
        failures.forEach(failure -> System.err.println("FAIL " + failure));
        if (!failures.isEmpty()) System.exit(1);
        System.out.println("signing vectors: " + valid.size() + " valid cases and " + wrong.size() + " wrong variants pass");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> cases(Map<String, Object> vectors, String key) {
        return (List<Map<String, Object>>) vectors.get(key);
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
