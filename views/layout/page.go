// Package layout holds the frame every page is rendered in.
package layout

// Page is what the frame needs to know about the request.
type Page struct {
	Title       string
	UserName    string // empty when nobody is signed in
	UserEmail   string
	LocalSignIn bool   // shows the banner that the local sign-in is on
	Flash       string // a one-time message from the previous request
	FlashError  bool
	CSRFToken   string
}
