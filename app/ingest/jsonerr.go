package ingest

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
)

// jsonProblem records a failure of json.Unmarshal on one conversation as a sentence a
// person can act on. key names the value that was decoded when it was not a whole
// conversation ("messages" after that key in a JSON document), and is empty otherwise.
func (p *parser) jsonProblem(loc, key string, err error) {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		p.problem(loc, "invalid JSON: %v", err)
	case errors.As(err, &typ) && typ.Field == "" && key == "":
		p.problem(loc, "expected a JSON object for the conversation, not %s", typ.Value)
	case errors.As(err, &typ):
		field := typ.Field
		if key != "" {
			field = strings.TrimSuffix(key+"."+field, ".")
		}
		p.problem(loc, "%s must be %s, not %s", quote(field), typeName(typ.Type), typ.Value)
	default:
		p.problem(loc, "invalid JSON: %v", err)
	}
}

// typeName names a Go type the way the JSON it decodes from is described.
func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return typeName(t.Elem())
	}
	return "a number"
}
