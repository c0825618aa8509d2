package web_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/report/reporttest"
)

// TestAPICompare compares two of Alice's finished runs through the API: the answer is
// compare.json, checked against the document. Every wrong baseline gets its error: a
// missing, malformed or self baseline is a 400 naming the field, Bob's run or an
// unknown one a 404, and a run still going a 409.
func TestAPICompare(t *testing.T) {
	t.Parallel()
	b := setupAPI(t, nil)
	alice, bob := b.user(t, "alice"), b.user(t, "bob")
	before := reporttest.Insert(t, b.pool, alice.browser.User.ID, reporttest.Task{Title: "Weekly"}).ID.String()
	after := reporttest.Insert(t, b.pool, alice.browser.User.ID, reporttest.Task{Title: "Weekly"}).ID.String()
	running := reporttest.Insert(t, b.pool, alice.browser.User.ID, reporttest.Task{Title: "Weekly", Status: "running"}).ID.String()
	bobs := reporttest.Insert(t, b.pool, bob.browser.User.ID, reporttest.Task{Title: "Weekly"}).ID.String()
	const route = "/api/v1/tasks/:id/compare.json"
	path := func(id, baseline string) string { return "/api/v1/tasks/" + id + "/compare.json?baseline=" + baseline }

	status, body := b.call(t, alice.api, http.MethodGet, route, path(after, before))
	require.Equal(t, http.StatusOK, status, "%s", body)
	cmp := decode[struct {
		Baseline struct{ ID string } `json:"baseline"`
		Current  struct{ ID string } `json:"current"`
		Clusters []struct {
			Change string `json:"change"`
		} `json:"clusters"`
	}](t, body)
	require.Equal(t, before, cmp.Baseline.ID)
	require.Equal(t, after, cmp.Current.ID)
	require.NotEmpty(t, cmp.Clusters)
	for _, c := range cmp.Clusters {
		require.Equal(t, "same", c.Change, "the same fixture twice")
	}

	for _, c := range []struct {
		name, path string
		status     int
	}{
		{"no baseline", "/api/v1/tasks/" + after + "/compare.json", http.StatusBadRequest},
		{"not an id", path(after, "last"), http.StatusBadRequest},
		{"itself", path(after, after), http.StatusBadRequest},
		{"Bob's run", path(after, bobs), http.StatusNotFound},
		{"an unknown run", path(after, uuid.NewString()), http.StatusNotFound},
		{"a run still going", path(after, running), http.StatusConflict},
		{"as Bob, Alice's runs", path(bobs, before), http.StatusNotFound},
	} {
		status, body := b.call(t, alice.api, http.MethodGet, route, c.path)
		require.Equal(t, c.status, status, "%s: %s", c.name, body)
		e := decode[apiErr](t, body)
		require.NotEmpty(t, e.Error, c.name)
		if c.status == http.StatusBadRequest {
			require.Equal(t, "baseline", e.Field, c.name)
		}
	}
}
