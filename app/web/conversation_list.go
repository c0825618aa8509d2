package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/search"
)

// conversationsPerPage is how many conversations one page of the list shows.
const conversationsPerPage = 50

// conversationList is GET /tasks/{id}/conversations: the task's kept conversations, a
// page at a time, filtered by cluster, failure driver, finding category, severity,
// outcome label, risk flag and a full-text search, sorted by failure score, turns or
// severity. Filters it cannot use are a 400 with a sentence, after the task was found
// to be the owner's. A search that is one of the task's conversation ids opens that
// conversation.
func (s *Server) conversationList(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	owner := auth.OwnerFrom(c)
	l := s.localizerOf(c)
	filter, form, problem := conversationFilter(c.QueryParams())
	filter.CountMatches = true
	v := pages.ConversationListView{TaskID: id.String(), Form: form, Problem: l.Text(problem)}
	if !problem.IsZero() {
		menus, err := s.store.ConversationMenus(ctx, id, owner)
		if err != nil {
			return err
		}
		v.TaskTitle = menus.Task.Title
		fillMenus(l, &v, menus.Clusters, menus.Drivers)
		return render(c, http.StatusBadRequest, pages.ConversationList(s.page(c, l.T("conversations.title", "Title", menus.Task.Title)), v))
	}
	if params := c.QueryParams(); hasEmptyValue(params) {
		// The form names the menus left at "Any" with nothing: its address leaves them
		// out, so it can be read and passed on.
		clean := form.Values()
		if clean.Get("sort") == string(store.SortFailure) {
			clean.Del("sort") // the default
		}
		if after := params.Get("after"); after != "" {
			clean.Set("after", after)
		}
		return c.Redirect(http.StatusSeeOther, components.TaskPath(id.String(), "conversations")+queryString(clean))
	}
	if q := strings.TrimSpace(form.Query); q != "" && filter.After == nil {
		// A conversation's id from the upload goes to that conversation.
		seq, found, err := s.store.ConversationWithID(ctx, id, owner, q)
		if err != nil {
			return err
		}
		if found {
			return c.Redirect(http.StatusSeeOther, string(components.ConversationURL(id.String(), int(seq), 0)))
		}
		if looksLikeID(q) {
			// The start of ids: one opens its conversation, several are listed.
			matches, err := s.store.ConversationsWithIDPrefix(ctx, id, owner, q, idMatches)
			if err != nil {
				return err
			}
			if len(matches) == 1 {
				return c.Redirect(http.StatusSeeOther, string(components.ConversationURL(id.String(), int(matches[0].Seq), 0)))
			}
			for _, m := range matches {
				v.IDMatches = append(v.IDMatches, pages.IDMatch{Seq: int(m.Seq), ID: m.ID})
			}
		}
	}
	if err := s.searchOldNames(ctx, id, owner, &filter, form.Query); err != nil {
		return err
	}
	if form.Sort == sortToLabel {
		return s.labelList(c, id, filter, form, v)
	}
	list, err := s.store.Conversations(ctx, id, owner, filter, conversationsPerPage)
	if err != nil {
		return err
	}
	v.TaskTitle, v.Unsearchable = list.Task.Title, list.Unsearchable
	fillMenus(l, &v, list.Clusters, list.Drivers)
	status := http.StatusOK
	if v.Filtered, v.Problem = describeFilter(l, filter, form.Query, list); v.Problem != "" {
		status = http.StatusBadRequest
	}
	setCount(l, &v, filter, form, list)
	if v.CountURL != "" && c.QueryParam("count") == "all" {
		// Without JavaScript the page is asked again to count as it lists.
		n, many, err := s.store.CountConversations(ctx, id, owner, filter)
		if err != nil {
			return err
		}
		v.Matches, v.CountURL = matchesText(l, &n, many, false, len(v.Filtered)), ""
	}
	next := ""
	if list.Next != nil {
		next = list.Next.String(filter.Sort)
	}
	fillRows(c, &v, id, form, filter, list, next)
	if err := s.snippets(ctx, id, owner, form.Query, v.Conversations); err != nil {
		return err
	}
	return render(c, status, pages.ConversationList(s.page(c, l.T("conversations.title", "Title", list.Task.Title)), v))
}

