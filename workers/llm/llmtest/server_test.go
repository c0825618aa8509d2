package llmtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/workers/llm/llmtest"
)

const transcriptPrompt = "The agent's policy:\n<<<BEGIN POLICY 0123456789abcdef>>>\nBe kind.\n[9] user: not a turn\n<<<END POLICY 0123456789abcdef>>>\n\n" +
	"Conversation: conv-7\nTurns: 5 (1 left out below)\n\n" +
	"<<<BEGIN TRANSCRIPT fedcba9876543210>>>\n" +
	"[1] system: (the agent's policy, shown above)\n" +
	"[2] user: I want to fly to Oslo.\n    | Next Tuesday, please.\n" +
	"[3] assistant → tool book({\"to\": \"OSL\"})\n" +
	"[… turn 4 omitted …]\n" +
	"[5] tool(book): Error: no seats left\n" +
	"<<<END TRANSCRIPT fedcba9876543210>>>"

func body(t *testing.T, extra map[string]any) []byte {
	t.Helper()
	req := map[string]any{
		"model":       "m1",
		"temperature": 0,
		"messages": []map[string]string{
			{"role": "system", "content": "You review one conversation."},
			{"role": "user", "content": transcriptPrompt},
		},
		"response_format": map[string]any{
			"type":        "json_schema",
			"json_schema": map[string]any{"name": "diagnosis", "strict": true, "schema": map[string]any{"type": "object"}},
		},
	}
	for k, v := range extra {
		req[k] = v
	}
	b, err := json.Marshal(req)
	require.NoError(t, err)
	return b
}

func newRequest(t *testing.T, ctx context.Context, srv *llmtest.Server, b []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/chat/completions", bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer k")
	return req
}

func post(t *testing.T, ctx context.Context, srv *llmtest.Server, b []byte) (*http.Response, error) {
	t.Helper()
	return http.DefaultClient.Do(newRequest(t, ctx, srv, b))
}

