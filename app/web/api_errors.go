package web

import (
	"strings"

	"github.com/labstack/echo/v4"
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
	msg      string
	problems []string
	more     int
}

func (e *inputError) Error() string { return e.msg }

func newAPIError(msg string, in *inputError) apiError {
	body := apiError{Error: msg}
	if in != nil {
		body.Field, body.Problems, body.MoreProblems = in.field, in.problems, in.more
	}
	return body
}

// isAPI reports whether the request is for the API, whose answers are JSON.
func isAPI(c echo.Context) bool {
	return strings.HasPrefix(c.Request().URL.Path, "/api/")
}
