package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/report/compare"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// TestComparePickerAndPage: a finished task offers the owner's other finished
// diagnoses to compare with, those with its title first; the page and compare.json
// say the same, and two runs of the same results have every issue the same.
func TestComparePickerAndPage(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	baseline := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Support bot"})
	other := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Sales bot"})
	reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Support bot", Status: "running"})
	reporttest.Insert(t, b.pool, b.bob.User.ID, reporttest.Task{Title: "Support bot"})
	current := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Support bot"})
	base := "/tasks/" + current.ID.String()

	page := parse(t, b.alice.Get(t, base))
	form := testid(page, "compare-form")
	require.Equal(t, base+"/compare", form.AttrOr("action", ""))
	require.Equal(t, "get", form.AttrOr("method", ""))
	var offered []string
	testid(page, "compare-select").Find("option").Each(func(_ int, o *goquery.Selection) { offered = append(offered, o.AttrOr("value", "")) })
	require.Equal(t, []string{baseline.ID.String(), other.ID.String()}, offered,
		"the same title first; no running task, no other owner's, not the task itself")
	require.Equal(t, "Runs of this agent", testid(page, "compare-select").Find("optgroup").First().AttrOr("label", ""))

	resp := b.alice.Get(t, base+"/compare?baseline="+baseline.ID.String())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	doc := parse(t, resp)
	rows := testid(doc, "compare-cluster")
	require.Equal(t, current.Clusters, rows.Length())
	rows.Each(func(_ int, s *goquery.Selection) { require.Equal(t, "same", s.AttrOr("data-change", "")) })
	require.Equal(t, "3", testid(doc, "compare-count").Filter(`[data-change="same"]`).Find("b").Text(), "3 the same")
	require.Equal(t, baseline.ID.String(), testid(doc, "compare-select").Find("option[selected]").AttrOr("value", ""))
	require.Equal(t, 1, doc.Find(`[data-chart="compare-chart"]`).Length(), "before and after bars")

	resp = b.alice.Get(t, base+"/compare.json?baseline="+baseline.ID.String())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var c compare.Comparison
	require.NoError(t, json.Unmarshal([]byte(authtest.Body(t, resp)), &c))
	require.Equal(t, baseline.ID.String(), c.Baseline.ID)
	require.Equal(t, current.ID.String(), c.Current.ID)
	require.Len(t, c.Clusters, current.Clusters)
	for _, cl := range c.Clusters {
		require.Equal(t, compare.Same, cl.Change)
		require.Equal(t, cl.Baseline, cl.Current)
		require.InDelta(t, 1, cl.PValue, 1e-9)
	}
}

// TestCompareWarnsOfDifferentAgents: two runs whose system prompts have little in
// common get a notice that they may be two agents; two runs of one prompt do not.
func TestCompareWarnsOfDifferentAgents(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	airline := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Support bot",
		System: "You are an airline agent. You can book, modify or cancel flight reservations. Basic economy flights cannot be modified."})
	retail := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Support bot",
		System: "You are a retail agent. You can cancel or modify pending orders, return or exchange delivered items after authenticating the user."})
	again := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Support bot",
		System: "You are an airline agent. You can book, modify or cancel flight reservations. Basic economy flights cannot be modified."})
	doc := parse(t, b.alice.Get(t, "/tasks/"+retail.ID.String()+"/compare?baseline="+airline.ID.String()))
	require.Contains(t, testid(doc, "compare-agents").Text(), "they may come from two different agents")
	doc = parse(t, b.alice.Get(t, "/tasks/"+again.ID.String()+"/compare?baseline="+airline.ID.String()))
	require.Zero(t, testid(doc, "compare-agents").Length())
}

// TestComparePickerPreselectsOnlyTheSameTitle: without a run of the same title the
// picker opens on "Choose a run", not on another agent's run, and sending it as it
// opens gets the compare page's sentence; with one, no placeholder is offered.
func TestComparePickerPreselectsOnlyTheSameTitle(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	other := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Sales bot"})
	current := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Support bot"})

	sel := testid(parse(t, b.alice.Get(t, "/tasks/"+current.ID.String())), "compare-select")
	options := sel.Find("option")
	require.Equal(t, 2, options.Length())
	require.Equal(t, "Choose a run", options.First().Text())
	picked := sel.Find("option[selected]")
	require.Equal(t, 1, picked.Length())
	require.Empty(t, picked.AttrOr("value", "x"), "the placeholder is what the picker opens on")
	require.Equal(t, other.ID.String(), options.Last().AttrOr("value", ""), "the other title is still offered")
	resp := b.alice.Get(t, "/tasks/"+current.ID.String()+"/compare?baseline=")
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, authtest.Body(t, resp), "Choose the diagnosis to compare this one with")

	reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: "Support bot"})
	doc := parse(t, b.alice.Get(t, "/tasks/"+current.ID.String()))
	sel = testid(doc, "compare-select")
	require.Zero(t, testid(doc, "compare-placeholder").Length())
	require.Equal(t, "Runs of this agent", sel.Find("optgroup").First().AttrOr("label", ""), "the browser opens on the first, of the same title")
	require.Equal(t, "Support bot", strings.SplitN(sel.Find("option").First().Text(), " · ", 2)[0])
}

