//go:build ignore

// A callback receiver for the Merchant Open Platform, Go standard library only:
//
//	MOP_APP_SECRETS=demo-app-secret go run receiver.go --port 3000
//	# then give http://127.0.0.1:3000/notify as notifyUrl (the sandbox needs --allow-insecure-notify for http)
//
// Verifies X-Sign over the raw body before parsing it (any secret valid during a rotation; the
// platform signs with the first), refuses stale timestamps and reused nonces, handles each event
// id once (deliveries repeat: at least once, unordered) and answers 2xx quickly.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"example.com/mop-recipes/mop"
)

type event struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"` // kept as received; decode into a struct with int64 ids when you use it
}

func main() {
	port := flag.Int("port", 3000, "0 picks a free port")
	appKey := flag.String("app-key", envOr("MOP_APP_KEY", "demo-app-key"), "app key")
	flag.Parse()
	secrets := strings.Split(envOr("MOP_APP_SECRETS", "demo-app-secret"), ",")
	nonces := &mop.NonceMemory{}
	var mu sync.Mutex
	handled := map[string]bool{} // in production: a unique key in your database, claimed with your update

	http.HandleFunc("/notify", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20)) // the exact bytes: verify these
		if err != nil {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		verdict := mop.Verify(r.Header, raw, *appKey, secrets, nonces, time.Now())
		if !verdict.OK() {
			fmt.Printf("refused callback: %d %s\n", verdict.Code, verdict.Reason)
			http.Error(w, fmt.Sprintf("%d %s", verdict.Code, verdict.Reason), http.StatusUnauthorized)
			return
		}
		var received event
		if err := json.Unmarshal(raw, &received); err != nil || received.ID == "" {
			http.Error(w, "not an event", http.StatusBadRequest)
			return
		}
		mu.Lock()
		duplicate := handled[received.ID]
		handled[received.ID] = true
		mu.Unlock()
		if duplicate {
			fmt.Printf("duplicate %s %s: acknowledged again, not handled again\n", received.Type, received.ID)
		} else {
			// Check outTradeNo and totalAmount against your own order before you ship anything.
			fmt.Printf("verified %s %s: %s\n", received.Type, received.ID, received.Data)
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "success")
	})
	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("receiving callbacks on http://%s/notify\n", listener.Addr())
	if err := http.Serve(listener, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}
