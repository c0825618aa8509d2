// Package static embeds what is served under /static/: the stylesheet, the vendored
// htmx and the icon (also at /favicon.ico, where browsers and feed readers look for it).
package static

import "embed"

// FS holds css/, js/ and the icon as SVG and ICO.
//
//go:embed css js favicon.svg favicon.ico
var FS embed.FS
