package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/checkup-dev/checkup/db/locale"
)

// OpenTelemetry traces in the OTLP JSON encoding, as a collector's file exporter writes
// them (one ExportTraceServiceRequest object per line) or as one document:
// {"resourceSpans": [{"resource": ..., "scopeSpans": [{"scope": ..., "spans": [...]}]}]}.
// The request objects are streamed token by token and each span is decoded on its own,
// so a batch of any size is never held whole; MaxLineBytes bounds one span.

// otlpSpan is one span. Field names are the JSON encoding's lowerCamelCase; the
// protobuf names (snake_case), which the encoding also allows, are read too.
type otlpSpan struct {
	TraceID      string          `json:"traceId"`
	TraceIDSnake string          `json:"trace_id"`
	SpanID       string          `json:"spanId"`
	ParentSpanID string          `json:"parentSpanId"`
	ParentSnake  string          `json:"parent_span_id"`
	Name         string          `json:"name"`
	Start        json.RawMessage `json:"startTimeUnixNano"`
	StartSnake   json.RawMessage `json:"start_time_unix_nano"`
	Attributes   []otlpKV        `json:"attributes"`
	Events       []otlpEvent     `json:"events"`
}

// otlpEvent is a span event.
type otlpEvent struct {
	Time       json.RawMessage `json:"timeUnixNano"`
	Name       string          `json:"name"`
	Attributes []otlpKV        `json:"attributes"`
}

// otlpKV is one attribute.
type otlpKV struct {
	Key   string   `json:"key"`
	Value anyValue `json:"value"`
}

// anyValue is an OTLP AnyValue ({"stringValue": "x"}, {"intValue": "3"},
// {"arrayValue": {"values": [...]}}, {"kvlistValue": {"values": [...]}}, ...) turned
// into the plain JSON it stands for, so that a structured attribute reads like the
// JSON text other exporters put in a string attribute.
type anyValue struct{ json json.RawMessage }

// UnmarshalJSON converts the value; what it cannot read becomes null.
func (v *anyValue) UnmarshalJSON(b []byte) error {
	if s, ok := stringValue(b); ok {
		v.json = s // most attributes: taken as they are, not decoded again
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	out, ok := convertAny(dec, nil, 0)
	if !ok {
		out = []byte("null")
	}
	v.json = out
	return nil
}

// stringValue returns the JSON string of a {"stringValue": "..."} AnyValue as written,
// and false for any other shape. The decoder has validated b already.
func stringValue(b []byte) (json.RawMessage, bool) {
	const ws = " \t\r\n"
	b = bytes.TrimLeft(b, ws)
	if len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	b, ok := bytes.CutPrefix(bytes.TrimLeft(b[1:], ws), []byte(`"stringValue"`))
	if !ok {
		return nil, false
	}
	b, ok = bytes.CutPrefix(bytes.TrimLeft(b, ws), []byte(":"))
	if !ok {
		return nil, false
	}
	b = bytes.TrimRight(bytes.TrimLeft(b, ws), ws)
	if len(b) < 3 || b[len(b)-1] != '}' {
		return nil, false
	}
	str := bytes.TrimRight(b[:len(b)-1], ws)
	if len(str) < 2 || str[0] != '"' || str[len(str)-1] != '"' {
		return nil, false
	}
	for i := 1; i < len(str)-1; i++ { // one string: no unescaped quote before the last
		switch str[i] {
		case '\\':
			i++
		case '"':
			return nil, false
		}
	}
	return json.RawMessage(str), true
}

// convertAny reads one AnyValue object from dec, in one pass, and appends the plain
// JSON it stands for. Keys match in lowerCamelCase or snake_case.
func convertAny(dec *json.Decoder, out []byte, depth int) ([]byte, bool) {
	if depth > maxNesting {
		return out, false
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return out, false
	}
	wrote := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out, false
		}
		key, _ := tok.(string)
		if wrote {
			if dec.Decode(&skipValue{}) != nil {
				return out, false
			}
			continue
		}
		switch k := foldKey(key); k {
		case "stringvalue", "bytesvalue", "boolvalue", "intvalue", "doublevalue":
			tok, err := dec.Token()
			if err != nil {
				return out, false
			}
			out, wrote = appendScalar(out, k, tok), true
		case "arrayvalue", "kvlistvalue":
			var ok bool
			if out, ok = convertList(dec, out, k == "kvlistvalue", depth); !ok {
				return out, false
			}
			wrote = true
		default:
			if dec.Decode(&skipValue{}) != nil {
				return out, false
			}
		}
	}
	if _, err := dec.Token(); err != nil || !wrote {
		return out, false
	}
	return out, true
}

// appendScalar writes a scalar AnyValue: an intValue written as a string becomes a
// number, a doubleValue that is not a finite number becomes null.
func appendScalar(out []byte, key string, tok json.Token) []byte {
	switch x := tok.(type) {
	case string:
		switch key {
		case "intvalue":
			if _, err := strconv.ParseInt(x, 10, 64); err == nil {
				return append(out, x...)
			}
			return append(out, "null"...)
		case "doublevalue":
			return append(out, "null"...)
		}
		return appendJSONString(out, x)
	case json.Number:
		return append(out, x...)
	case bool:
		return strconv.AppendBool(out, x)
	}
	return append(out, "null"...)
}

