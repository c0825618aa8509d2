package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes r as report.json: indented, UTF-8, HTML characters not escaped
// (the file is data, never embedded in a page).
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("report: json: %w", err)
	}
	return nil
}
