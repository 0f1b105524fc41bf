// Package mop signs and verifies Merchant Open Platform requests and callbacks, standard library only.
//
// X-Sign = Base64(HMAC-SHA256(app secret, X-App-Key + X-Timestamp + X-Nonce + body)), where the
// body is the exact bytes sent (empty for a GET). Copy this package into your module; check it
// against the published vectors with `go run signing.go --check-vectors FILE`.
package mop

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// WindowSeconds is how far X-Timestamp may be from the receiver's clock, either way.
const WindowSeconds = 300

var (
	timestampPattern = regexp.MustCompile(`^[0-9]{10}$`)
	noncePattern     = regexp.MustCompile(`^[A-Za-z0-9_-]{8,64}$`)
	signPattern      = regexp.MustCompile(`^[A-Za-z0-9+/]{43}=$`)
)

// StringToSign is appKey + timestamp + nonce + body, with no separator.
func StringToSign(appKey, timestamp, nonce string, body []byte) []byte {
	out := make([]byte, 0, len(appKey)+len(timestamp)+len(nonce)+len(body))
	out = append(out, appKey...)
	out = append(out, timestamp...)
	out = append(out, nonce...)
	return append(out, body...)
}

// Sign answers X-Sign: standard padded Base64 of the HMAC-SHA256, 44 characters.
func Sign(appSecret, appKey, timestamp, nonce string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(appSecret))
	mac.Write(StringToSign(appKey, timestamp, nonce, body))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// NewNonce answers 32 random characters of A-Z a-z 0-9 _ -: fresh for every request and every retry.
func NewNonce() string {
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(raw)
}

// SignHeaders sets the four signature headers for the body about to be sent, byte for byte.
func SignHeaders(header http.Header, appKey, appSecret string, body []byte, now time.Time) {
	timestamp := strconv.FormatInt(now.Unix(), 10) // seconds, never milliseconds
	nonce := NewNonce()
	header.Set("X-App-Key", appKey)
	header.Set("X-Timestamp", timestamp)
	header.Set("X-Nonce", nonce)
	header.Set("X-Sign", Sign(appSecret, appKey, timestamp, nonce, body))
}

// NonceMemory remembers the nonces seen within the window, per app key. With several instances,
// keep them where every instance sees them (Redis SET NX EX).
type NonceMemory struct {
	mu   sync.Mutex
	seen map[string]int64
}

// FirstUse records the nonce and answers whether it was unseen.
func (m *NonceMemory) FirstUse(appKey, nonce string, now int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil {
		m.seen = map[string]int64{}
	}
	for key, expiry := range m.seen {
		if expiry <= now {
			delete(m.seen, key)
		}
	}
	key := appKey + "\x00" + nonce
	if _, ok := m.seen[key]; ok {
		return false
	}
	m.seen[key] = now + 2*WindowSeconds
	return true
}

// Verdict is 0 when the request is authentic, otherwise the registry's code and why.
type Verdict struct {
	Code   int
	Reason string
}

// OK tells whether the request passed every check.
func (v Verdict) OK() bool { return v.Code == 0 }

// Verify checks a signed request or callback the way the platform does, in its order. body is the
// raw body as received; secrets are every secret valid now (two during a rotation: the platform
// signs callbacks with the first).
func Verify(header http.Header, body []byte, appKey string, secrets []string, nonces *NonceMemory, now time.Time) Verdict {
	key, timestamp, nonce, signature := header.Get("X-App-Key"), header.Get("X-Timestamp"), header.Get("X-Nonce"), header.Get("X-Sign")
	if key == "" || timestamp == "" || nonce == "" || signature == "" {
		return Verdict{100001, "a signature header is missing or empty"}
	}
	if !timestampPattern.MatchString(timestamp) {
		return Verdict{100010, "X-Timestamp is not 10 digits of Unix seconds"}
	}
	if !noncePattern.MatchString(nonce) {
		return Verdict{100011, "X-Nonce is not 8 to 64 characters of A-Z a-z 0-9 _ -"}
	}
	if !signPattern.MatchString(signature) {
		return Verdict{100012, "X-Sign is not padded standard Base64 of 32 bytes"}
	}
	if key != appKey {
		return Verdict{100002, "X-App-Key is not this app"}
	}
	seconds, _ := strconv.ParseInt(timestamp, 10, 64)
	if skew := seconds - now.Unix(); skew > WindowSeconds || skew < -WindowSeconds {
		return Verdict{100004, "X-Timestamp is more than 300 s from this clock"}
	}
	matched := false
	for _, secret := range secrets {
		if hmac.Equal([]byte(Sign(secret, key, timestamp, nonce, body)), []byte(signature)) {
			matched = true
		}
	}
	if !matched {
		return Verdict{100003, "X-Sign does not match the body under any valid secret"}
	}
	if !nonces.FirstUse(key, nonce, now.Unix()) {
		return Verdict{100005, "X-Nonce was already used within the window"}
	}
	return Verdict{}
}
