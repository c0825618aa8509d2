package ingest

import (
	"github.com/checkup-dev/checkup/db/locale"
	"strconv"

	"encoding/json"
	"regexp"
	"strings"

	"github.com/checkup-dev/checkup/db/transcript"
)

// unnamedTool names a call that an export left out but whose result it kept, when the
// result's row does not name the tool either.
const unnamedTool = "unnamed"

// csvCalls reads the structured calls of a row: a tool_calls column (a JSON array of
// OpenAI tool calls, or one call) or a function_call column (a JSON {"name",
// "arguments"} object, or an array of them). problem is set when a column holds
// something else.
func csvCalls(l csvLayout, cell func(column) (string, bool)) (calls []transcript.ToolCall, problem locale.Text) {
	if raw, _ := cell(colToolCalls); strings.TrimSpace(raw) != "" {
		calls, ok := jsonCalls(raw)
		if !ok {
			return nil, locale.Msg("ingest.csv_tool_calls", "Column", quote(l.title(colToolCalls)))
		}
		for i, c := range calls {
			if c.Name == "" {
				return nil, locale.Msg("ingest.csv_unnamed_call", "N", strconv.Itoa(i+1))
			}
		}
		return calls, locale.Text{}
	}
	if raw, _ := cell(colFunctionCall); strings.TrimSpace(raw) != "" {
		calls, ok := jsonCalls(raw)
		if !ok || len(calls) == 0 || calls[0].Name == "" {
			return nil, locale.Msg("ingest.csv_function_call", "Column", quote(l.title(colFunctionCall)))
		}
		return calls, locale.Text{}
	}
	return nil, locale.Text{}
}

// jsonCalls reads calls written as JSON: an OpenAI tool call ({"id", "function": {"name",
// "arguments"}}), a flat {"name", "arguments"} call, an array of either, or an object
// {"tool_calls": [...]}.
func jsonCalls(raw string) ([]transcript.ToolCall, bool) {
	v := strings.TrimSpace(raw)
	if v == "" || (v[0] != '{' && v[0] != '[') {
		return nil, false
	}
	var list []oaToolCall
	if v[0] == '{' {
		var wrapper struct {
			ToolCalls []oaToolCall `json:"tool_calls"`
		}
		if json.Unmarshal([]byte(v), &wrapper) == nil && len(wrapper.ToolCalls) > 0 {
			list = wrapper.ToolCalls
		} else {
			var one oaToolCall
			if json.Unmarshal([]byte(v), &one) != nil {
				return nil, false
			}
			list = []oaToolCall{one}
		}
	} else if json.Unmarshal([]byte(v), &list) != nil {
		return nil, false
	}
	calls, _ := convertCalls(list)
	return calls, true
}

// textCall matches a call written as text on a line of its own: name(arguments) or
// name {arguments}, with an optional lead-in such as "Tool call:", and the arguments a
// JSON object, array, or nothing.
var textCall = regexp.MustCompile(`^(?i:(?:tool[ _-]?call|function[ _-]?call|calling|call|action)\s*[:\-]?\s*)?([A-Za-z_][A-Za-z0-9_.\-]*)\s*(?:\((.*)\)|(\{.*\}))$`)

// textCalls finds the calls an assistant's text ends with, when an export wrote them
// as text: the whole text as a JSON call (or list of calls), or final lines each of the
// form name({"arg": 1}) or a JSON call object. rest is the text before them.
func textCalls(content string) (calls []transcript.ToolCall, rest string, ok bool) {
	if calls, ok := jsonCalls(content); ok && len(calls) > 0 && calls[0].Name != "" {
		return calls, "", true
	}
	lines := strings.Split(strings.TrimRight(content, " \t\r\n"), "\n")
	first := len(lines)
	for first > 0 {
		call, ok := lineCall(strings.TrimSpace(lines[first-1]))
		if !ok {
			break
		}
		calls = append([]transcript.ToolCall{call}, calls...)
		first--
	}
	if len(calls) == 0 {
		return nil, content, false
	}
	return calls, strings.TrimRight(strings.Join(lines[:first], "\n"), " \t\r\n"), true
}

// lineCall reads one line written as a call: name(arguments), or a JSON call object.
func lineCall(line string) (transcript.ToolCall, bool) {
	if strings.HasPrefix(line, "{") {
		calls, ok := jsonCalls(line)
		if !ok || len(calls) != 1 || calls[0].Name == "" {
			return transcript.ToolCall{}, false
		}
		return calls[0], true
	}
	m := textCall.FindStringSubmatch(line)
	if m == nil {
		return transcript.ToolCall{}, false
	}
	args := strings.TrimSpace(m[2] + m[3])
	if args != "" && (!json.Valid([]byte(args)) || (args[0] != '{' && args[0] != '[')) {
		return transcript.ToolCall{}, false
	}
	return transcript.ToolCall{Name: m[1], Arguments: args}, true
}

// csvToolCalls repairs the calls of an export that kept tool results as rows but not
// the calls that asked for them. A tool row that answers no call made before it (no
// tool_call_id, no call pending) is kept as the result of a call on the assistant
// message it follows: the calls written as text at the end of that message when there
// are, else a call named after the tool row (or "unnamed") with no arguments. A tool
// row that follows no assistant message is left as it is; the quality checks report it.
func (p *parser) csvToolCalls(loc locale.Text, msgs []transcript.Message) []transcript.Message {
	pending, last := 0, -1
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case transcript.RoleAssistant:
			last, pending = i, len(m.ToolCalls)
		case transcript.RoleTool:
			if m.ToolCallID != "" || pending > 0 {
				pending--
				continue
			}
			if last < 0 {
				continue
			}
			a := &msgs[last]
			if len(a.ToolCalls) == 0 {
				if calls, rest, ok := textCalls(a.Content); ok {
					a.ToolCalls, a.Content, pending = calls, rest, len(calls)-1
					p.csvRepairs.note(&p.csvRepairs.text, loc)
					continue
				}
			}
			name := strings.TrimSpace(m.Name)
			if name == "" {
				name = unnamedTool
			}
			a.ToolCalls = append(a.ToolCalls, transcript.ToolCall{Name: name})
			p.csvRepairs.note(&p.csvRepairs.unnamed, loc)
		default:
			last, pending = -1, 0
		}
	}
	return msgs
}

// csvRepairs counts the calls csvToolCalls restored, for one warning each kind.
type csvRepairs struct {
	text, unnamed int
	textLoc       locale.Text
	unnamedLoc    locale.Text
}

func (r *csvRepairs) note(n *int, loc locale.Text) {
	if *n == 0 {
		if n == &r.text {
			r.textLoc = loc
		} else {
			r.unnamedLoc = loc
		}
	}
	*n++
}

// warnCSVRepairs adds the warnings for restored calls.
func (p *parser) warnCSVRepairs() {
	r := p.csvRepairs
	if r.text > 0 {
		p.warn(r.textLoc, "ingest.csv_text_calls", "Count", r.text)
	}
	if r.unnamed > 0 {
		p.warn(r.unnamedLoc, "ingest.csv_unanswered", "Count", r.unnamed, "Tool", strconv.Quote(unnamedTool))
	}
}