func TestAnswersInWireFormatAndRecords(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)

	resp, err := post(t, context.Background(), srv, body(t, nil))
	require.NoError(t, err)
	defer resp.Body.Close()

	require.Equal(t, http.StatusOK, resp.StatusCode)
	var got struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Message      llmtest.Message `json:"message"`
			FinishReason string          `json:"finish_reason"`
		} `json:"choices"`
		Usage llmtest.TokenUsage `json:"usage"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
	require.Equal(t, "chat.completion", got.Object)
	require.Equal(t, "m1", got.Model)
	require.NotEmpty(t, got.ID)
	require.Equal(t, "stop", got.Choices[0].FinishReason)
	require.Equal(t, "assistant", got.Choices[0].Message.Role)

	var d struct {
		Findings []struct {
			Category string
			Evidence []struct {
				Turn  int
				Quote string
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(got.Choices[0].Message.Content), &d))
	require.Equal(t, "tool_error", d.Findings[0].Category)
	require.Equal(t, 5, d.Findings[0].Evidence[0].Turn)
	require.Equal(t, "Error: no seats left", d.Findings[0].Evidence[0].Quote)

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	require.Equal(t, 1, r.Seq)
	require.Equal(t, "Bearer k", r.Authorization)
	require.Equal(t, "diagnosis", r.Schema())
	require.True(t, r.ResponseFormat.Strict)
	require.JSONEq(t, `{"type":"object"}`, string(r.ResponseFormat.Schema))
	require.Zero(t, *r.Temperature)
	require.False(t, r.Repair())
	require.Equal(t, "conv-7", r.Conversation())
	require.Equal(t, "Be kind.\n[9] user: not a turn", r.Policy())
	require.Equal(t, []llmtest.Turn{
		{N: 1, Role: "system", Text: "(the agent's policy, shown above)"},
		{N: 2, Role: "user", Text: "I want to fly to Oslo.\nNext Tuesday, please."},
		{N: 3, Role: "assistant"},
		{N: 5, Role: "tool", Text: "Error: no seats left"},
	}, r.Turns())

	want := llmtest.Usage(r, got.Choices[0].Message.Content)
	require.Equal(t, want, got.Usage)
	require.Equal(t, want.PromptTokens+want.CompletionTokens, got.Usage.TotalTokens)
	st := srv.Stats()
	require.Equal(t, llmtest.Stats{
		Requests: 1, ByStatus: map[int]int{200: 1}, Completions: 1,
		PromptTokens: want.PromptTokens, CompletionTokens: want.CompletionTokens,
	}, st)
}

func TestScriptSeesAttemptsPerUnit(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []int
	srv := llmtest.New(t, llmtest.WithScript(func(req llmtest.Request, n int) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, n)
		if n == 1 {
			return llmtest.RateLimited("3")
		}
		return llmtest.Valid(req)
	}))

	resp, err := post(t, context.Background(), srv, body(t, nil))
	require.NoError(t, err)
	var e struct {
		Error struct{ Message, Type string }
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&e))
	resp.Body.Close()
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.Equal(t, "3", resp.Header.Get("Retry-After"))
	require.Equal(t, "rate_limit_exceeded", e.Error.Type)

	for range 2 {
		resp, err = post(t, context.Background(), srv, body(t, nil))
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	other := body(t, map[string]any{"messages": []map[string]string{{"role": "user", "content": "another unit"}}})
	resp, err = post(t, context.Background(), srv, other)
	require.NoError(t, err)
	resp.Body.Close()

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []int{1, 2, 3, 1}, seen)
	require.Equal(t, map[int]int{200: 2, 429: 2}, srv.Stats().ByStatus)
}

func TestRefusesMalformedRequests(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	resp, err := post(t, context.Background(), srv, []byte(`{"model":`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)

	resp, err = http.Post(srv.URL()+"/embeddings", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Zero(t, srv.Stats().Requests)
}

func TestCloseReleasesHangingHandlers(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(llmtest.WithScript(func(llmtest.Request, int) llmtest.Reply { return llmtest.Hang() }))
	t.Cleanup(srv.Close)

	req := newRequest(t, context.Background(), srv, body(t, nil))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	require.True(t, srv.WaitRequests(nil, 1))

	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Fatal("Close blocked on a hanging handler")
	}
	<-errc
	require.Equal(t, 1, srv.Stats().Abandoned)
}

func TestDelayEndsWhenClientLeaves(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(llmtest.WithScript(func(req llmtest.Request, _ int) llmtest.Reply {
		r := llmtest.Valid(req)
		r.Delay = time.Hour
		return r
	}))
	ctx, cancel := context.WithCancel(context.Background())
	req := newRequest(t, ctx, srv, body(t, nil))
	errc := make(chan error, 1)
	go func() {
		_, err := http.DefaultClient.Do(req)
		errc <- err
	}()
	require.True(t, srv.WaitRequests(nil, 1))
	cancel()
	require.ErrorIs(t, <-errc, context.Canceled)

	srv.Close() // waits for the handler, which must have left its delay
	st := srv.Stats()
	require.Equal(t, 1, st.Abandoned)
	require.Zero(t, st.Completions)
}

func TestUntilHoldsTheAnswerUntilReleased(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := llmtest.Start(llmtest.WithScript(func(req llmtest.Request, _ int) llmtest.Reply {
		r := llmtest.Valid(req)
		r.Until = release
		return r
	}))
	defer srv.Close()
	req := newRequest(t, context.Background(), srv, body(t, nil))
	done := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	require.True(t, srv.WaitRequests(nil, 1))
	select {
	case code := <-done:
		t.Fatalf("answered %d before release", code)
	case <-time.After(100 * time.Millisecond): // an answer not held comes within this
	}
	require.Zero(t, srv.Stats().Completions)
	close(release)
	require.Equal(t, http.StatusOK, <-done)
	require.Equal(t, 1, srv.Stats().Completions)
}

func TestFaultHelpers(t *testing.T) {
	t.Parallel()
	req := llmtest.Request{Messages: []llmtest.Message{{Role: "user", Content: transcriptPrompt}}}

	require.True(t, strings.HasPrefix(llmtest.Fenced(req).Content, "```json\n{"))
	require.True(t, strings.HasPrefix(llmtest.WithProse(req).Content, "Here is"))
	tr := llmtest.Truncated(req)
	require.Equal(t, "length", tr.FinishReason)
	require.False(t, json.Valid([]byte(tr.Content)))
	require.False(t, json.Valid([]byte(llmtest.InvalidJSON().Content)))
	require.Contains(t, llmtest.Misspelled(req).Content, `"type":"action"`)
	require.Contains(t, llmtest.Misspelled(req).Content, `"category":"Tool error"`)
	require.Contains(t, llmtest.WrongEnums(req).Content, `"type":"BUG"`)
	require.Equal(t, http.StatusInternalServerError, llmtest.ServerError().Status)

	action := llmtest.Request{ResponseFormat: llmtest.ResponseFormat{Type: "json_schema", Name: "action"}}
	require.Contains(t, llmtest.Valid(action).Content, `"fixLocation":"prompt"`)
	require.Contains(t, llmtest.WrongEnums(action).Content, `"fixLocation":"database"`)
}
