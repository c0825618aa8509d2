package ingest

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/checkup-dev/checkup/db/locale"
)

// jsonProblem records a failure of json.Unmarshal on one conversation as a sentence a
// person can act on. key names the value that was decoded when it was not a whole
// conversation ("messages" after that key in a JSON document), and is empty otherwise.
func (p *parser) jsonProblem(loc locale.Text, key string, err error) {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		p.problemText(loc, notJSON(err, nil, 0))
	case errors.As(err, &typ) && typ.Field == "" && key == "":
		p.problem(loc, "ingest.json_not_object", "Got", jsonType(typ.Value))
	case errors.As(err, &typ):
		field := typ.Field
		if key != "" {
			field = strings.TrimSuffix(key+"."+field, ".")
		}
		p.problem(loc, "ingest.json_wrong_type", "Field", quote(field), "Want", typeName(typ.Type), "Got", jsonType(typ.Value))
	default:
		p.problemText(loc, notJSON(err, nil, 0))
	}
}

// jsonType names a JSON value's type as encoding/json reports it ("string",
// "number", "number 1.5" for a number that does not fit).
func jsonType(value string) locale.Text {
	kind, literal, _ := strings.Cut(value, " ")
	return locale.Msg("json_type."+kind, "Value", literal)
}

// notJSON renders a JSON syntax error for a person who does not read Go: the character
// that broke the syntax, quoted, and where it is. line is the text that was decoded
// (nil when the error came from a stream, whose offsets do not locate a column) and lead
// the number of characters trimmed from its start.
func notJSON(err error, line []byte, lead int) locale.Text {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		return locale.Msg("ingest.not_json_detail", "Detail", err.Error())
	}
	msg := syntax.Error()
	switch msg {
	case "unexpected end of JSON input":
		return locale.Msg("ingest.not_json_ends")
	case "expected comma after array element":
		return locale.Msg("ingest.not_json_comma")
	case "expected colon after object key":
		return locale.Msg("ingest.not_json_colon")
	}
	char, context, ok := badChar(msg)
	if !ok {
		return locale.Msg("ingest.not_json_detail", "Detail", msg)
	}
	if context == "exceeded max depth" {
		return locale.Msg("ingest.json_too_deep")
	}
	var where []locale.Text
	switch {
	case strings.HasPrefix(context, "in string literal"):
		where = append(where, locale.Msg("ingest.in_string"))
	case strings.HasPrefix(context, "after top-level value"):
		where = append(where, locale.Msg("ingest.after_object"))
	}
	if off := int(syntax.Offset); off >= 1 && off <= len(line) {
		where = append(where, locale.Msg("ingest.at_column", "N", strconv.Itoa(lead+utf8.RuneCount(line[:off-1])+1)))
	}
	return locale.Msg("ingest.not_json_char", "Char", strconv.Quote(char), "Where", locale.Join("join.concat", where...))
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
func typeName(t reflect.Type) locale.Text {
	switch t.Kind() {
	case reflect.String:
		return locale.Msg("json_want.string")
	case reflect.Slice, reflect.Array:
		return locale.Msg("json_want.array")
	case reflect.Struct, reflect.Map:
		return locale.Msg("json_want.object")
	case reflect.Bool:
		return locale.Msg("json_want.bool")
	case reflect.Pointer:
		return typeName(t.Elem())
	}
	return locale.Msg("json_want.number")
}
