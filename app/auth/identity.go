package auth

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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

// emailVerified reports whether the provider vouches for the email address: an OpenID
// Connect issuer's email_verified claim, Google's verified_email, or GitHub's
// /user/emails list (its profile email may be unverified). A provider that says nothing
// has not verified it, so the address cannot pass the domain allow-list.
func (p Provider) emailVerified(ctx context.Context, u goth.User) (bool, error) {
	if p.emailsURL != "" {
		return githubVerified(ctx, p.client, p.emailsURL, u.AccessToken, u.Email)
	}
	for _, claim := range []string{"email_verified", "verified_email"} {
		switch v := u.RawData[claim].(type) {
		case bool:
			return v, nil
		case string: // some issuers send the claim as a string
			return strings.EqualFold(v, "true"), nil
		}
	}
	return false, nil
}

// githubVerified looks email up in the signed-in GitHub user's addresses
// (GET /user/emails, scope user:email) and reports whether GitHub verified it.
func githubVerified(ctx context.Context, client *http.Client, emailsURL, token, email string) (bool, error) {
	if email == "" {
		return false, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, emailsURL, nil)
	if err != nil {
		return false, fmt.Errorf("auth: github emails: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/vnd.github+json")
	resp, err := client.Do(req)
	if err != nil {
		return false, fmt.Errorf("auth: github emails: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("auth: github emails: %s", resp.Status)
	}
	var emails []struct {
		Email    string `json:"email"`
		Verified bool   `json:"verified"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&emails); err != nil {
		return false, fmt.Errorf("auth: github emails: %w", err)
	}
	for _, e := range emails {
		if strings.EqualFold(e.Email, email) {
			return e.Verified, nil
		}
	}
	return false, nil
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
