package pages

import (
	"net/url"
	"strconv"

	"github.com/checkup-dev/checkup/db/taskstate"
)

// ConversationListView is one page of a task's kept conversations, filtered, searched
// and sorted.
type ConversationListView struct {
	TaskID    string
	TaskTitle string
	Form      ConversationForm // the filters as sent, shown in the form again
	// What the form's menus offer.
	Clusters, Drivers, Categories, Risks, Sorts []Option
	// Filtered says in words what the list is restricted to ("Issue: …",
	// "Labeled failed"); empty for all of them.
	Filtered []string
	// Problem is why the filters were refused, in a sentence; the list is empty then.
	Problem       string
	Conversations []ConversationRow
	Unsearchable  bool   // the search found nothing because the task predates search
	Matches       string // how many a search lets through ("76 conversations match"); empty without one
	// CountURL is where the page loads how many its filters let through, when it has
	// filters but no search (GET /tasks/{id}/conversations/count).
	CountURL string
	// CountedURL is this page counting as it lists, for a browser without JavaScript.
	CountedURL string
	NextURL    string // the next page (rel="next"); empty on the last page
	FirstURL   string // the first page, when this is not it
	// RowQuery is the list's query, encoded, that each row's link passes on to its
	// conversation's page, which leads back to the list and on to the next in it.
	RowQuery string
	// ToLabel is set for the list most useful to label (sort=to_label): the rule of its
	// order and the agent's labels so far.
	ToLabel *ToLabelView
	// IDMatches are the conversations whose id starts with the search, when it is the
	// start of more than one id: listed above the results, each a link.
	IDMatches []IDMatch
}

// ToLabelView is what the list most useful to label says above its rows: the rule it
// follows (Scored: the agent's detector scored the run, so its least certain come
// first), and what the agent has of the labels its detector needs.
type ToLabelView struct {
	Scored   bool
	Agent    string
	Progress *LabelProgress
}

// IDMatch is a conversation whose id starts with the search.
type IDMatch struct {
	Seq int
	ID  string
}

// ConversationForm is the list's query as sent.
type ConversationForm struct {
	Cluster, Driver, Category, MinSeverity, Label, Risk, Query, Sort string
}

// Values is the form as a URL query, empty fields left out.
func (f ConversationForm) Values() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{
		"cluster": f.Cluster, "driver": f.Driver, "category": f.Category, "min_severity": f.MinSeverity,
		"label": f.Label, "risk": f.Risk, "q": f.Query, "sort": f.Sort,
	} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// Option is one choice of a menu.
type Option struct{ Value, Label string }

// ConversationRow is one conversation of the list.
type ConversationRow struct {
	Seq             int
	ID              string
	Turns           int
	Labels          LabelState // its outcome label, where it came from, and the forms that label it
	FailureScore    *float64   // the diagnosis' estimate that it failed; nil until diagnosed
	Estimated       string     // what the score says: "failed" or "succeeded"; empty until diagnosed
	DiagnosisStatus taskstate.DiagnosisStatus
	Outcome         string // the diagnosis' outcome, as the analyzer named it
	TopType         string // its most severe finding that is not expected behaviour, if any
	TopTitle        string
	TopCategory     string
	TopSeverity     int
	// IssueTitle is, in an issue's list, its finding of that issue (why it is listed)
	// when that is not its top finding; empty otherwise.
	IssueTitle string
	// OnlyExpected is set when every finding of the conversation is expected behaviour.
	OnlyExpected bool
	RiskKinds    []string
	// Snippet quotes, in a search's results, where the conversation matched (its turn
	// SnippetTurn); empty otherwise.
	Snippet     string
	SnippetTurn int
}

// Name is how the row names its conversation: the export's id, or its number.
func (r ConversationRow) Name() string {
	if r.ID != "" {
		return r.ID
	}
	return "#" + strconv.Itoa(r.Seq)
}
