package auth

import (
	"cmp"
	"slices"
	"strings"

	"github.com/markbates/goth"

	"github.com/checkup-dev/checkup/db/store"
)

// identityFrom turns what a provider says into the identity stored in app_user; ok is
// false when the provider gave no stable user id.
func identityFrom(u goth.User) (store.Identity, bool) {
	if u.UserID == "" {
		return store.Identity{}, false
	}
	email := strings.TrimSpace(u.Email)
	name := cmp.Or(strings.TrimSpace(u.Name), strings.TrimSpace(u.FirstName+" "+u.LastName),
		strings.TrimSpace(u.NickName), localPart(email), u.UserID)
	return store.Identity{Provider: u.Provider, ProviderUserID: u.UserID, Email: email, Name: name, AvatarURL: u.AvatarURL}, true
}

// emailVerified is false only when the provider says the email is unverified
// (OpenID Connect email_verified, Google verified_email): an unverified address must
// not pass the domain allow-list.
func emailVerified(u goth.User) bool {
	for _, claim := range []string{"email_verified", "verified_email"} {
		if v, ok := u.RawData[claim].(bool); ok && !v {
			return false
		}
	}
	return true
}

// admits reports whether AUTH_ALLOWED_EMAIL_DOMAINS lets email sign in: any email when
// the list is empty, otherwise a verified address whose domain is on it exactly
// (sub-domains are not included).
func (a *Auth) admits(email string, verified bool) bool {
	if len(a.cfg.AllowedDomains) == 0 {
		return true
	}
	at := strings.LastIndexByte(email, '@')
	if !verified || at < 0 {
		return false
	}
	return slices.Contains(a.cfg.AllowedDomains, strings.ToLower(email[at+1:]))
}

func localPart(email string) string {
	if at := strings.LastIndexByte(email, '@'); at > 0 {
		return email[:at]
	}
	return ""
}
