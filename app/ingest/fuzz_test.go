package ingest_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/transcript"
)

// The fuzzers share one property, checked by checkParse: Parse never panics or hangs,
// every failure is a located *ingest.Error or a whole-file *ingest.FileError, and every
// success emits well-formed conversations. Each fuzzer starts from seeds of its own
// format (f.Add below and testdata/fuzz/<name>/), so mutations explore that parser.
//
//	go test ./app/ingest -run=^$ -fuzz=FuzzParseJSONL -fuzztime=20s

func FuzzParseJSONL(f *testing.F) {
	for _, s := range []string{
		okLine + "\n" + okLine,
		`{"conversation_id": "c1", "messages": [{"role": "system", "content": "policy"}, {"role": "user", "content": "hi"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "get", "arguments": "{\"id\": 1}"}}]}, {"role": "tool", "tool_call_id": "t1", "name": "get", "content": "{}"}], "metadata": {"success": true}}`,
		`{"id": 3, "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url"}]}]}` + "\r\n\r\n" + `{"messages": [{"role": "bot"}]}`,
		"\ufeff" + okLine + "\n" + `{"messages": [{"role": "user", "content": "caf\u00e9 \ud83d\ude00 \u0000"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Add(gzipBytes([]byte(okLine + "\n")))
	f.Fuzz(checkParse)
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		"[\n  " + okLine + ",\n  " + okLine + "\n]",
		`{"conversations": [` + okLine + `, {"id": "b", "messages": [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {"x": [1]}}}]}]}], "version": 2}`,
		"{\n \"id\": \"one\",\n \"messages\": [\n  {\"role\": \"developer\", \"content\": \"x\"}\n ]\n}\n{\n \"messages\": []\n}",
		"[1, [], {\"messages\": \"x\"}, {}]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParse)
}

func FuzzParseShareGPT(f *testing.F) {
	for _, s := range []string{
		`{"id": "s", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}`,
		`{"system": "p", "conversations": [{"from": "human", "value": "x"}, {"from": "function_call", "value": "{\"name\": \"f\", \"arguments\": {}}"}, {"from": "observation", "value": "1"}, {"from": "gpt", "value": "ok"}]}`,
		`[{"conversations": [{"role": "user", "content": "a"}, {"from": "function_call", "value": "[{\"name\": \"a\"}]"}]}]`,
		"{\"conversations\": [\n{\"from\": \"human\", \"value\": \"a\"},\n{\"from\": \"narrator\", \"value\": 1}\n], \"id\": 7}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParse)
}

func FuzzParseCSV(f *testing.F) {
	for _, s := range []string{
		"conversation_id,role,content\na,user,hi\na,assistant,\"yo,\n there\"\nb,user,x\n",
		"Session ID;Speaker;Message;Turn;Timestamp\n1;human;a;2;2024-05-15T10:00:00Z\n1;bot;b;1;1715767200\n",
		"chat_id\tauthor\tbody\tname\ttool_call_id\ttool_calls\nc\tassistant\t\t\t\t[{\"id\":\"t\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]\nc\ttool\tok\tf\tt\t\n",
		"thread_id,from,text,seq\nx,narrator,\"bad\"quote\",one\n,,\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParse)
}

func FuzzParseAnthropic(f *testing.F) {
	for _, s := range []string{
		`{"id": "a", "system": "p", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": [{"type": "text", "text": "y"}, {"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": true, "content": [{"type": "text", "text": "no"}]}]}], "metadata": {"csat": 2}}`,
		`[{"system": [{"type": "text", "text": "p"}], "messages": [{"role": "assistant", "content": [{"type": "thinking", "thinking": "h"}, {"type": "image", "source": {}}]}]}]`,
		`{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "zz", "content": 5}]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParse)
}

func FuzzParseOTLP(f *testing.F) {
	for _, s := range []string{
		`{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t", "startTimeUnixNano": "2", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}, {"key": "gen_ai.input.messages", "value": {"stringValue": "[{\"role\": \"user\", \"parts\": [{\"type\": \"text\", \"content\": \"hi\"}]}]"}}]}]}]}]}`,
		`{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t", "attributes": [{"key": "gen_ai.output.messages", "value": {"arrayValue": {"values": [{"kvlistValue": {"values": [{"key": "role", "value": {"stringValue": "assistant"}}, {"key": "parts", "value": {"arrayValue": {"values": [{"kvlistValue": {"values": [{"key": "type", "value": {"stringValue": "tool_call"}}, {"key": "name", "value": {"stringValue": "f"}}, {"key": "arguments", "value": {"kvlistValue": {"values": [{"key": "n", "value": {"intValue": "3"}}]}}}]}}]}}}]}}]}}}]}]}]}]}`,
		"{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [{\"traceId\": \"a\", \"attributes\": [{\"key\": \"llm.input_messages.0.message.role\", \"value\": {\"stringValue\": \"user\"}}, {\"key\": \"llm.input_messages.0.message.content\", \"value\": {\"stringValue\": \"q\"}}]}]}]}]}\n{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [{\"traceId\": \"a\", \"events\": [{\"name\": \"gen_ai.choice\", \"attributes\": [{\"key\": \"message\", \"value\": {\"stringValue\": \"{\\\"content\\\": \\\"a\\\"}\"}}]}], \"attributes\": [{\"key\": \"gen_ai.prompt.0.role\", \"value\": {\"stringValue\": \"user\"}}]}]}]}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParse)
}

