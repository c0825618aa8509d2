package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// fieldFileName is how the text check names an upload's file name.
const fieldFileName = "file name"

// textSentences are what the text check says, one sentence per problem; %s is the field.
var textSentences = struct{ badKey, notUTF8, nul, unshowable string }{
	badKey:     "A field's name is not text (not UTF-8, or with a NUL character); send the form from Checkup's page.",
	notUTF8:    "The %s field is not valid UTF-8 text; type it again or paste it as plain text.",
	nul:        "The %s field holds a NUL character, which text cannot hold; remove it.",
	unshowable: "The %s field has characters that cannot be shown (control characters or text-direction overrides); use letters, digits, spaces and punctuation.",
}

// textProblem is the one check of text a person sends, in any form or query field:
// "" when value is fine for the field, else the sentence that says what to change.
// Every field must be valid UTF-8 without NUL (PostgreSQL's text cannot hold it); a
// name, shown in lists and headings (a task's title, a token's name), also holds no
// control character and no direction override, which would change how the text
// around it reads.
func textProblem(field, value string, name bool) string {
	switch {
	case !utf8.ValidString(value):
		return fmt.Sprintf(textSentences.notUTF8, field)
	case strings.ContainsRune(value, 0):
		return fmt.Sprintf(textSentences.nul, field)
	case name && strings.ContainsFunc(value, unshowable):
		return fmt.Sprintf(textSentences.unshowable, field)
	}
	return ""
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
			return &inputError{status: http.StatusUnprocessableEntity, msg: textSentences.badKey}
		}
		for _, v := range vs {
			if msg := textProblem(key, v, false); msg != "" {
				return &inputError{status: http.StatusUnprocessableEntity, field: key, msg: msg}
			}
		}
	}
	return nil
}
