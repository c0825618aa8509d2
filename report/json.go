package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"reflect"
	"strings"
)

// WriteJSON writes r as report.json: indented, UTF-8, HTML characters not escaped
// (the file is data, never embedded in a page). The output is exactly what encoding
// r whole with encoding/json gives, but it is written field by field and the long
// lists element by element, so a streamed report (Stream) is never held whole.
func WriteJSON(w io.Writer, r Report) error {
	b := bufio.NewWriterSize(w, 32<<10)
	j := jsonWriter{w: b}
	j.raw("{\n")
	v := reflect.ValueOf(r)
	t := v.Type()
	first := true
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		if !first {
			j.raw(",\n")
		}
		first = false
		j.raw(`  "` + name + `": `)
		switch name {
		case "findings":
			writeList(&j, r.AllFindings(), r.Findings == nil && !r.streamed())
		case "conversations":
			writeList(&j, r.AllConversations(), r.Conversations == nil && !r.streamed())
		case "warnings":
			writeList(&j, r.AllWarnings(), r.Warnings == nil && !r.streamed())
		default:
			j.value(v.Field(i).Interface(), "  ")
		}
	}
	j.raw("\n}\n")
	if j.err == nil {
		j.err = b.Flush()
	}
	if j.err != nil {
		return fmt.Errorf("report: json: %w", j.err)
	}
	return nil
}

// writeList writes an array of values from items as a field of the top level; null
// when nilSlice, as encoding/json writes a nil slice.
func writeList[T any](j *jsonWriter, items iter.Seq2[T, error], nilSlice bool) {
	if nilSlice {
		j.raw("null")
		return
	}
	n := 0
	for item, err := range items {
		if err != nil {
			j.fail(err)
			return
		}
		if n == 0 {
			j.raw("[\n    ")
		} else {
			j.raw(",\n    ")
		}
		j.value(item, "    ")
		n++
		if j.err != nil {
			return
		}
	}
	if n == 0 {
		j.raw("[]")
		return
	}
	j.raw("\n  ]")
}

// jsonWriter writes report.json and keeps its first error.
type jsonWriter struct {
	w   *bufio.Writer
	buf bytes.Buffer
	err error
}

func (j *jsonWriter) raw(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

func (j *jsonWriter) fail(err error) {
	if j.err == nil {
		j.err = err
	}
}

// value writes v as encoding/json indents it at the depth prefix stands for.
func (j *jsonWriter) value(v any, prefix string) {
	if j.err != nil {
		return
	}
	j.buf.Reset()
	enc := json.NewEncoder(&j.buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		j.fail(err)
		return
	}
	_, j.err = j.w.Write(bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")))
}
