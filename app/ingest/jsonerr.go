package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonProblem records a failure of json.Unmarshal on one conversation as a sentence a
// person can act on. key names the value that was decoded when it was not a whole
// conversation ("messages" after that key in a JSON document), and is empty otherwise.
func (p *parser) jsonProblem(loc, key string, err error) {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		p.problem(loc, "%s", notJSON(err, nil, 0))
	case errors.As(err, &typ) && typ.Field == "" && key == "":
		p.problem(loc, "expected a JSON object for the conversation, not %s", typ.Value)
	case errors.As(err, &typ):
		field := typ.Field
		if key != "" {
			field = strings.TrimSuffix(key+"."+field, ".")
		}
		p.problem(loc, "%s must be %s, not %s", quote(field), typeName(typ.Type), typ.Value)
	default:
		p.problem(loc, "%s", notJSON(err, nil, 0))
	}
}

// notJSON renders a JSON syntax error for a person who does not read Go: the character
// that broke the syntax, quoted, and where it is. line is the text that was decoded
// (nil when the error came from a stream, whose offsets do not locate a column) and lead
// the number of characters trimmed from its start.
func notJSON(err error, line []byte, lead int) string {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		return "not valid JSON (" + err.Error() + ")"
	}
	msg := syntax.Error()
	switch msg {
	case "unexpected end of JSON input":
		return "not valid JSON: the line ends before the JSON object is complete"
	case "expected comma after array element":
		return "not valid JSON: a comma is missing between two entries"
	case "expected colon after object key":
		return "not valid JSON: a colon is missing after a key"
	}
	char, context, ok := badChar(msg)
	if !ok {
		return "not valid JSON (" + msg + ")"
	}
	if context == "exceeded max depth" {
		return "the JSON nests arrays and objects more than 10,000 levels deep, which no conversation needs"
	}
	where := ""
	switch {
	case strings.HasPrefix(context, "in string literal"):
		where = " inside a quoted text"
	case strings.HasPrefix(context, "after top-level value"):
		where = " after the end of the JSON object"
	}
	if off := int(syntax.Offset); off >= 1 && off <= len(line) {
		where += fmt.Sprintf(" at column %d", lead+utf8.RuneCount(line[:off-1])+1)
	}
	return fmt.Sprintf("not valid JSON (unexpected %s%s)", strconv.Quote(char), where)
}

// badChar takes apart encoding/json's "invalid character 'x' <context>" into the
// character and the context.
func badChar(msg string) (char, context string, ok bool) {
	rest, found := strings.CutPrefix(msg, "invalid character ")
	if !found || len(rest) < 3 {
		return "", "", false
	}
	end := strings.Index(rest[2:], "'")
	if end < 0 {
		return "", "", false
	}
	lit := rest[:end+3]
	char, err := strconv.Unquote(lit)
	if err != nil {
		return "", "", false
	}
	return char, strings.TrimSpace(rest[end+3:]), true
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
