package pipeline

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
)

// decodeMessages decodes a stored messages array, as json.Unmarshal into
// []transcript.Message does. Decoding transcripts is the largest part of reading a
// task, and what PostgreSQL gives back always has the same shape — an array of objects
// with the Message fields, string values, escapes only where JSON needs them — so that
// shape is read directly, its strings sharing s where they need no unescaping. Anything
// else (another key, a null, a number, a malformed text) goes to json.Unmarshal, so
// the result and the errors are always json.Unmarshal's.
func decodeMessages(s string) ([]transcript.Message, error) {
	if msgs, ok := readMessages(s); ok {
		return msgs, nil
	}
	var msgs []transcript.Message
	err := json.Unmarshal([]byte(s), &msgs)
	return msgs, err
}

// readMessages is the fast path of decodeMessages; ok is false wherever it is unsure.
func readMessages(s string) (msgs []transcript.Message, ok bool) {
	d := jsonReader{s: s}
	if !d.consume('[') {
		return nil, false
	}
	msgs = []transcript.Message{}
	if d.consume(']') {
		return msgs, d.end()
	}
	for {
		var m transcript.Message
		if !d.object(func(key string) bool {
			switch key {
			case "role":
				v, ok := d.str()
				m.Role = transcript.Role(v)
				return ok
			case "content":
				return d.strInto(&m.Content)
			case "name":
				return d.strInto(&m.Name)
			case "tool_call_id":
				return d.strInto(&m.ToolCallID)
			case "tool_calls":
				calls, ok := d.toolCalls()
				m.ToolCalls = calls
				return ok
			}
			return false
		}) {
			return nil, false
		}
		msgs = append(msgs, m)
		if d.consume(']') {
			return msgs, d.end()
		}
		if !d.consume(',') {
			return nil, false
		}
	}
}

// jsonReader reads JSON text from s at i, skipping whitespace before each token.
type jsonReader struct {
	s string
	i int
}

func (d *jsonReader) skipSpace() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// consume reads the byte c if it comes next.
func (d *jsonReader) consume(c byte) bool {
	d.skipSpace()
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (d *jsonReader) end() bool {
	d.skipSpace()
	return d.i == len(d.s)
}

// object reads an object whose every key field reads, in its order. A key given twice
// makes it give up: json.Unmarshal would merge the two values.
func (d *jsonReader) object(field func(key string) bool) bool {
	if !d.consume('{') {
		return false
	}
	if d.consume('}') {
		return true
	}
	var seen [5]string
	n := 0
	for {
		key, ok := d.str()
		if !ok || n == len(seen) || slices.Contains(seen[:n], key) {
			return false
		}
		seen[n] = key
		n++
		if !d.consume(':') || !field(key) {
			return false
		}
		if d.consume('}') {
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}

func (d *jsonReader) strInto(dst *string) bool {
	v, ok := d.str()
	*dst = v
	return ok
}

// toolCalls reads an array of tool calls.
func (d *jsonReader) toolCalls() ([]transcript.ToolCall, bool) {
	if !d.consume('[') {
		return nil, false
	}
	calls := []transcript.ToolCall{}
	if d.consume(']') {
		return calls, true
	}
	for {
		var tc transcript.ToolCall
		if !d.object(func(key string) bool {
			switch key {
			case "id":
				return d.strInto(&tc.ID)
			case "name":
				return d.strInto(&tc.Name)
			case "arguments":
				return d.strInto(&tc.Arguments)
			}
			return false
		}) {
			return nil, false
		}
		calls = append(calls, tc)
		if d.consume(']') {
			return calls, true
		}
		if !d.consume(',') {
			return nil, false
		}
	}
}

// str reads a string: one without escapes is a substring of s, one with them is
// unescaped by transcript.UnquoteJSON. Control characters, invalid UTF-8 and lone
// surrogates, which json.Unmarshal treats in its own ways, make it give up.
func (d *jsonReader) str() (string, bool) {
	if !d.consume('"') {
		return "", false
	}
	start := d.i - 1
	for {
		j := strings.IndexByte(d.s[d.i:], '"')
		if j < 0 {
			return "", false
		}
		end := d.i + j
		escapes := 0 // the backslashes right before the quote: an odd number escape it
		for k := end - 1; k > start && d.s[k] == '\\'; k-- {
			escapes++
		}
		d.i = end + 1
		if escapes%2 == 0 {
			return transcript.UnquoteJSON(d.s[start:d.i])
		}
	}
}
