package mop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Client calls the signed interface. Answers are decoded into typed structs whose ids are int64,
// which encoding/json fills exactly; never decode an answer into interface{} (ids become float64
// and round above 2^53) unless the decoder has UseNumber().
type Client struct {
	BaseURL   string // e.g. http://127.0.0.1:4010/open-api/v1
	AppKey    string
	AppSecret string
	HTTP      *http.Client
}

// APIError is an answer whose envelope code is not 0 (the code decides, not the HTTP status).
type APIError struct {
	Operation string
	Status    int
	Code      int64
	Msg       string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: HTTP %d, code %d: %s", e.Operation, e.Status, e.Code, e.Msg)
}

type envelope struct {
	Code int64           `json:"code"`
	Msg  string          `json:"msg"`
	Data json.RawMessage `json:"data"`
}

// Call sends one signed request (body nil for none) and decodes the envelope's data into out.
func (c *Client) Call(operation, method, path string, query url.Values, body interface{}, out interface{}) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil { // compact; int64 fields are written as their digits
			return err
		}
	}
	target := c.BaseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var reader io.Reader
	if payload != nil {
		reader = bytes.NewReader(payload)
	}
	request, err := http.NewRequest(method, target, reader)
	if err != nil {
		return err
	}
	if payload != nil {
		request.Header.Set("Content-Type", "application/json")
	}
	SignHeaders(request.Header, c.AppKey, c.AppSecret, payload, time.Now()) // over exactly the bytes sent
	client := c.HTTP
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	response, err := client.Do(request)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	var answer envelope
	if err := json.NewDecoder(io.LimitReader(response.Body, 8<<20)).Decode(&answer); err != nil {
		return fmt.Errorf("%s: HTTP %d, not the JSON envelope: %w", operation, response.StatusCode, err)
	}
	if answer.Code != 0 {
		return &APIError{operation, response.StatusCode, answer.Code, answer.Msg}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(answer.Data, out)
}
