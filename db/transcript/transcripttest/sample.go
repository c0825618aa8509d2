// Package transcripttest reads the labelled sample exports shipped in testdata/ for the
// tests of packages that must not depend on the upload parser (the analyzers, the
// pipeline's pure stages).
package transcripttest

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/checkup-dev/checkup/db/transcript"
)

// The labelled sets in testdata/, by file name.
const (
	Airline = "airline-100.jsonl" // 100 conversations, 31 succeeded
	Retail  = "retail-50.jsonl"   // 50 conversations, 36 succeeded, failing steps annotated
)

// Labelled is a sample conversation with the export's ground truth. The truth is for
// scoring a diagnosis only: nothing under test may see it, so the conversation carries
// neither metadata nor label.
type Labelled struct {
	Conversation transcript.Conversation
	Success      bool
	// FailureSteps are the turns (1-based, the system prompt is turn 1) where an
	// annotator saw the agent go wrong; set for the retail set's failures only.
	FailureSteps []int
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

// LabelledSample reads testdata/airline-100.jsonl with its ground truth kept apart.
func LabelledSample(tb testing.TB) []Labelled {
	tb.Helper()
	out := LabelledSet(tb, Airline)
	if len(out) != 100 {
		tb.Fatalf("transcripttest: the sample has %d conversations, want 100", len(out))
	}
	return out
}

// LabelledSet reads one of the labelled sets in testdata/ with its ground truth kept
// apart from the transcripts.
func LabelledSet(tb testing.TB, name string) []Labelled {
	tb.Helper()
	f, err := os.Open(Path(name))
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
			tb.Fatalf("transcripttest: %s line %d: %v", name, len(out)+1, err)
		}
		out = append(out, Labelled{Conversation: l.conversation(), Success: l.Metadata.Success, FailureSteps: l.Metadata.FailureSteps})
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("transcripttest: %v", err)
	}
	return out
}

// Path is where a file of testdata/ is.
func Path(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", name)
}

// TextCorpus is every message and tool call of the airline sample, and random strings
// over an alphabet of capitals, whitespace runs, full-width and curly characters, CJK,
// emoji, characters whose lower case is longer, and invalid UTF-8: the texts fast
// paths of text handling are checked against plain implementations on.
func TextCorpus(tb testing.TB) ([]string, []transcript.Conversation) {
	tb.Helper()
	convs := Sample(tb)
	var texts []string
	for _, conv := range convs {
		for _, m := range conv.Messages {
			for _, tc := range m.ToolCalls {
				texts = append(texts, tc.Arguments)
			}
			texts = append(texts, m.Content)
		}
	}
	alphabet := []string{"a", "B", "z", "Q", "0", " ", "  ", "\t", "\n\n", "\r\n", "\v", "\f", "not found", "NOT", "\u00a0", "\u3000", "Ｈ", "ｏ", "’", "“", "。", "、",
		"好", "人工", "😀", "É", "é", "İ", "Ⱥ", "\xff", "\xe5\xa5", "ok", "OK", "I'm", "error", "ERROR", "_", "-", "'"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		var b strings.Builder
		for range r.IntN(60) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	return texts, convs
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
		Success      bool  `json:"success"`
		FailureSteps []int `json:"failure_steps"`
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
