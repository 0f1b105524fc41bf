//go:build ignore

// Checks package mop against the published signing vectors:
//
//	go run signing.go --check-vectors node_modules/merchant-open-platform/vectors/signing-vectors.json
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"example.com/mop-recipes/mop"
)

type vector struct {
	Name           string `json:"name"`
	AppKey         string `json:"appKey"`
	AppSecret      string `json:"appSecret"`
	Timestamp      string `json:"timestamp"`
	WrongTimestamp string `json:"wrongTimestamp"`
	Nonce          string `json:"nonce"`
	Body           string `json:"body"`
	BodyUtf8Bytes  int    `json:"bodyUtf8Bytes"`
	StringToSign   string `json:"stringToSign"`
	ExpectedSign   string `json:"expectedSign"`
	WrongSign      string `json:"wrongSign"`
	ExpectedCode   int    `json:"expectedCode"`
}

func headers(appKey, timestamp, nonce, sign string) http.Header {
	h := http.Header{}
	h.Set("X-App-Key", appKey)
	h.Set("X-Timestamp", timestamp)
	h.Set("X-Nonce", nonce)
	h.Set("X-Sign", sign)
	return h
}

func at(timestamp string) time.Time {
	seconds, _ := strconv.ParseInt(timestamp, 10, 64)
	return time.Unix(seconds, 0)
}

func main() {
	if len(os.Args) != 3 || os.Args[1] != "--check-vectors" {
		fmt.Fprintln(os.Stderr, "usage: go run signing.go --check-vectors FILE")
		os.Exit(2)
	}
	text, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var vectors struct {
		Valid         []vector `json:"valid"`
		WrongVariants []vector `json:"wrongVariants"`
	}
	if err := json.Unmarshal(text, &vectors); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var failures []string
	for _, c := range vectors.Valid {
		body := []byte(c.Body) // Go strings hold UTF-8: these are the bytes sent
		if len(body) != c.BodyUtf8Bytes {
			failures = append(failures, fmt.Sprintf("%s: body is %d UTF-8 bytes, not %d", c.Name, len(body), c.BodyUtf8Bytes))
		}
		if string(mop.StringToSign(c.AppKey, c.Timestamp, c.Nonce, body)) != c.StringToSign {
			failures = append(failures, c.Name+": string to sign differs")
		}
		if mop.Sign(c.AppSecret, c.AppKey, c.Timestamp, c.Nonce, body) != c.ExpectedSign {
			failures = append(failures, c.Name+": X-Sign differs from expectedSign")
		}
		verdict := mop.Verify(headers(c.AppKey, c.Timestamp, c.Nonce, c.ExpectedSign), body, c.AppKey, []string{c.AppSecret}, &mop.NonceMemory{}, at(c.Timestamp))
		if !verdict.OK() {
			failures = append(failures, fmt.Sprintf("%s: the verifier refused it with %d (%s)", c.Name, verdict.Code, verdict.Reason))
		}
	}
	for _, c := range vectors.WrongVariants {
		timestamp := c.Timestamp
		if c.WrongTimestamp != "" {
			timestamp = c.WrongTimestamp
		}
		verdict := mop.Verify(headers(c.AppKey, timestamp, c.Nonce, c.WrongSign), []byte(c.Body), c.AppKey, []string{c.AppSecret}, &mop.NonceMemory{}, at(c.Timestamp))
		if verdict.Code != c.ExpectedCode {
			failures = append(failures, fmt.Sprintf("%s: the verifier answered %d, the vectors expect %d", c.Name, verdict.Code, c.ExpectedCode))
		}
	}
	for _, failure := range failures {
		fmt.Fprintln(os.Stderr, "FAIL "+failure)
	}
	if len(failures) > 0 {
		os.Exit(1)
	}
	fmt.Printf("signing vectors: %d valid cases and %d wrong variants pass\n", len(vectors.Valid), len(vectors.WrongVariants))
}
