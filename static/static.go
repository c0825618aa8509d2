// Package static embeds what is served under /static/: the stylesheet, the vendored
// htmx, the icon (also at /favicon.ico, where browsers and feed readers look for it)
// and the sample export the upload page offers (testdata/airline-100.jsonl,
// gzip-compressed, with its license).
package static

import "embed"

// FS holds css/, js/, sample/ and the icon as SVG and ICO.
//
//go:embed css js sample favicon.svg favicon.ico
var FS embed.FS
