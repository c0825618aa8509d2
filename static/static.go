// Package static embeds the stylesheet and the vendored htmx served under /static/.
package static

import "embed"

// FS holds css/ and js/.
//
//go:embed css js
var FS embed.FS
