package web

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIDoc is the API's OpenAPI 3.1 document; api_openapi_test.go checks the real
// answers of every route against it.
//
//go:embed openapi.json
var openAPIDoc []byte

// apiOpenAPI is GET /api/v1/openapi.json, open to anyone: it describes the API, not
// anyone's data.
func (s *Server) apiOpenAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDoc)
}
