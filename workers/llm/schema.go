package llm

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// schemaFiles holds the JSON Schemas of the answers, kept next to the Go types they
// describe (analyzer.Diagnosis, analyzer.Action). They are written for strict mode:
// every object lists all its properties as required and forbids others, and nothing
// beyond what strict mode accepts is used. OpenAI's strict mode accepts minimum,
// maximum and maxItems (not for fine-tuned models); normalisation enforces them
// anyway, for json_object mode and for servers that ignore them, and cuts text
// lengths, which the schemas leave out.
//
//go:embed schemas/*.json
var schemaFiles embed.FS

// The schema names: the json_schema name sent to the model and the file under schemas/.
const (
	schemaDiagnosis = "diagnosis"
	schemaAction    = "action"
)

// schema is one answer shape: the JSON Schema sent to the model, compiled to check
// what comes back.
type schema struct {
	name     string
	raw      json.RawMessage // compact, as sent
	compiled *jsonschema.Schema
}

func loadSchema(name string) (*schema, error) {
	raw, err := schemaFiles.ReadFile("schemas/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("llm: schema %s: %w", name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("llm: schema %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(name+".json", doc); err != nil {
		return nil, fmt.Errorf("llm: schema %s: %w", name, err)
	}
	compiled, err := c.Compile(name + ".json")
	if err != nil {
		return nil, fmt.Errorf("llm: schema %s: %w", name, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("llm: schema %s: %w", name, err)
	}
	return &schema{name: name, raw: compact.Bytes(), compiled: compiled}, nil
}

// violations validates inst (a value as jsonschema.UnmarshalJSON returns it) and
// describes each broken rule in a line a model can act on, e.g.
// "at /findings/0/type: value must be one of 'RISK', 'ACTION'". With onlyMissing it
// reports missing required properties alone.
func (s *schema) violations(inst any, onlyMissing bool) []string {
	err := s.compiled.Validate(inst)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		switch u.Error.Kind.(type) {
		case *kind.Group:
			continue // it only says that something below it failed
		case *kind.Required:
		default:
			if onlyMissing {
				continue
			}
		}
		out = append(out, fmt.Sprintf("at %s: %s", cmp.Or(u.InstanceLocation, "/"), u.Error))
	}
	slices.Sort(out) // the same answer always gets the same repair prompt
	return out
}
