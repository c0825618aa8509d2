package auth_test

import (
	"net/http"
	"testing"

	"github.com/checkup-dev/checkup/app/auth/authtest"
)

// BenchmarkSignedInRequest is the cost Guard adds to a page: one indexed session
// lookup, over real HTTP and PostgreSQL (GET / answers a redirect, so little else runs).
//
//	go test -run '^$' -bench SignedInRequest ./app/auth/
func BenchmarkSignedInRequest(b *testing.B) {
	bundle := setup(b, nil)
	c := authtest.SignIn(b, bundle.pool, bundle.url, email("bench", "example.com"))
	for b.Loop() {
		resp, err := c.HTTP.Get(bundle.url + "/")
		if err != nil || resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/tasks" {
			b.Fatalf("not signed in: %v %v", err, resp)
		}
		resp.Body.Close()
	}
}
