// Package llmtest is a real HTTP server speaking the OpenAI chat-completions protocol,
// the one mock at the LLM boundary: tests point OPENAI_BASE_URL at it and script, per
// request, a valid answer, latency, a status with Retry-After, a hang, or a broken
// answer. It records every request and counts what it answered, so tests can compare
// the client's usage figures with the server's.
package llmtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Script decides the reply to one request. n counts the requests so far that carry the
// same first user message (1 for the first): retries and the repair call of one unit
// share that message, so n is the unit's attempt number, stable under concurrency.
type Script func(req Request, n int) Reply

// Option configures a Server.
type Option func(*Server)

// WithScript sets the script; without one every request gets Valid(req).
func WithScript(s Script) Option {
	return func(srv *Server) { srv.script = s }
}

// Stats counts what the server did.
type Stats struct {
	// Requests is the number of well-formed chat-completion requests received.
	Requests int
	// ByStatus counts answered requests by HTTP status.
	ByStatus map[int]int
	// Abandoned counts requests left unanswered because the client went away or the
	// server closed while the reply was delayed or hanging.
	Abandoned int
	// Completions is the number of 200 answers, each reporting usage.
	Completions int
	// PromptTokens and CompletionTokens sum the usage reported in 200 answers.
	PromptTokens     int
	CompletionTokens int
}

// Server is a running fake chat-completions endpoint. It is safe for concurrent use.
type Server struct {
	srv       *httptest.Server
	script    Script
	closing   chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	requests []Request
	attempts map[string]int
	stats    Stats
	arrived  chan struct{} // closed and replaced on every request, for WaitRequests
}

// New starts a server that is closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := Start(opts...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server on 127.0.0.1; the caller must Close it.
func Start(opts ...Option) *Server {
	s := &Server{
		script:   func(req Request, _ int) Reply { return Valid(req) },
		closing:  make(chan struct{}),
		attempts: map[string]int{},
		stats:    Stats{ByStatus: map[int]int{}},
		arrived:  make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// URL is the API base URL, ending in /v1, as OPENAI_BASE_URL expects it.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close releases hanging and delayed handlers, then shuts the server down. It is safe
// to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.srv.Close()
	})
}

// Requests returns a copy of the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Stats returns a copy of the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.ByStatus = make(map[int]int, len(s.stats.ByStatus))
	for k, v := range s.stats.ByStatus {
		st.ByStatus[k] = v
	}
	return st
}

// WaitRequests blocks until at least n requests have arrived, or until done is
// closed; it reports whether n arrived. Tests use it instead of sleeping.
func (s *Server) WaitRequests(done <-chan struct{}, n int) bool {
	for {
		s.mu.Lock()
		got, arrived := len(s.requests), s.arrived
		s.mu.Unlock()
		if got >= n {
			return true
		}
		select {
		case <-arrived:
		case <-done:
			return false
		}
	}
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req, err := parseRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	req.Authorization = r.Header.Get("Authorization")
	n := s.record(&req)
	reply := s.script(req, n)

	if reply.Until != nil && !hold(s, r, reply.Until) {
		return
	}
	var wait <-chan time.Time
	if reply.Delay > 0 {
		timer := time.NewTimer(reply.Delay)
		defer timer.Stop()
		wait = timer.C
	}
	if (reply.Hang || wait != nil) && !hold(s, r, wait) {
		return
	}
	s.answer(w, req, reply)
}

// hold waits for release to deliver (a nil release, when hanging, waits for ever)
// and reports whether it did; the client going away or the server closing ends the
// wait early, with the request counted as abandoned.
func hold[T any](s *Server, r *http.Request, release <-chan T) bool {
	select {
	case <-release:
		return true
	case <-r.Context().Done():
	case <-s.closing:
	}
	s.count(func(st *Stats) { st.Abandoned++ })
	return false
}

// record stores req with its sequence number and returns its attempt number.
func (s *Server) record(req *Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.Seq = len(s.requests) + 1
	s.requests = append(s.requests, *req)
	s.stats.Requests++
	s.attempts[req.User()]++
	close(s.arrived)
	s.arrived = make(chan struct{})
	return s.attempts[req.User()]
}

func (s *Server) count(f func(*Stats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.stats)
}

// answer writes the reply. Counters are updated before the body is written, so a
// client that has read its answer always finds it counted.
func (s *Server) answer(w http.ResponseWriter, req Request, reply Reply) {
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	if status != http.StatusOK {
		s.count(func(st *Stats) { st.ByStatus[status]++ })
		writeError(w, status, reply.Content)
		return
	}
	usage := Usage(req, reply.Content)
	s.count(func(st *Stats) {
		st.ByStatus[status]++
		st.Completions++
		st.PromptTokens += usage.PromptTokens
		st.CompletionTokens += usage.CompletionTokens
	})
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(completion{
		ID:      "chatcmpl-llmtest-" + strconv.Itoa(req.Seq),
		Object:  "chat.completion",
		Created: time.Now().Unix(),
		Model:   req.Model,
		Choices: []choice{{
			Message:      Message{Role: "assistant", Content: reply.Content},
			FinishReason: cmp.Or(reply.FinishReason, "stop"),
		}},
		Usage: usage,
	})
}

// TokenUsage is the usage object of a chat completion.
type TokenUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Usage is the deterministic usage the server reports for answering req with content:
// a quarter of the bytes, rounded up, of all prompt messages and of the answer.
func Usage(req Request, content string) TokenUsage {
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(m.Content)
	}
	u := TokenUsage{PromptTokens: (prompt + 3) / 4, CompletionTokens: (len(content) + 3) / 4}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

type completion struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Choices []choice   `json:"choices"`
	Usage   TokenUsage `json:"usage"`
}

type choice struct {
	Index        int     `json:"index"`
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

// writeError answers with the OpenAI error body.
func writeError(w http.ResponseWriter, status int, message string) {
	if message == "" {
		message = fmt.Sprintf("llmtest: status %d", status)
	}
	typ := "server_error"
	switch {
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_exceeded"
	case status < 500:
		typ = "invalid_request_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": message, "type": typ, "code": nil},
	})
}
