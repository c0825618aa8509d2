// Package transcripttest reads the sample export shipped in testdata/ for the tests
// of packages that must not depend on the upload parser (the analyzers, the
// pipeline's pure stages).
package transcripttest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/checkup-dev/checkup/workers/transcript"
)

// Labelled is a sample conversation with the export's ground-truth label. The label
// is for scoring a diagnosis only: nothing under test may see it.
type Labelled struct {
	Conversation transcript.Conversation
	Success      bool
}

// Sample reads testdata/airline-100.jsonl into transcripts, without their metadata.
func Sample(tb testing.TB) []transcript.Conversation {
	tb.Helper()
	labelled := LabelledSample(tb)
	convs := make([]transcript.Conversation, len(labelled))
	for i, l := range labelled {
		convs[i] = l.Conversation
	}
	return convs
}

// LabelledSample reads testdata/airline-100.jsonl with each conversation's
// metadata.success, kept apart from the transcript.
func LabelledSample(tb testing.TB) []Labelled {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "airline-100.jsonl"))
	if err != nil {
		tb.Fatalf("transcripttest: %v", err)
	}
	defer f.Close()
	var out []Labelled
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			tb.Fatalf("transcripttest: line %d: %v", len(out)+1, err)
		}
		out = append(out, Labelled{Conversation: l.conversation(), Success: l.Metadata.Success})
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("transcripttest: %v", err)
	}
	if len(out) != 100 {
		tb.Fatalf("transcripttest: the sample has %d conversations, want 100", len(out))
	}
	return out
}

// line is one conversation of the OpenAI-format export.
type line struct {
	ID       string `json:"conversation_id"`
	Messages []struct {
		Role       transcript.Role `json:"role"`
		Content    *string         `json:"content"`
		Name       string          `json:"name"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Metadata struct {
		Success bool `json:"success"`
	} `json:"metadata"`
}

func (l line) conversation() transcript.Conversation {
	c := transcript.Conversation{ID: l.ID}
	for _, m := range l.Messages {
		msg := transcript.Message{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID}
		if m.Content != nil {
			msg.Content = *m.Content
		}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, transcript.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		c.Messages = append(c.Messages, msg)
	}
	return c
}
