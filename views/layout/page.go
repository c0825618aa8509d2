// Package layout holds the frame every page is rendered in.
package layout

// Page is what the frame needs to know about the request. The language it is written
// in is the Localizer in the request's context (locale.From).
type Page struct {
	Title       string
	UserName    string // empty when nobody is signed in
	UserEmail   string
	LocalSignIn bool   // shows the banner that the local sign-in is on
	Flash       string // a one-time message from the previous request
	FlashError  bool
	CSRFToken   string
	// Path is the page's address, where the language switch comes back to; empty for
	// a page that answers a form, whose switch goes to the home page.
	Path string
}
