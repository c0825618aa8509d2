package layout

import "encoding/json"

// csrfHeaders is the hx-headers value that makes htmx send the CSRF token.
func csrfHeaders(token string) string {
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
	return string(b)
}
