package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// newClient builds the go-openai client for cfg. Its HTTP client has no timeout of
// its own: every call runs under a context with cfg.Timeout.
func newClient(cfg Config) *openai.Client {
	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	// Keep a connection per concurrent call instead of the default two.
	transport.MaxIdleConnsPerHost = 16
	var doer openai.HTTPDoer = &http.Client{Transport: transport}
	if takesTemperature(cfg.Model) {
		doer = zeroTemperature{next: doer}
	}
	oc.HTTPClient = doer
	return openai.NewClientWithConfig(oc)
}

// takesTemperature reports whether model accepts a temperature. go-openai knows the
// reasoning models (o1, o3, o4, gpt-5 and later) that refuse sampling parameters; it
// refuses a request with a temperature other than 1 for them, which is the test here.
func takesTemperature(model string) bool {
	probe := openai.ChatCompletionRequest{Model: model, Temperature: 0.5}
	return openai.NewReasoningValidator().Validate(probe) == nil
}

// zeroTemperature sends "temperature": 0 with every chat-completion request.
// go-openai v1.43.0 declares ChatCompletionRequest.Temperature as a float32 with
// omitempty, so a zero never reaches the wire and the server applies its default of 1
// (go-openai issue #9; its documented work-around, math.SmallestNonzeroFloat32, is not
// zero). This doer sits under the client and writes the key into the JSON body when
// it is missing.
type zeroTemperature struct {
	next openai.HTTPDoer
}

// Do adds the temperature and passes the request on.
func (z zeroTemperature) Do(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") || req.Body == nil {
		return z.next.Do(req)
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("llm: read request body: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, fmt.Errorf("llm: request body: %w", err)
	}
	if _, ok := fields["temperature"]; !ok {
		fields["temperature"] = json.RawMessage("0")
		if body, err = json.Marshal(fields); err != nil {
			return nil, fmt.Errorf("llm: request body: %w", err)
		}
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return z.next.Do(req)
}

// request is the chat-completion request for msgs: temperature 0 (see
// zeroTemperature) and the answer constrained by s, through response_format
// json_schema in strict mode, or json_object with the schema in the prompt.
func (a *Analyzer) request(s *schema, msgs []openai.ChatCompletionMessage) openai.ChatCompletionRequest {
	rf := &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	if a.cfg.JSONMode == JSONModeSchema {
		rf = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: s.name, Schema: s.raw, Strict: true},
		}
	}
	return openai.ChatCompletionRequest{Model: a.cfg.Model, Messages: msgs, ResponseFormat: rf}
}
