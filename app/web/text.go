package web

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
)

// fieldFileName is how the text check names an upload's file name.
const fieldFileName = "file name"

// textProblem is the one check of text a person sends, in any form or query field:
// zero when value is fine for the field, else the sentence that says what to change.
// Every field must be valid UTF-8 without NUL (PostgreSQL's text cannot hold it); a
// name, shown in lists and headings (a task's title, a token's name), also holds no
// control character and no direction override, which would change how the text
// around it reads.
func textProblem(field, value string, name bool) locale.Text {
	switch {
	case !utf8.ValidString(value):
		return locale.Msg("text_refused.not_utf8", "Field", fieldName(field))
	case strings.ContainsRune(value, 0):
		return locale.Msg("text_refused.nul", "Field", fieldName(field))
	case name && strings.ContainsFunc(value, unshowable):
		return locale.Msg("text_refused.unshowable", "Field", fieldName(field))
	}
	return locale.Text{}
}

// fieldName names a form field in a sentence: the catalog's word for the fields of
// Checkup's forms, the field's own name for any other.
func fieldName(field string) locale.Text {
	switch field {
	case fieldTitle, fieldAgent, fieldFile, fieldFileName, "name", "reason", "q":
		return locale.Msg("field." + strings.ReplaceAll(field, " ", "_"))
	}
	return locale.Lit(field)
}

// unshowable reports a control character or a bidirectional embedding, override or
// isolate, none of which a name shown in a table may hold.
func unshowable(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// textFields refuses, with 422 and textProblem's sentence, a request whose query or
// form has a field (or a field's name) that is not text: every route gets the check
// before its handler runs. The handlers of names check them as names, to answer in
// their form. An upload's form is streamed, not parsed here: its title and file name
// are checked as they are read (uploadForm).
func textFields() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := checkValues(c.QueryParams()); err != nil {
				return err
			}
			if r := c.Request(); r.Body != nil && r.Body != http.NoBody && !isUpload(c) {
				form, err := c.FormParams()
				if err == nil {
					if err := checkValues(form); err != nil {
						return err
					}
				}
			}
			return next(c)
		}
	}
}

func checkValues(values url.Values) error {
	for key, vs := range values {
		if !utf8.ValidString(key) || strings.ContainsRune(key, 0) {
			return &inputError{status: http.StatusUnprocessableEntity, msg: locale.Msg("text_refused.bad_key")}
		}
		for _, v := range vs {
			if msg := textProblem(key, v, false); !msg.IsZero() {
				return &inputError{status: http.StatusUnprocessableEntity, field: key, msg: msg}
			}
		}
	}
	return nil
}
