package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxObjectStarts bounds how many "{" extractJSON tries before giving up on an answer.
const maxObjectStarts = 20

// parseAnswer turns a model's answer into a valid T, or says what is wrong with it in
// lines a repair call can send back. Steps: find the JSON object (extractJSON); note
// required properties it lacks (decoding would silently zero them); decode into T,
// dropping unknown properties; normalise; validate the normalised value against s.
func parseAnswer[T any](answer string, s *schema, normalize func(T) T) (T, []string) {
	var v T
	raw, err := extractJSON(answer)
	if err != nil {
		return v, []string{err.Error()}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return v, []string{"the answer is not valid JSON: " + err.Error()}
	}
	problems := s.violations(inst, true)
	if err := json.Unmarshal(raw, &v); err != nil {
		if all := s.violations(inst, false); len(all) > 0 {
			return v, all
		}
		return v, []string{"the answer does not fit the schema: " + err.Error()}
	}
	v = normalize(v)
	inst, err = instanceOf(v)
	if err != nil {
		return v, []string{err.Error()}
	}
	problems = append(problems, s.violations(inst, false)...)
	if len(problems) > 0 {
		return v, problems
	}
	return v, nil
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
