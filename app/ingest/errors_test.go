package ingest_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// okLine is a valid one-message conversation line.
const okLine = `{"messages": [{"role": "user", "content": "hi"}]}`

// repeatLines returns n copies of line, one per line.
func repeatLines(line string, n int) string {
	return strings.Repeat(line+"\n", n)
}

func TestBadInputs(t *testing.T) {
	t.Parallel()
	badRoleAt17 := repeatLines(okLine, 16) + `{"messages": [{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}]}` + "\n" + okLine
	cases := []struct {
		name string
		data string
		lim  ingest.Limits
		kind error // the whole-file reason, or nil for located problems only
		want string
	}{
		{"empty", "", zeroLimits(), ingest.ErrEmpty, "The file is empty"},
		{"only space", " \n\r\n\t", zeroLimits(), ingest.ErrEmpty, "The file is empty"},
		{"empty array", "[\n]", zeroLimits(), ingest.ErrEmpty, "The file holds no conversations"},
		{"csv header only", "conversation_id,role,content\n\n", zeroLimits(), ingest.ErrEmpty, "The file holds no conversations"},
		{"unknown format", "hello world\nhow are you\n", zeroLimits(), ingest.ErrUnknownFormat, "This looks like plain text, not conversations. Checkup accepts OpenAI chat JSONL"},
		{"png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", zeroLimits(), ingest.ErrUnknownFormat, "This looks like a PNG image, not conversations. Checkup accepts"},
		{"jpeg", "\xff\xd8\xff\xe0\x00\x10JFIF", zeroLimits(), ingest.ErrUnknownFormat, "This looks like a JPEG image"},
		{"pdf", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", zeroLimits(), ingest.ErrUnknownFormat, "This looks like a PDF document"},
		{"html", "<!DOCTYPE html>\n<html><body>chat</body></html>\n", zeroLimits(), ingest.ErrUnknownFormat, "This looks like a web page (HTML)"},
		{"prose with commas", "Hello, this is a note about our bot, which I wrote!\nIt has no data.\n", zeroLimits(), ingest.ErrUnknownFormat, "This looks like plain text"},
		{"binary", "\x00\x01\x02\x03", zeroLimits(), ingest.ErrUnknownFormat, "This looks like a binary file"},
		{"excel workbook", "PK\x03\x04\x14\x00\x06\x00[Content_Types].xml", zeroLimits(), ingest.ErrUnknownFormat, "This looks like an Excel workbook, which is not accepted; save it as CSV (UTF-8)"},
		{"zip", "PK\x03\x04rest", zeroLimits(), ingest.ErrUnknownFormat, "zip archive"},
		{"utf-16", "\xff\xfe{\x00", zeroLimits(), ingest.ErrInvalidUTF8, "UTF-16"},
		{"invalid utf-8 jsonl", okLine + "\n" + okLine + "\n" + `{"messages": [{"role": "user", "content": "caf` + "\xe9" + `"}]}`, zeroLimits(), ingest.ErrInvalidUTF8, "Line 3 is not valid UTF-8"},
		{"invalid utf-8 json", "[\n" + okLine + ",\n\n" + `{"messages": [{"role": "user", "content": "` + "\xc3\x28" + `"}]}]`, zeroLimits(), ingest.ErrInvalidUTF8, "Line 4 is not valid UTF-8"},
		{"invalid utf-8 csv", "conversation_id,role,content\n1,user,ok\n1,user,\xff\n", zeroLimits(), ingest.ErrInvalidUTF8, "Line 3 is not valid UTF-8"},
		{"bad role", badRoleAt17, zeroLimits(), nil, `line 17: message 2: "role" must be one of system, developer, user, assistant, tool, function (got "bot")`},
		{"invalid json line", okLine + "\n" + okLine + "\n" + `{"messages": [}` + "\n" + okLine, zeroLimits(), nil, `line 3: not valid JSON (unexpected "}" at column 15)`},
		{"json line bare word", okLine + "\n" + okLine + "\n" + `{"a": bad}`, zeroLimits(), nil, `line 3: not valid JSON (unexpected "b" at column 7)`},
		{"json line indented", okLine + "\n  \t" + `{"messages": [x]}`, zeroLimits(), nil, `line 2: not valid JSON (unexpected "x" at column 18)`},
		{"json line after unicode", okLine + "\n" + `{"é": [x]}`, zeroLimits(), nil, `line 2: not valid JSON (unexpected "x" at column 8)`},
		{"json line cut", okLine + "\n" + `{"messages": [{"role": "user"`, zeroLimits(), nil, "line 2: not valid JSON: the line ends before the JSON object is complete"},
		{"json line trailing text", okLine + "\n" + okLine + " ok", zeroLimits(), nil, `line 2: not valid JSON (unexpected "o" after the end of the JSON object at column`},
		{"json line control character", okLine + "\n{\"messages\": \"a\tb\"}", zeroLimits(), nil, `line 2: not valid JSON (unexpected "\t" inside a quoted text at column 16)`},
		{"not an object", okLine + "\n[1, 2]\n", zeroLimits(), nil, "line 2: expected a JSON object"},
		{"messages wrong type", `{"messages": "hi"}`, zeroLimits(), nil, `line 1: "messages" must be an array, not string`},
		{"content wrong type", `{"messages": [{"role": "user", "content": 7}]}`, zeroLimits(), nil, `line 1: message 1: "content" must be a string, null or an array of content parts`},
		{"no messages key", `{"id": "x"}`, zeroLimits(), nil, `line 1: a conversation needs a "messages" array`},
		{"id an object", `{"id": {}, "messages": [{"role": "user", "content": "x"}]}`, zeroLimits(), nil, "line 1: the conversation id must be a string or a number"},
		{"tool call without name", `{"messages": [{"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}]}`, zeroLimits(), nil, "line 1: message 1: tool call 1 has no function name"},
		{"nul character", `{"messages": [{"role": "user", "content": "a\u0000b"}]}`, zeroLimits(), nil, "line 1: the conversation contains a NUL character"},
		{"lone surrogate in jsonl metadata", okLine + "\n" + `{"messages": [{"role": "user", "content": "a"}], "metadata": {"note": "x\ud800y"}}`, zeroLimits(), nil, "line 2: the text holds a lone UTF-16 surrogate escape"},
		{"lone low surrogate in jsonl content", `{"messages": [{"role": "user", "content": "\udc00"}]}`, zeroLimits(), nil, "line 1: the text holds a lone UTF-16 surrogate escape"},
		{"lone surrogate in a json document", "[\n" + okLine + ",\n" + `{"messages": [{"role": "user", "content": "a"}],` + "\n" + `"metadata": {"n": "\ud83d"}}]`, zeroLimits(), nil, "line 4: the text holds a lone UTF-16 surrogate escape"},
		{"sharegpt bad from", `{"conversations": [{"from": "narrator", "value": "x"}]}`, zeroLimits(), nil, `line 1: turn 1: "from" must be one of human, user, gpt, assistant, bot, model, chatgpt, system, observation, tool, function, function_response, tool_response, function_call, tool_call (got "narrator")`},
		{"sharegpt bad role", `{"conversations": [{"role": "narrator", "content": "x"}]}`, zeroLimits(), nil, `line 1: turn 1: "role" must be one of human, user, gpt`},
		{"json syntax in array", "[\n" + okLine + ",\n" + okLine + "\n" + okLine + "\n]", zeroLimits(), nil, "line 4: not valid JSON: a comma is missing between two entries"},
		{"json cut short", "[\n" + okLine + ",\n" + `{"messages": [`, zeroLimits(), nil, "line 3: the JSON document ends too early"},
		{"json stray closer", "[\n" + okLine + "\n]\n]", zeroLimits(), nil, `line 4: not valid JSON (unexpected "]")`},
		{"json scalar elements", "[1, \"x\"]", zeroLimits(), nil, "line 1: expected a JSON object for the conversation, not number"},
		{"document messages wrong type", "{\n\"id\": \"x\",\n\"messages\": [{\"role\": 5}]\n}", zeroLimits(), nil, `line 3: "messages.role" must be a string, not number`},
		{"wrapper not array", `{"conversations": {"a": [1]}, "x": 1` + "\n}", zeroLimits(), nil, `line 1: "conversations" must be an array`},
		{"csv missing content", "conversation_id,role,content\n" + strings.Repeat("c,user,hi\n", 10) + "c,user,\n", zeroLimits(), nil, "row 12: missing content"},
		{"csv short row", "conversation_id,role,content\nc,user\n", zeroLimits(), nil, "row 2: missing content"},
		{"csv bad role", "conversation_id,speaker,content\nc,narrator,x\n", zeroLimits(), nil, `row 2: "speaker" must be one of system, user, assistant, tool, or another name of one (developer, human, customer, client, gpt, bot, agent, ai, model, function, observation) (got "narrator")`},
		{"csv bad order", "conversation_id,role,content,turn\nc,user,x,first\n", zeroLimits(), nil, `row 2: "turn" must be a number (got "first")`},
		{"csv bad time", "conversation_id,role,content,timestamp\nc,user,x,yesterday\n", zeroLimits(), nil, `row 2: "timestamp" is not a date and time Checkup can read`},
		{"csv bad quote", "conversation_id,role,content\nc,user,a\"b\nc,user,ok\n", zeroLimits(), nil, "line 2: invalid CSV: bare \" in non-quoted-field"},
		{"csv missing columns", "id,speaker,notes\nc,user,x\n", zeroLimits(), ingest.ErrCSVHeader, "The CSV header has id, speaker, notes; it needs a conversation id column (conversation_id, conversation, session_id, thread_id, chat_id, dialog_id) and a content column (content, message, text, body, value)."},
		{"csv missing all columns", "\ufeffid,question,answer\nc,x,y\n", zeroLimits(), ingest.ErrCSVHeader, "The CSV header has id, question, answer; it needs a conversation id column (conversation_id, conversation, session_id, thread_id, chat_id, dialog_id), a role column (role, speaker, from, sender, author) and a content column (content, message, text, body, value)."},
		{"csv missing role, wide header", "conversation_id,content," + strings.Repeat("x,", 14) + ",\nc,hi\n", zeroLimits(), ingest.ErrCSVHeader, "The CSV header has conversation_id, content, x, x, x, x, x, x, x, x, x, x, and 6 more; it needs a role column (role, speaker, from, sender, author)."},
		{"too long jsonl line", okLine + "\n" + `{"messages": [{"role": "user", "content": "` + strings.Repeat("x", 200) + `"}]}`, ingest.Limits{MaxLineBytes: 100}, ingest.ErrLineTooLong, "Line 2 is longer than the 100 bytes limit for one line."},
		{"nested too deep", okLine + "\n" + `{"messages": ` + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + "}\n", zeroLimits(), nil, "line 2: the JSON nests arrays and objects more than 10,000 levels deep, which no conversation needs"},
		{"too long csv line", "conversation_id,role,content\nc,user," + strings.Repeat("x", 200) + "\n", ingest.Limits{MaxLineBytes: 100}, ingest.ErrLineTooLong, "The CSV record starting on line 2 is longer than the 100 bytes limit for one record."},
		{"too long csv record of short lines", "conversation_id,role,content\nc,user,ok\nc,user,\"" + strings.Repeat("a \"\"b\"\"\n", 20) + "\"\n", ingest.Limits{MaxLineBytes: 100}, ingest.ErrLineTooLong, "The CSV record starting on line 3 is longer than the 100 bytes limit for one record."},
		{"too large json element", "[\n" + okLine + ",\n" + `{"messages": [{"role": "user", "content": "` + strings.Repeat("x", 200) + `"}]}]`, ingest.Limits{MaxLineBytes: 100}, ingest.ErrLineTooLong, "The conversation starting on line 3 is larger than the 100 bytes limit"},
		{"too many conversations", repeatLines(okLine, 4), ingest.Limits{MaxConversations: 3}, ingest.ErrTooManyConversations, "The file has more than 3 conversations (the limit was passed at line 4)"},
		{"too many conversations csv", "conversation_id,role,content\na,user,x\nb,user,x\na,user,x\nc,user,x\n", ingest.Limits{MaxConversations: 2}, ingest.ErrTooManyConversations, "passed at row 5"},
		{"too many messages", okLine + "\n" + `{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]}`, ingest.Limits{MaxMessages: 2}, ingest.ErrTooManyMessages, "The conversation at line 2 has more than 2 messages"},
		{"too many sharegpt turns in a document", "{\"conversations\": [\n{\"from\": \"human\", \"value\": \"a\"},\n{\"from\": \"gpt\", \"value\": \"b\"},\n{\"from\": \"human\", \"value\": \"c\"}]}", ingest.Limits{MaxMessages: 2}, ingest.ErrTooManyMessages, "at line 1 has more than 2 messages"},
		{"oversize message", `{"messages": [{"role": "user", "content": "short"}, {"role": "assistant", "content": "ééééééééééé"}]}`, ingest.Limits{MaxMessageChars: 10}, ingest.ErrMessageTooLong, "The message at line 1, message 2 has 11 characters, over the limit of 10 characters per message."},
		{"oversize tool arguments", `{"messages": [{"role": "assistant", "content": "abcdef", "tool_calls": [{"function": {"name": "f", "arguments": "123456"}}]}]}`, ingest.Limits{MaxMessageChars: 10}, ingest.ErrMessageTooLong, "has 12 characters"},
		{"oversize csv message", "conversation_id,role,content\nc,user,abcdefghijk\n", ingest.Limits{MaxMessageChars: 10}, ingest.ErrMessageTooLong, "The message at row 2 has 11 characters"},
		{"damaged gzip", "\x1f\x8b\x08\x00garbage", zeroLimits(), ingest.ErrBadGzip, "looks gzip-compressed but its compressed data is damaged"},
		{"problems then a limit", `{"messages": "hi"}` + "\n" + repeatLines(okLine, 3), ingest.Limits{MaxConversations: 2}, ingest.ErrTooManyConversations, "line 1: \"messages\" must be an array, not string\nThe file has more than 2 conversations"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			emitted := 0
			_, err := ingest.Parse(strings.NewReader(tc.data), tc.lim, func(transcript.Conversation) error {
				emitted++
				return nil
			})
			require.Error(t, err)
			require.Contains(t, refusal(t, err), tc.want)
			require.True(t, ingest.IsRejected(err))
			if tc.kind != nil {
				require.ErrorIs(t, err, tc.kind)
				return
			}
			var located *ingest.Error
			require.ErrorAs(t, err, &located)
			require.Nil(t, located.Stopped)
		})
	}
}

