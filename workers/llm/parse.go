package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

// maxObjectStarts bounds how many "{" extractJSON tries before giving up on an answer.
const maxObjectStarts = 20

// parseAnswer turns a model's answer into a valid T, or says what is wrong with it in
// lines a repair call can send back. Steps: remove U+0000 (removeNULs); find the JSON
// object (extractJSON); note required properties it lacks (decoding would silently
// zero them); decode into T, dropping unknown properties; normalise; validate the
// normalised value against s. The Adjustments count the NULs removed and what
// normalisation dropped.
func parseAnswer[T any](answer string, s *schema, normalize func(T) (T, analyzer.Adjustments)) (T, analyzer.Adjustments, []string) {
	var v T
	var adj analyzer.Adjustments
	adj.RemovedNULs = strings.Count(answer, "\x00")
	answer = strings.ReplaceAll(answer, "\x00", "")
	raw, err := extractJSON(answer)
	if err != nil {
		return v, adj, []string{err.Error()}
	}
	raw, nuls, err := removeNULs(raw)
	if err != nil {
		return v, adj, []string{"the answer is not valid JSON: " + err.Error()}
	}
	adj.RemovedNULs += nuls
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return v, adj, []string{"the answer is not valid JSON: " + err.Error()}
	}
	problems := s.violations(inst, true)
	if err := json.Unmarshal(raw, &v); err != nil {
		if all := s.violations(inst, false); len(all) > 0 {
			return v, adj, all
		}
		return v, adj, []string{"the answer does not fit the schema: " + err.Error()}
	}
	v, dropped := normalize(v)
	adj = adj.Add(dropped)
	inst, err = instanceOf(v)
	if err != nil {
		return v, adj, []string{err.Error()}
	}
	problems = append(problems, s.violations(inst, false)...)
	if len(problems) > 0 {
		return v, adj, problems
	}
	return v, adj, nil
}

// removeNULs removes U+0000 from the strings and keys of the JSON value raw, and
// counts them: PostgreSQL stores NUL neither in text nor, written \u0000, in jsonb, and
// one in a model's answer must cost neither its unit nor the task. raw is returned as
// it is when it has none.
func removeNULs(raw json.RawMessage) (json.RawMessage, int, error) {
	if !bytes.Contains(raw, []byte(`\u0000`)) {
		return raw, 0, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw, 0, err
	}
	n := 0
	v = withoutNULs(v, &n)
	if n == 0 {
		return raw, 0, nil
	}
	out, err := json.Marshal(v)
	return out, n, err
}

// withoutNULs returns v with U+0000 removed from its strings and keys, adding their
// number to n.
func withoutNULs(v any, n *int) any {
	clean := func(s string) string {
		*n += strings.Count(s, "\x00")
		return strings.ReplaceAll(s, "\x00", "")
	}
	switch v := v.(type) {
	case string:
		return clean(v)
	case []any:
		for i, e := range v {
			v[i] = withoutNULs(e, n)
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[clean(k)] = withoutNULs(e, n)
		}
		return out
	}
	return v
}

// extractJSON finds the JSON object in a model's answer: the answer itself, or the
// first complete object inside a Markdown code fence or between sentences of prose.
// An object cut off at the end of the answer (a model out of output tokens) is
// reported as such rather than searched into.
func extractJSON(answer string) (json.RawMessage, error) {
	i := 0
	for range maxObjectStarts {
		j := strings.IndexByte(answer[i:], '{')
		if j < 0 {
			break
		}
		i += j
		var raw json.RawMessage
		err := json.NewDecoder(strings.NewReader(answer[i:])).Decode(&raw)
		switch {
		case err == nil:
			return raw, nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, errors.New("the JSON object is cut off before its end")
		}
		i++
	}
	return nil, errors.New("the answer contains no JSON object")
}

// instanceOf is v as JSON Schema validation sees the model's answer. Evidence's
// "verified" is the pipeline's own field, not part of the answer, so it is removed.
func instanceOf(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	dropKey(inst, "verified")
	return inst, nil
}

func dropKey(v any, key string) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, key)
		for _, e := range v {
			dropKey(e, key)
		}
	case []any:
		for _, e := range v {
			dropKey(e, key)
		}
	}
}