func FuzzParseLangfuse(f *testing.F) {
	for _, s := range []string{
		`{"id": "t1", "sessionId": "s", "timestamp": "2024-01-01T00:00:00Z", "metadata": {"success": true}, "observations": [{"id": "g", "type": "GENERATION", "startTime": "2024-01-01T00:00:01Z", "input": [{"role": "user", "content": "a"}], "output": {"role": "assistant", "content": "b"}}], "scores": [{"name": "thumbs", "value": 1, "dataType": "NUMERIC"}]}`,
		`{"id": "g2", "trace_id": "t2", "type": "GENERATION", "start_time": "2024-05-29 13:46:19.963000", "input": "[{\"role\": \"user\", \"content\": \"x\"}]", "output": "y", "session_id": "s2"}`,
		`{"data": [{"id": "t3", "timestamp": "2024-01-01", "input": "q", "output": "a"}, {"traceId": "t3", "name": "csat", "stringValue": "满意", "dataType": "CATEGORICAL"}], "meta": {}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParse)
}

func FuzzParseLangSmith(f *testing.F) {
	for _, s := range []string{
		`{"id": "r", "run_type": "llm", "trace_id": "t", "inputs": {"messages": [[{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"], "kwargs": {"content": "hi"}}]]}, "outputs": {"generations": [[{"text": "yo", "message": {"type": "ai", "content": "yo", "tool_calls": [{"name": "f", "args": {}, "id": "c"}]}}]]}, "extra": {"metadata": {"thread_id": "th"}}}`,
		`[{"id": "root", "run_type": "chain", "parent_run_id": null, "inputs": {"messages": [{"role": "user", "content": "a"}]}, "outputs": {"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}, "feedback_stats": {"resolved": {"avg": 1}}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParse)
}

// fuzzLimits are small, so that inputs of fuzzer size reach every limit.
func fuzzLimits() ingest.Limits {
	return ingest.Limits{
		MaxDecompressedBytes: 1 << 20,
		MaxLineBytes:         4 << 10,
		MaxConversations:     64,
		MaxMessages:          64,
		MaxMessageChars:      2048,
		SpillBytes:           2 << 10, // so that fuzzed inputs spill too
	}
}

// checkParse parses data and checks the outcome is one of the documented ones.
func checkParse(t *testing.T, data []byte) {
	lim := fuzzLimits()
	lim.TempDir = t.TempDir()
	var convs []transcript.Conversation
	sum, err := ingest.Parse(bytes.NewReader(data), lim, func(c transcript.Conversation) error {
		convs = append(convs, c)
		return nil
	})
	if err != nil {
		checkRejection(t, err)
		return
	}
	require.Contains(t, []string{"openai-jsonl", "openai-json", "sharegpt-jsonl", "sharegpt-json", "csv",
		"anthropic-jsonl", "anthropic-json", "otlp-jsonl", "otlp-json", "langfuse-jsonl", "langfuse-json",
		"langsmith-jsonl", "langsmith-json"}, sum.Format)
	require.Equal(t, sum.Conversations, sum.Labels.Failed+sum.Labels.Succeeded+sum.Labels.Unlabelled)
	require.Len(t, convs, sum.Conversations)
	require.LessOrEqual(t, len(convs), lim.MaxConversations)
	require.LessOrEqual(t, len(sum.Warnings), ingest.MaxProblems)
	ids := map[string]bool{}
	messages := 0
	for _, c := range convs {
		require.NotEmpty(t, c.ID)
		require.False(t, ids[c.ID], "ids are unique")
		ids[c.ID] = true
		require.LessOrEqual(t, len(c.Messages), lim.MaxMessages)
		messages += len(c.Messages)
		for _, m := range c.Messages {
			require.True(t, m.Role.Valid(), "role %q", m.Role)
			require.True(t, utf8.ValidString(m.Content))
			require.LessOrEqual(t, utf8.RuneCountInString(m.Content), lim.MaxMessageChars)
			for _, tc := range m.ToolCalls {
				require.NotEmpty(t, tc.Name)
			}
		}
	}
	require.Equal(t, messages, sum.Messages)
}

// checkRejection checks err is a located *ingest.Error or a whole-file *ingest.FileError.
func checkRejection(t *testing.T, err error) {
	require.True(t, ingest.IsRejected(err), "unexpected error: %v", err)
	var located *ingest.Error
	if errors.As(err, &located) {
		require.NotEmpty(t, located.Problems)
		require.LessOrEqual(t, len(located.Problems), ingest.MaxProblems)
		for _, p := range located.Problems {
			require.True(t, isLocated(english(t).Text(p)), "a located problem: %q", english(t).Text(p))
		}
		if located.Stopped != nil {
			checkFileError(t, located.Stopped)
		}
		return
	}
	var fe *ingest.FileError
	require.ErrorAs(t, err, &fe)
	checkFileError(t, fe)
}

// checkFileError checks a whole-file error has a known reason and reads as a sentence.
func checkFileError(t *testing.T, fe *ingest.FileError) {
	kinds := []error{
		ingest.ErrEmpty, ingest.ErrUnknownFormat, ingest.ErrInvalidUTF8, ingest.ErrLineTooLong,
		ingest.ErrTooManyConversations, ingest.ErrTooManyMessages, ingest.ErrMessageTooLong,
		ingest.ErrTooLarge, ingest.ErrBadGzip, ingest.ErrCSVHeader,
	}
	require.True(t, slices.Contains(kinds, fe.Kind), "unknown reason %v", fe.Kind)
	require.True(t, strings.HasSuffix(english(t).Text(fe.Msg), "."), "a sentence: %q", english(t).Text(fe.Msg))
}

// isLocated reports whether a problem starts with its place: "line 12: " or "row 3: ".
func isLocated(problem string) bool {
	rest, ok := strings.CutPrefix(problem, "line ")
	if !ok {
		rest, ok = strings.CutPrefix(problem, "row ")
	}
	if !ok {
		return false
	}
	num, _, ok := strings.Cut(rest, ": ")
	n, err := strconv.Atoi(num)
	return ok && err == nil && n > 0
}

// gzipBytes compresses data for a seed.
func gzipBytes(data []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(data)
	_ = zw.Close()
	return buf.Bytes()
}
