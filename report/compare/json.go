package compare

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes c as compare.json: indented, UTF-8, HTML characters not escaped
// (the file is data, never embedded in a page), as report.json is written.
func (c Comparison) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("compare: json: %w", err)
	}
	return nil
}
