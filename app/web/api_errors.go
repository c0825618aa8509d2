package web

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
)

// apiError is the body of every error the API answers with: a sentence for people,
// and for a refused input the field it was in and, for a refused file, its problems
// by line.
type apiError struct {
	Error        string   `json:"error"`
	Field        string   `json:"field,omitempty"`
	Problems     []string `json:"problems,omitempty"`
	MoreProblems int      `json:"more_problems,omitempty"`
}

// inputError is a request refused for one of its inputs: a query parameter or a form
// field, named so a script can tell which.
type inputError struct {
	status   int
	field    string
	msg      locale.Text
	problems []locale.Text
	more     int
}

func (e *inputError) Error() string { return "web: input refused " + e.msg.String() }

// newAPIError is the body of an API error: msg, and the refused input's field and
// problems written by l.
func newAPIError(l *locale.Localizer, msg string, in *inputError) apiError {
	body := apiError{Error: msg}
	if in != nil {
		body.Field, body.MoreProblems = in.field, in.more
		for _, p := range in.problems {
			body.Problems = append(body.Problems, l.Text(p))
		}
	}
	return body
}

// isAPI reports whether the request is for the API, whose answers are JSON.
func isAPI(c echo.Context) bool {
	return strings.HasPrefix(c.Request().URL.Path, "/api/")
}
