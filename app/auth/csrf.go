package auth

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/db/locale"
)

// CSRF tokens are bound to the session: the token is an HMAC of the session's cookie
// token, so it needs no storage and no server secret shared between replicas, changes
// with every sign-in, and cannot be made for a visitor's session by someone who cannot
// read its cookie. Someone who could set cookies could plant a session of their own,
// whose token they know: over https both cookies are __Host- cookies (Auth.cookieName),
// which only this host can set. A visitor who is not signed in gets a pre-session
// cookie on the sign-in page, whose HMAC guards the local sign-in form the same way.
//
// The token travels as the X-CSRF-Token header (htmx: hx-headers on <body>) or as the
// _csrf form field of a plain form. In a multipart form _csrf must be the first field,
// so the check reads only that field and the handler still streams the upload.

// CSRFHeader and CSRFField carry the token.
const (
	CSRFHeader = "X-CSRF-Token"
	CSRFField  = "_csrf"
)

// preSessionCookie keys the CSRF token of visitors who are not signed in.
const preSessionCookie = "checkup_presession"

// errCSRF is the refusal of a state-changing request without a valid token.
var errCSRF = echo.NewHTTPError(http.StatusForbidden, locale.Msg("errors.csrf"))

// CSRFTokenFor returns the CSRF token that goes with a session (or pre-session) cookie
// token.
func CSRFTokenFor(cookieToken string) string {
	mac := hmac.New(sha256.New, []byte(cookieToken))
	mac.Write([]byte("checkup csrf v1"))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// ensurePreSession gives a visitor without a session a pre-session cookie, so the
// sign-in page's form carries a token.
func (a *Auth) ensurePreSession(c echo.Context) {
	if CSRFToken(c) != "" {
		return
	}
	token := newToken()
	a.setCookie(c, a.cookieName(preSessionCookie), token, "/", 0)
	c.Set(csrfKey, CSRFTokenFor(token))
}

// validCSRF reports whether a state-changing request carries the request's token.
func validCSRF(c echo.Context) bool {
	want := CSRFToken(c)
	if want == "" {
		return false
	}
	got := c.Request().Header.Get(CSRFHeader)
	if got == "" {
		got = formToken(c.Request())
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// formToken reads the _csrf field of a form body.
func formToken(r *http.Request) string {
	mediaType, params, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	switch mediaType {
	case echo.MIMEApplicationForm:
		return r.PostFormValue(CSRFField)
	case echo.MIMEMultipartForm:
		return firstPartToken(r, params["boundary"])
	}
	return ""
}

// firstPartLimit is how far into a multipart body the _csrf field is looked for.
const firstPartLimit = 16 << 10

// firstPartToken reads the first part of a multipart body when it is the _csrf field,
// then puts back every byte it read, so the handler sees the body untouched.
func firstPartToken(r *http.Request, boundary string) string {
	if boundary == "" || r.Body == nil {
		return ""
	}
	var consumed bytes.Buffer
	body := r.Body
	defer func() { r.Body = readCloser{io.MultiReader(&consumed, body), body} }()
	// The field comes first, so it is within the first few hundred bytes; the limit
	// keeps a body with an endless preamble from being buffered.
	head := io.LimitReader(body, firstPartLimit)
	part, err := multipart.NewReader(io.TeeReader(head, &consumed), boundary).NextPart()
	if err != nil || part.FormName() != CSRFField {
		return ""
	}
	value, err := io.ReadAll(io.LimitReader(part, 256))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(value))
}

// readCloser reads from the restored body and closes the original one.
type readCloser struct {
	io.Reader
	io.Closer
}