// TestTruncatedGzip checks that a cut-off gzip upload is refused, not read as a
// shorter file.
func TestTruncatedGzip(t *testing.T) {
	t.Parallel()
	full := gzipped(t, readSample(t))

	_, _, err := parseBytes(t, full[:len(full)/2], zeroLimits())

	require.ErrorIs(t, err, ingest.ErrBadGzip)
}

func TestManyProblems(t *testing.T) {
	t.Parallel()
	data := repeatLines(okLine, 5) + repeatLines(`{"messages": [{"role": "narrator", "content": "x"}]}`, 30)

	_, _, err := parseBytes(t, []byte(data), zeroLimits())

	var e *ingest.Error
	require.ErrorAs(t, err, &e)
	require.Len(t, e.Problems, ingest.MaxProblems)
	require.Equal(t, 10, e.More)
	require.True(t, strings.HasPrefix(english(t).Text(e.Problems[0]), `line 6: message 1: "role" must be one of`))
	require.True(t, strings.HasPrefix(english(t).Text(e.Problems[19]), `line 25: `))
	lines := strings.Split(refusal(t, err), "\n")
	require.Len(t, lines, 21)
	require.Equal(t, "and 10 more", lines[20])
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestGzipBomb(t *testing.T) {
	t.Parallel()
	// One conversation, then 1 GiB of blank lines in 1,024 gzip members of 1 MiB each:
	// about 1 MiB compressed.
	head := gzipped(t, []byte(okLine+"\n"))
	member := gzipped(t, bytes.Repeat([]byte("\n"), 1<<20))
	bomb := append(head, bytes.Repeat(member, 1024)...)
	src := &countingReader{r: bytes.NewReader(bomb)}

	sum, err := ingest.Parse(src, ingest.Limits{MaxDecompressedBytes: 1 << 20}, func(transcript.Conversation) error { return nil })

	require.ErrorIs(t, err, ingest.ErrTooLarge)
	requireRefusal(t, err, "The file is larger than the 1 MiB limit once decompressed; split it into smaller uploads.")
	require.LessOrEqual(t, sum.DecompressedBytes, int64(1<<20+1), "decompression stopped at the limit")
	require.Less(t, src.n, len(bomb)/2, "the compressed stream was not read to its end")
}

// TestGzipBombUnderTheSizeLimit: the same bomb under the default 1 GiB limit is refused
// for how much it grows, after 16 MiB of blank lines, not read to its gigabyte.
func TestGzipBombUnderTheSizeLimit(t *testing.T) {
	t.Parallel()
	member := gzipped(t, bytes.Repeat([]byte("\n"), 1<<20))
	bomb := append(gzipped(t, []byte(okLine+"\n")), bytes.Repeat(member, 1024)...)
	src := &countingReader{r: bytes.NewReader(bomb)}

	sum, err := ingest.Parse(src, ingest.Limits{}, func(transcript.Conversation) error { return nil })

	require.ErrorIs(t, err, ingest.ErrTooLarge)
	requireRefusal(t, err, "The file grew to more than 200 times its compressed size once decompressed, which a conversation "+
		"export does not: it is mostly the same bytes repeated, and was refused before the rest was read.")
	require.Less(t, sum.DecompressedBytes, int64(20<<20), "refused soon after 16 MiB")
	require.Less(t, src.n, len(bomb)/2, "the compressed stream was not read to its end")
}

// TestEndlessLeadingBlanks checks that a file starting with one run of blanks longer
// than a line may be is refused while it is read, not held in memory to its end.
func TestEndlessLeadingBlanks(t *testing.T) {
	t.Parallel()
	src := &countingReader{r: io.MultiReader(strings.NewReader("\n"), strings.NewReader(strings.Repeat(" \t", 4<<20)), strings.NewReader(okLine))}

	_, err := ingest.Parse(src, ingest.Limits{MaxLineBytes: 1000}, nil)

	require.ErrorIs(t, err, ingest.ErrLineTooLong)
	requireRefusal(t, err, "Line 2 is longer than the 1,000 bytes limit for one line.")
	require.Less(t, src.n, 1<<20, "reading stopped long before the end of the blanks")
}

// TestHugeDocumentValue checks that one oversized conversation inside a JSON document is
// refused while it is being read, not after all of it has been buffered.
func TestHugeDocumentValue(t *testing.T) {
	t.Parallel()
	huge := "[\n" + okLine + ",\n" + `{"messages": [{"role": "user", "content": "` + strings.Repeat("x", 8<<20) + `"}]}]`
	src := &countingReader{r: strings.NewReader(huge)}

	_, err := ingest.Parse(src, ingest.Limits{MaxLineBytes: 1000}, nil)

	require.ErrorIs(t, err, ingest.ErrLineTooLong)
	requireRefusal(t, err, "The conversation starting on line 3 is larger than the 1,000 bytes limit for one conversation.")
	require.Less(t, src.n, 1<<20, "reading stopped long before the end of the value")
}

func TestEmitError(t *testing.T) {
	t.Parallel()
	stop := errors.New("database gone")

	_, err := ingest.Parse(strings.NewReader(repeatLines(okLine, 3)), zeroLimits(), func(transcript.Conversation) error { return stop })

	require.ErrorIs(t, err, stop)
	require.False(t, ingest.IsRejected(err))
}

func TestReadError(t *testing.T) {
	t.Parallel()
	broken := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(repeatLines(okLine, 3)), iotestErr{broken})

	_, err := ingest.Parse(r, zeroLimits(), func(transcript.Conversation) error { return nil })

	require.ErrorIs(t, err, broken)
	require.False(t, ingest.IsRejected(err))
	require.Contains(t, err.Error(), "ingest: read: connection reset")
}

func TestNoEmitAfterProblem(t *testing.T) {
	t.Parallel()
	data := okLine + "\n" + `{"messages": "hi"}` + "\n" + repeatLines(okLine, 5)

	convs, _, err := parseBytes(t, []byte(data), zeroLimits())

	require.Error(t, err)
	require.Len(t, convs, 1, "conversations before the first problem may have been emitted; none after it")
}

// iotestErr is a reader that always fails.
type iotestErr struct{ err error }

func (r iotestErr) Read([]byte) (int, error) { return 0, r.err }

func TestErrorRendering(t *testing.T) {
	t.Parallel()
	e := &ingest.Error{Problems: []locale.Text{locale.Lit("line 1: a"), locale.Lit("line 2: b")}, More: 3}
	require.Equal(t, []string{"line 1: a", "line 2: b", "and 3 more"}, e.Lines(english(t)))
	require.NoError(t, e.Unwrap())
	require.True(t, ingest.IsRejected(fmt.Errorf("wrapped: %w", e)))
}