// TestComparePickerGroupsRunsByAgent: the picker lists this agent's runs first, then
// each other agent's under its name, and runs whose entries would read the same (one
// title, one minute, one size) are told apart by their id.
func TestComparePickerGroupsRunsByAgent(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	agent := func(name string) int64 {
		var id int64
		require.NoError(t, b.pool.QueryRow(t.Context(), `INSERT INTO agent (owner_user_id, name) VALUES ($1, $2) RETURNING id`, b.alice.User.ID, name).Scan(&id))
		return id
	}
	support, sales := agent("Support"), agent("Sales")
	insert := func(title string, agentID int64) string {
		id := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Title: title}).ID.String()
		_, err := b.pool.Exec(t.Context(), `UPDATE analysis_task SET agent_id = $1, created_at = '2026-03-01 10:00:00+00' WHERE id = $2`, agentID, id)
		require.NoError(t, err)
		return id
	}
	current := insert("Support bot", support)
	twins := []string{insert("Support bot", support), insert("Support bot", support)}
	insert("Sales bot", sales)

	sel := testid(parse(t, b.alice.Get(t, "/tasks/"+current)), "compare-select")
	groups := sel.Find("optgroup").Map(func(_ int, g *goquery.Selection) string { return g.AttrOr("label", "") })
	require.Equal(t, []string{"Runs of this agent", "Runs of the agent Sales"}, groups)
	require.Equal(t, 2, sel.Find("optgroup").First().Find("option").Length())
	labels := map[string]string{}
	sel.Find("option").Each(func(_ int, o *goquery.Selection) { labels[o.AttrOr("value", "")] = o.Text() })
	require.NotEqual(t, labels[twins[0]], labels[twins[1]], "identical entries are told apart")
	for _, id := range twins {
		require.True(t, strings.HasSuffix(labels[id], " · "+id[:8]), labels[id])
	}
}

// TestCompareRefusesWithASentence: every wrong baseline is told apart, another owner's
// task and baseline are 404s, and a run without results is a 409.
func TestCompareRefusesWithASentence(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	current := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{}).ID.String()
	running := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Status: "running"}).ID.String()
	insufficient := reporttest.Insert(t, b.pool, b.alice.User.ID, reporttest.Task{Status: "insufficient_data"}).ID.String()
	bobs := reporttest.Insert(t, b.pool, b.bob.User.ID, reporttest.Task{}).ID.String()
	for _, c := range []struct {
		who      *authtest.Client
		task, q  string
		status   int
		sentence string
	}{
		{b.alice, current, "", http.StatusBadRequest, "Choose the diagnosis to compare this one with"},
		{b.alice, current, "?baseline=last", http.StatusBadRequest, `The baseline "last" is not the id of a diagnosis`},
		{b.alice, current, "?baseline=" + current, http.StatusBadRequest, "cannot be compared with itself"},
		{b.alice, current, "?baseline=" + uuid.NewString(), http.StatusNotFound, "no such baseline diagnosis"},
		{b.alice, current, "?baseline=" + bobs, http.StatusNotFound, "no such baseline diagnosis"},
		{b.bob, current, "?baseline=" + bobs, http.StatusNotFound, "There is no such diagnosis"},
		{b.alice, current, "?baseline=" + running, http.StatusConflict, "has not finished yet"},
		{b.alice, running, "?baseline=" + current, http.StatusConflict, "has not finished yet"},
		{b.alice, current, "?baseline=" + insufficient, http.StatusConflict, "without results to compare"},
	} {
		for _, path := range []string{"/compare", "/compare.json"} {
			resp := c.who.Get(t, "/tasks/"+c.task+path+c.q)
			require.Equal(t, c.status, resp.StatusCode, "%s%s", path, c.q)
			require.Contains(t, authtest.Body(t, resp), c.sentence, "%s%s", path, c.q)
		}
		page := browserGet(t, c.who, "/tasks/"+c.task+"/compare"+c.q)
		require.Equal(t, 1, testid(parse(t, page), "error-page").Length(), "a browser gets the sentence in the site's page")
	}
	require.Zero(t, testid(parse(t, b.alice.Get(t, "/tasks/"+running)), "compare-form").Length(), "a running task offers no comparison")
}
