package ingest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// traceShape is which trace export a JSON record belongs to.
type traceShape int

const (
	noTrace traceShape = iota
	langfuseTrace
	langfuseObservation
	langfuseScore
	langsmithRun
)

// traceShape tells a trace export's record from a conversation by its keys: a LangSmith
// run has "run_type"; a Langfuse observation a trace id and an observation type or start
// time; a Langfuse score a trace id, a name and a value; a Langfuse trace an id and a
// session, its observations or scores, or a timestamp with an input or output.
func (e *element) traceShape() traceShape {
	if e.RunType != "" {
		return langsmithRun
	}
	if e.traceID() != "" {
		switch {
		case isObservationType(e.Type), len(e.StartTime) > 0, len(e.StartSnake) > 0:
			return langfuseObservation
		case e.DataType != "", e.DataSnake != "", e.Name != "" && e.Value.set:
			return langfuseScore
		}
	}
	if e.ID.set && e.Messages == nil && e.Conversations == nil &&
		(e.sessionID() != "" || e.Observations != nil || e.Scores != nil ||
			(len(e.Timestamp) > 0 && (len(e.Input) > 0 || len(e.Output) > 0))) {
		return langfuseTrace
	}
	return noTrace
}

// isObservationType reports whether t is one of Langfuse's observation types.
func isObservationType(t string) bool {
	switch strings.ToUpper(t) {
	case "GENERATION", "SPAN", "EVENT", "AGENT", "TOOL", "CHAIN", "RETRIEVER", "EVALUATOR", "EMBEDDING", "GUARDRAIL":
		return true
	}
	return false
}

func (e *element) traceID() string {
	if e.TraceID.text != "" {
		return e.TraceID.text
	}
	return e.TraceIDSnake.text
}

func (e *element) sessionID() string {
	if e.SessionID.text != "" {
		return e.SessionID.text
	}
	return e.SessionSnake.text
}

// traceItem maps one record of a Langfuse or LangSmith export to model calls.
func (p *parser) traceItem(loc locale.Text, container string, shape traceShape, e *element) error {
	format := "langfuse-" + container
	if shape == langsmithRun {
		format = "langsmith-" + container
	}
	p.traces(format).records++
	switch shape {
	case langsmithRun:
		return p.langsmithRun(loc, container, e)
	case langfuseObservation:
		return p.langfuseObservation(loc, container, e)
	case langfuseScore:
		return p.langfuseScore(loc, container, e)
	}
	return p.langfuseTrace(loc, container, e)
}

// langfuseTrace reads a Langfuse trace: its input and output (read only when no
// generation of the trace is in the file), metadata and session, then the observations
// and scores it holds.
func (p *parser) langfuseTrace(loc locale.Text, container string, e *element) error {
	a := p.traces("langfuse-" + container)
	id, session := e.ID.text, e.sessionID()
	r := newMessageReader(p, loc)
	c := llmCall{kind: callTop, line: locLine(loc), at: timeOf(e.Timestamp), metadata: jsonObject(e.Metadata)}
	c.input, _ = r.messagesOf(e.Input, transcript.RoleUser)
	c.output, _ = r.messagesOf(e.Output, transcript.RoleAssistant)
	if len(c.input)+len(c.output) == 0 {
		c.kind = callMeta
	}
	if err := a.add(id, session, &c); err != nil {
		return err
	}
	for _, list := range [][]json.RawMessage{e.Observations, e.Scores} {
		for _, raw := range list {
			if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' {
				continue // an id
			}
			var inner element
			if err := json.Unmarshal(raw, &inner); err != nil {
				p.jsonProblem(loc, "", err)
				continue
			}
			if inner.traceID() == "" {
				inner.TraceID = idText{text: id, set: true, ok: true}
			}
			if inner.sessionID() == "" {
				inner.SessionID = idText{text: session, set: true, ok: true}
			}
			shape := inner.traceShape()
			if shape != langfuseObservation && shape != langfuseScore {
				continue
			}
			if err := p.traceItem(loc, container, shape, &inner); err != nil {
				return err
			}
		}
	}
	return nil
}

// langfuseObservation reads one observation. A generation is a model call: its input
// (the messages sent, in whichever SDK's shape) and output. Other observations only
// tie their trace to its session.
func (p *parser) langfuseObservation(loc locale.Text, container string, e *element) error {
	a := p.traces("langfuse-" + container)
	start := e.StartTime
	if len(start) == 0 {
		start = e.StartSnake
	}
	c := llmCall{kind: callMeta, line: locLine(loc), at: timeOf(start)}
	if strings.EqualFold(e.Type, "GENERATION") {
		r := newMessageReader(p, loc)
		c.kind, c.metadata = callModel, jsonObject(e.Metadata)
		c.input, _ = r.messagesOf(e.Input, transcript.RoleUser)
		c.output, _ = r.messagesOf(e.Output, transcript.RoleAssistant)
	}
	return a.add(e.traceID(), e.sessionID(), &c)
}

