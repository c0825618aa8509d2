package auth_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
)

// unverifiedUser is an identity whose ID token says email_verified: false (MockUser
// leaves a false claim out).
type unverifiedUser struct{ *mockoidc.MockUser }

func (u unverifiedUser) Claims(_ []string, claims *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	return struct {
		*mockoidc.IDTokenClaims
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
	}{claims, u.Email, false}, nil
}

func users(t *testing.T, b bundle, addr string) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(),
		"SELECT count(*) FROM app_user WHERE lower(email) = lower($1)", addr).Scan(&n))
	return n
}

func TestAllowedDomainsRefuseOtherDomainsWithAClearPage(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	b := setup(t, oidcEnv(idp, "AUTH_ALLOWED_EMAIL_DOMAINS", "example.org, corp.example.net", "AUTH_DEV_LOGIN", "true"))

	outsider := email("mo", "example.com")
	sub := email("mo", "example.org.evil.com")
	unverified := email("ned", "example.org")
	unsaid := email("nia", "example.org")
	insider := email("ola", "corp.example.net")
	idp.QueueUser(&mockoidc.MockUser{Subject: "sub-" + outsider, Email: outsider, EmailVerified: true})
	idp.QueueUser(unverifiedUser{&mockoidc.MockUser{Subject: "sub-" + unverified, Email: unverified}})
	idp.QueueUser(&mockoidc.MockUser{Subject: "sub-" + unsaid, Email: unsaid}) // no email_verified claim at all
	idp.QueueUser(&mockoidc.MockUser{Subject: "sub-" + insider, Email: insider, EmailVerified: true})

	for _, c := range []struct{ name, addr, says string }{
		{"another domain", outsider, "is not one of them"},
		{"unverified address", unverified, "is not verified"},
		{"address the provider does not say is verified", unsaid, "is not verified"},
	} {
		browser := authtest.Anonymous(t, b.url)
		resp := getURL(t, browser, beginOIDC(t, idp, browser, "/auth/oidc"))
		require.Equal(t, http.StatusForbidden, resp.StatusCode, c.name)
		require.Nil(t, sessionCookie(resp), c.name)
		doc := document(t, resp)
		require.Contains(t, doc.Find(`[data-testid="sign-in-problem"]`).Text(), c.says, c.name)
		require.Equal(t, []string{"@example.org", "@corp.example.net"},
			doc.Find(`[data-testid="allowed-domains"] li`).Map(func(_ int, s *goquery.Selection) string { return s.Text() }), c.name)
		require.Zero(t, users(t, b, c.addr), "%s: no user is created", c.name)
		require.False(t, signedIn(t, browser), c.name)
	}

	browser := authtest.Anonymous(t, b.url)
	resp := getURL(t, browser, beginOIDC(t, idp, browser, "/auth/oidc"))
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "an allowed domain signs in")
	require.True(t, signedIn(t, browser))

	// The local sign-in obeys the same list, exactly: a look-alike domain is refused.
	for _, addr := range []string{outsider, sub} {
		browser := authtest.Anonymous(t, b.url)
		resp := localSignIn(t, browser, "Mo", addr, "")
		require.Equal(t, http.StatusForbidden, resp.StatusCode, addr)
		require.Nil(t, sessionCookie(resp))
		require.Zero(t, users(t, b, addr))
	}
	require.Equal(t, http.StatusSeeOther, localSignIn(t, authtest.Anonymous(t, b.url), "Pia", email("pia", "EXAMPLE.org"), "").StatusCode)
}
