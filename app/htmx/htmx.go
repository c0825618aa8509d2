// Package htmx names the htmx request and response headers the server reads and sets,
// in one place for the web layer and the sign-in guard.
package htmx

import "net/http"

// Request headers htmx sends.
const (
	HeaderRequest    = "HX-Request"     // "true" on every request htmx makes
	HeaderBoosted    = "HX-Boosted"     // "true" when a boosted link or form made it
	HeaderCurrentURL = "HX-Current-URL" // the page the request came from
)

// Response headers htmx obeys.
const (
	HeaderRedirect = "HX-Redirect" // load this address as a whole page
	HeaderRetarget = "HX-Retarget" // swap into this element instead of the request's target
	HeaderReswap   = "HX-Reswap"   // swap this way instead of the request's
)

// IsRequest reports whether htmx made r.
func IsRequest(r *http.Request) bool { return r.Header.Get(HeaderRequest) == "true" }

// IsFragment reports whether r asks for a fragment: made by htmx, but not boosted
// (a boosted request wants the whole page).
func IsFragment(r *http.Request) bool { return IsRequest(r) && r.Header.Get(HeaderBoosted) != "true" }