// convertList reads the {"values": [...]} of an arrayValue (AnyValues) or of a
// kvlistValue ({"key", "value"} pairs).
func convertList(dec *json.Decoder, out []byte, kv bool, depth int) ([]byte, bool) {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return out, false
	}
	open, closing := byte('['), byte(']')
	if kv {
		open, closing = '{', '}'
	}
	out = append(out, open)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out, false
		}
		if key, _ := tok.(string); foldKey(key) != "values" {
			if dec.Decode(&skipValue{}) != nil {
				return out, false
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return out, false
		}
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out = append(out, ',')
			}
			var ok bool
			if kv {
				out, ok = convertPair(dec, out, depth)
			} else {
				out, ok = convertAny(dec, out, depth+1)
			}
			if !ok {
				return out, false
			}
		}
		if _, err := dec.Token(); err != nil {
			return out, false
		}
	}
	if _, err := dec.Token(); err != nil {
		return out, false
	}
	return append(out, closing), true
}

// convertPair reads one {"key": k, "value": AnyValue} of a kvlistValue.
func convertPair(dec *json.Decoder, out []byte, depth int) ([]byte, bool) {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return out, false
	}
	var key string
	var value []byte
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out, false
		}
		switch k, _ := tok.(string); k {
		case "key":
			tok, err := dec.Token()
			if err != nil {
				return out, false
			}
			key, _ = tok.(string)
		case "value":
			var ok bool
			if value, ok = convertAny(dec, nil, depth+1); !ok {
				value = nil
			}
		default:
			if dec.Decode(&skipValue{}) != nil {
				return out, false
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return out, false
	}
	if value == nil {
		value = []byte("null")
	}
	out = appendJSONString(out, key)
	out = append(out, ':')
	return append(out, value...), true
}

// appendJSONString writes s as a JSON string, escaping only what JSON requires.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// attributes maps attribute keys to their plain JSON values.
func attributes(kvs []otlpKV) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(kvs))
	for _, kv := range kvs {
		if len(kv.Value.json) > 0 {
			m[kv.Key] = kv.Value.json
		}
	}
	return m
}

// attrString is a string attribute's text ("" when absent or not a string).
func attrString(attrs map[string]json.RawMessage, key string) string {
	raw := attrs[key]
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	return jsonString(raw)
}

// unixNanos reads an OTLP timestamp: a uint64 as a JSON string or number.
func unixNanos(raw json.RawMessage) int64 {
	s := strings.Trim(string(bytes.TrimSpace(raw)), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// parseOTLP reads OTLP JSON trace requests, one after another.
func (p *parser) parseOTLP(r io.Reader, firstLine int, container string) error {
	d := p.newDoc(r, firstLine)
	o := &otlpReader{d: d, a: p.traces("otlp-" + container)}
	err := o.values()
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// otlpReader walks the nesting of an OTLP request down to its spans.
type otlpReader struct {
	d *doc
	a *assembler
}

func (o *otlpReader) values() error {
	for {
		line := o.d.line()
		tok, err := o.d.dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return o.d.fail(line, err)
		}
		if tok != json.Delim('{') {
			o.d.p.problem(lineLoc(line), "ingest.otlp_object")
			if err := o.d.skipRest(tok); err != nil {
				return err
			}
			continue
		}
		err = o.d.eachKey(func(key string) error {
			switch foldKey(key) {
			case "resourcespans":
				return o.d.eachElement(key, o.resourceSpans)
			case "resourcelogs", "resourcemetrics":
				return fileErr(ErrUnknownFormat, "ingest.otlp_not_traces", "Signal", strings.TrimPrefix(foldKey(key), "resource"))
			}
			return o.d.skipValue(key)
		})
		if err != nil {
			return err
		}
	}
}

func (o *otlpReader) resourceSpans() error {
	if ok, err := o.d.openObject(locale.Msg("ingest.resource_spans_entry")); !ok {
		return err
	}
	return o.d.eachKey(func(key string) error {
		switch foldKey(key) {
		case "scopespans", "instrumentationlibraryspans":
			return o.d.eachElement(key, o.scopeSpans)
		}
		return o.d.skipValue(key)
	})
}

func (o *otlpReader) scopeSpans() error {
	if ok, err := o.d.openObject(locale.Msg("ingest.scope_spans_entry")); !ok {
		return err
	}
	return o.d.eachKey(func(key string) error {
		if foldKey(key) == "spans" {
			return o.d.eachElement(key, o.span)
		}
		return o.d.skipValue(key)
	})
}

// span decodes one span and files its model call, if it has one.
func (o *otlpReader) span() error {
	start := o.d.start()
	line := o.d.g.lineAt(start)
	var sp otlpSpan
	if err := o.d.dec.Decode(&sp); err != nil {
		var typ *json.UnmarshalTypeError
		if !errors.As(err, &typ) {
			return o.d.fail(line, err)
		}
		o.d.p.jsonProblem(lineLoc(line), "", err)
		return nil
	}
	if o.d.dec.InputOffset()-start > int64(o.d.p.lim.MaxLineBytes) {
		return o.d.g.valueTooLarge(start)
	}
	return o.d.p.otelSpan(o.a, line, &sp)
}

// foldKey makes OTLP key matching ignore case and underscores (lowerCamelCase and
// snake_case are both valid).
func foldKey(k string) string { return strings.ReplaceAll(strings.ToLower(k), "_", "") }