// fillRows sets the rows of a page of the list, each with its label's forms, and the
// links to the next page (which starts after cursor next; "" on the last page) and
// back to the first.
func fillRows(c echo.Context, v *pages.ConversationListView, id uuid.UUID, form pages.ConversationForm, filter store.ConversationFilter, list store.ConversationList, next string) {
	v.RowQuery = listQuery(form, filter).Encode()
	csrf, l := auth.CSRFToken(c), locale.From(c.Request().Context())
	for _, row := range list.Conversations {
		r := conversationRow(l, row)
		r.Labels = pages.LabelState{TaskID: id.String(), Seq: int(row.Seq), Label: deref(row.Label), Source: deref(row.LabelSource),
			Reviewed: deref(row.ReviewedLabel), CSRFToken: csrf, ListQuery: v.RowQuery}
		v.Conversations = append(v.Conversations, r)
	}
	base := components.TaskPath(id.String(), "conversations")
	q := form.Values()
	if next != "" {
		q.Set("after", next)
		v.NextURL = base + "?" + q.Encode()
	}
	if filter.After != nil {
		q.Del("after")
		v.FirstURL = base + queryString(q)
	}
}

// idMatches is how many conversations a search for the start of an id lists.
const idMatches = 20

// looksLikeID reports whether a search could be the start of a conversation's id: one
// token without spaces that holds a digit or a mark ids are joined with (-, _, #, :).
// A plain word ("refund") is looked for in the messages only.
func looksLikeID(q string) bool {
	return !strings.ContainsFunc(q, unicode.IsSpace) && strings.ContainsAny(q, "0123456789-_#:")
}

// snippets quotes, for each row of a search's page, where its conversation matched
// (search.SnippetOfJSON): one read of the page's messages, each decoded only as far as
// its match.
func (s *Server) snippets(ctx context.Context, id uuid.UUID, owner store.Owner, query string, rows []pages.ConversationRow) error {
	if strings.TrimSpace(query) == "" || len(rows) == 0 {
		return nil
	}
	seqs := make([]int32, len(rows))
	for i, r := range rows {
		seqs[i] = int32(r.Seq)
	}
	msgs, err := s.store.ConversationMessages(ctx, id, owner, seqs)
	if err != nil {
		return err
	}
	for i := range rows {
		if rows[i].SnippetTurn, rows[i].Snippet, err = search.SnippetOfJSON(msgs[int32(rows[i].Seq)], query); err != nil {
			return err
		}
	}
	return nil
}

// setCount sets how the list says how many conversations it holds: a search's count
// with its page; a filtered list's on the page when it is the whole list, or else the
// address the page loads it from once it is shown, since counting may walk the whole
// task, with the page's own address counting as it lists for a browser without
// JavaScript (count=all); the whole list says how many the quality checks kept.
func setCount(l *locale.Localizer, v *pages.ConversationListView, filter store.ConversationFilter, form pages.ConversationForm, list store.ConversationList) {
	switch kept := int(list.Task.KeptFailed + list.Task.KeptSucceeded + list.Task.KeptUnlabelled); {
	case list.Unsearchable: // the page says why nothing matched
	case len(v.Filtered) == 0 && kept > 0:
		v.Matches = l.N("count.conversations", kept)
	case filter.Query != "":
		v.Matches = matchesText(l, list.Matches, list.ManyMatches, true, len(v.Filtered))
	case len(v.Filtered) > 0 && filter.After == nil && list.Next == nil:
		n := len(list.Conversations) // the whole list is this page
		v.Matches = matchesText(l, &n, false, false, len(v.Filtered))
	case len(v.Filtered) > 0:
		v.CountURL = components.TaskPath(v.TaskID, "conversations/count") + "?" + form.Values().Encode()
		counted := form.Values()
		if filter.After != nil {
			counted.Set("after", filter.After.String(filter.Sort))
		}
		counted.Set("count", "all")
		v.CountedURL = components.TaskPath(v.TaskID, "conversations") + "?" + counted.Encode()
	}
}