// langfuseScore reads a score; one named like an outcome field (success, csat, thumbs)
// labels its trace's conversation ("scores.csat"). A categorical score gives its label
// text, the others their value.
func (p *parser) langfuseScore(loc locale.Text, container string, e *element) error {
	a := p.traces("langfuse-" + container)
	c := llmCall{kind: callMeta, line: locLine(loc)}
	if _, _, ok := labelRank(e.Name); ok {
		v, present := labelValue{}, false
		switch {
		case e.StringValue != nil && strings.TrimSpace(*e.StringValue) != "":
			v, present = labelValue{text: cutText(*e.StringValue)}, true
		case e.StringSnake != nil && strings.TrimSpace(*e.StringSnake) != "":
			v, present = labelValue{text: cutText(*e.StringSnake)}, true
		case e.Value.raw != nil:
			v, present = jsonLabelValue(e.Value.raw)
		case e.Value.set:
			v, present = labelValue{text: cutText(e.Value.text)}, strings.TrimSpace(e.Value.text) != ""
		}
		if present {
			c.labels = []labelCandidate{{field: "scores." + e.Name, key: e.Name, value: v}}
		}
	}
	trace := e.traceID()
	if trace == "" {
		trace = "\x00session " + e.sessionID()
	}
	return a.add(trace, e.sessionID(), &c)
}

// langsmithRun reads one LangSmith run. An llm run is a model call: its inputs
// ({"messages": [[...]]} from LangChain, {"messages": [...]} from the OpenAI wrapper)
// and outputs ({"generations": [[...]]}, {"choices": [...]}). A root run is read only
// when its trace has no llm run. The conversation is the thread named in the run's
// metadata (thread_id, session_id or conversation_id), else the trace; outcome fields
// are read from the metadata and from feedback_stats (their average).
func (p *parser) langsmithRun(loc locale.Text, container string, e *element) error {
	a := p.traces("langsmith-" + container)
	meta := langsmithMetadata(e.Extra)
	trace := e.traceID()
	if trace == "" {
		trace = e.ID.text
	}
	root := e.ParentRunID == nil || *e.ParentRunID == ""
	c := llmCall{kind: callMeta, line: locLine(loc), at: timeOf(e.StartSnake), labels: feedbackLabels(e.FeedbackStats)}
	if len(c.labels) == 0 {
		c.labels = nil
	}
	switch {
	case strings.EqualFold(e.RunType, "llm"):
		c.kind = callModel
	case root:
		c.kind = callTop
	}
	if c.kind != callMeta {
		r := newMessageReader(p, loc)
		c.metadata = meta
		c.input, _ = r.messagesOf(e.Inputs, transcript.RoleUser)
		c.output, _ = r.messagesOf(e.Outputs, transcript.RoleAssistant)
	}
	return a.add(trace, threadID(meta), &c)
}

// langsmithMetadata returns extra.metadata, the metadata a LangSmith run was traced with.
func langsmithMetadata(extra json.RawMessage) json.RawMessage {
	var x struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	if len(extra) == 0 || json.Unmarshal(extra, &x) != nil {
		return nil
	}
	return jsonObject(x.Metadata)
}

// threadID is the conversation a LangSmith run belongs to, from the metadata keys
// LangSmith groups threads by.
func threadID(meta json.RawMessage) string {
	if len(meta) == 0 {
		return ""
	}
	var keys struct {
		ThreadID       idText `json:"thread_id"`
		SessionID      idText `json:"session_id"`
		ConversationID idText `json:"conversation_id"`
	}
	if json.Unmarshal(meta, &keys) != nil {
		return ""
	}
	for _, id := range []idText{keys.ThreadID, keys.SessionID, keys.ConversationID} {
		if id.text != "" {
			return id.text
		}
	}
	return ""
}

// feedbackLabels reads LangSmith's feedback_stats ({"thumbs": {"n": 3, "avg": 1}}):
// a key named like an outcome field gives its average as the value. A vote's average
// (thumbs, a yes/no flag) is a mean of scores of 0 and 1, as LangSmith records them,
// or of -1 and 1: above 0.5 is mostly up in both, 0 and below mostly (or all) down,
// and between the two it could be either, so it is read as neither.
func feedbackLabels(raw json.RawMessage) []labelCandidate {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var stats map[string]struct {
		Avg *float64 `json:"avg"`
	}
	if json.Unmarshal(raw, &stats) != nil {
		return nil
	}
	var out []labelCandidate
	for key, s := range stats {
		_, group, ok := labelRank(key)
		if !ok || s.Avg == nil {
			continue
		}
		v := labelValue{kind: valueNumber, num: *s.Avg}
		if vote := group == groupReaction || group == groupFlag; vote && *s.Avg > 0.5 {
			v = labelValue{kind: valueBool, flag: true}
		} else if vote && *s.Avg <= 0 {
			v = labelValue{kind: valueBool, flag: false}
		}
		out = append(out, labelCandidate{field: "feedback_stats." + key, key: key, value: v})
	}
	return out
}

// jsonObject returns raw when it is a JSON object, or the object a JSON string holds;
// nil otherwise.
func jsonObject(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		s := strings.TrimSpace(jsonString(raw))
		if strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
			return json.RawMessage(s)
		}
		return nil
	}
	if raw[0] == '{' && !bytes.Equal(raw, []byte("{}")) {
		return raw
	}
	return nil
}

// timeOf reads a record's start time: an RFC 3339 or similar text, or a Unix timestamp
// (a number or numeric text, unit told by its size). 0 when absent or unreadable.
func timeOf(raw json.RawMessage) int64 {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == 'n' {
		return 0
	}
	s := string(raw)
	if raw[0] == '"' {
		s = jsonString(raw)
	}
	t, ok := parseTime(s)
	if !ok {
		return 0
	}
	return timeKey(t)
}

// locLine is the line number of a lineLoc location.
func locLine(loc locale.Text) int {
	n, _ := strconv.Atoi(loc.Arg("N"))
	return n
}