// conversationCount is GET /tasks/{id}/conversations/count: how many conversations the
// list's filters let through, as the line the list page loads in once it is shown.
// Filters it cannot use are a 400 with a sentence, after the task was found to be the
// owner's; an issue or a driver the task does not have holds no conversations.
func (s *Server) conversationCount(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	ctx, owner := c.Request().Context(), auth.OwnerFrom(c)
	filter, form, problem := conversationFilter(c.QueryParams())
	if !problem.IsZero() {
		if _, err := s.store.Task(ctx, id, owner); err != nil {
			return err
		}
		return echo.NewHTTPError(http.StatusBadRequest, problem)
	}
	if err := s.searchOldNames(ctx, id, owner, &filter, form.Query); err != nil {
		return err
	}
	n, many, err := s.store.CountConversations(ctx, id, owner, filter)
	if err != nil {
		return err
	}
	filtered := len(form.Values())
	if form.Sort != "" {
		filtered-- // the sort filters nothing
	}
	return render(c, http.StatusOK, pages.ListMatches(matchesText(s.localizerOf(c), &n, many, filter.Query != "", filtered)))
}

// matchesText says how many conversations a filtered list holds: count of them, or
// more than store.FewMatches — for a search, of the conversations with its words,
// before the list's other filters (filters counts them with the search).
func matchesText(l *locale.Localizer, count *int, many, search bool, filters int) string {
	switch {
	case many && !search:
		return l.T("matches.more_than", "N", store.FewMatches)
	case many && filters > 1:
		return l.T("matches.many_words_filtered", "N", store.FewMatches)
	case many:
		return l.T("matches.many_words", "N", store.FewMatches)
	case count != nil:
		return l.N("matches.count", *count)
	}
	return ""
}

// hasEmptyValue reports whether a parameter of q is given empty.
func hasEmptyValue(q url.Values) bool {
	for _, v := range q {
		if len(v) == 0 || v[0] == "" {
			return true
		}
	}
	return false
}

// queryString is q encoded after a question mark, or nothing when q is empty.
func queryString(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// searchOldNames makes a search for names joined by underscores look for their words
// in a task stored before names were indexed whole.
func (s *Server) searchOldNames(ctx context.Context, id uuid.UUID, owner store.Owner, filter *store.ConversationFilter, query string) error {
	if !search.HasNames(query) {
		return nil
	}
	holds, err := s.store.SearchHoldsNames(ctx, id, owner, search.NamesTerm)
	if err != nil {
		return err
	}
	if !holds {
		filter.Query = search.Query(query, false)
	}
	return nil
}

// listQuery is the list's query as its rows pass it on to the conversations they open,
// the sort always named: the conversation's page knows by it that it was opened from
// the list, and which.
func listQuery(form pages.ConversationForm, filter store.ConversationFilter) url.Values {
	q := form.Values()
	if form.Sort != sortToLabel {
		q.Set("sort", string(filter.Sort))
	}
	return q
}

// fillMenus sets what the filter form's menus offer.
func fillMenus(l *locale.Localizer, v *pages.ConversationListView, clusters []dbsqlc.ListClusterNamesRow, drivers []dbsqlc.ListDriverNamesRow) {
	for _, c := range clusters {
		// An expected cluster is never an Action, so it is not named by its type.
		kind := report.TypeLabel(l, c.Type)
		if c.Expected {
			kind = l.T("expected.heading")
		}
		label := l.T("menus.cluster", "Kind", kind, "Title", report.SayStored(l, c.Title, c.TitleText), "N", c.Conversations)
		v.Clusters = append(v.Clusters, pages.Option{Value: strconv.Itoa(int(c.Idx)), Label: label})
	}
	for _, d := range drivers {
		v.Drivers = append(v.Drivers, pages.Option{Value: strconv.Itoa(int(d.Idx)),
			Label: l.T("menus.driver", "Kind", report.DriverKindLabel(l, d.Kind), "Feature", report.DriverFeatureLabel(l, d.Kind, d.Feature), "N", d.Conversations)})
	}
	for _, cat := range offeredCategories(clusters, v.Form.Category) {
		v.Categories = append(v.Categories, pages.Option{Value: cat, Label: report.CategoryLabel(l, cat)})
	}
	for _, k := range risk.Kinds() {
		v.Risks = append(v.Risks, pages.Option{Value: k, Label: report.RiskKindLabel(l, k)})
	}
	v.Sorts = []pages.Option{
		{Value: string(store.SortFailure), Label: l.T("menus.sort_failure")},
		{Value: string(store.SortTurns), Label: l.T("menus.sort_turns")},
		{Value: string(store.SortSeverity), Label: l.T("menus.sort_severity")},
		{Value: sortToLabel, Label: l.T("menus.sort_to_label")},
	}
}

// offeredCategories are the finding categories the filter offers, in the analyzer's
// order: those of the task's issues, with the one chosen; every category while the
// task has no clusters yet, for its findings are not grouped until the end.
func offeredCategories(clusters []dbsqlc.ListClusterNamesRow, chosen string) []string {
	if len(clusters) == 0 {
		return analyzer.Categories()
	}
	return slices.DeleteFunc(analyzer.Categories(), func(cat string) bool {
		return cat != chosen && !slices.ContainsFunc(clusters, func(c dbsqlc.ListClusterNamesRow) bool { return !c.Expected && c.Category == cat })
	})
}

// describeFilter says in words what the list is restricted to, or why a cluster or a
// driver it names does not exist. It gives no sizes: the list says how many the
// filters together let through.
func describeFilter(l *locale.Localizer, f store.ConversationFilter, query string, list store.ConversationList) ([]string, string) {
	var out []string
	if f.Cluster != nil {
		i := slices.IndexFunc(list.Clusters, func(c dbsqlc.ListClusterNamesRow) bool { return c.Idx == *f.Cluster })
		if i < 0 {
			return nil, l.T("errors.no_issue", "N", strconv.Itoa(int(*f.Cluster)))
		}
		out = append(out, l.T("described.issue", "Title", report.SayStored(l, list.Clusters[i].Title, list.Clusters[i].TitleText)))
	}
	if f.Driver != nil {
		i := slices.IndexFunc(list.Drivers, func(d dbsqlc.ListDriverNamesRow) bool { return d.Idx == *f.Driver })
		if i < 0 {
			return nil, l.T("errors.no_driver", "N", strconv.Itoa(int(*f.Driver)))
		}
		d := list.Drivers[i]
		out = append(out, l.T("described.driver", "Kind", report.DriverKindLabel(l, d.Kind), "Feature", report.DriverFeatureLabel(l, d.Kind, d.Feature)))
	}
	if f.Category != nil {
		out = append(out, l.T("described.category", "Category", report.CategoryLabel(l, *f.Category)))
	}
	switch {
	case f.MinSeverity == nil:
	case *f.MinSeverity == mostSevere:
		out = append(out, l.T("described.most_severe", "N", strconv.Itoa(int(*f.MinSeverity))))
	default:
		out = append(out, l.T("described.severity", "N", strconv.Itoa(int(*f.MinSeverity))))
	}
	if f.Label != nil {
		out = append(out, l.T("described.label", "Label", pages.LabelWord(l, *f.Label)))
	}
	if f.Risk != nil {
		out = append(out, l.T("described.risk", "Kind", report.RiskKindLabel(l, *f.Risk)))
	}
	if f.Query != "" {
		out = append(out, l.T("described.query", "Query", strconv.Quote(query)))
	}
	return out, ""
}

// conversationRow is one row of the list as the page shows it.
func conversationRow(l *locale.Localizer, r dbsqlc.ListTaskConversationsRow) pages.ConversationRow {
	row := pages.ConversationRow{
		Seq: int(r.Seq), ID: r.ExternalID, Turns: int(r.MessageCount), DiagnosisStatus: r.DiagnosisStatus,
		Outcome: r.Outcome, TopType: r.TopType, TopTitle: report.SayStored(l, r.TopTitle, r.TopTitleText), TopCategory: r.TopCategory,
		TopSeverity: int(r.TopSeverity), RiskKinds: r.RiskKinds,
	}
	if r.IssueTitle != r.TopTitle {
		row.IssueTitle = report.SayStored(l, r.IssueTitle, r.IssueTitleText)
	}
	row.OnlyExpected = r.TopTitle == "" && r.HasFindings
	if r.FailureScore != nil {
		score := float64(*r.FailureScore)
		row.FailureScore = &score
		row.Estimated = "succeeded"
		if score >= analyzer.FailedThreshold {
			row.Estimated = "failed"
		}
	}
	return row
}
