package web

import (
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
)

// apiMaxConversations is the longest page of GET /api/v1/tasks/{id}/conversations.
const apiMaxConversations = 500

// apiConversationPage is a page of a task's kept conversations; next continues it,
// null on the last page.
type apiConversationPage struct {
	Conversations []apiConversation `json:"conversations"`
	Next          *string           `json:"next"`
}

// apiConversation is one conversation as the list gives it: its id in the export, its
// number, its failure score (null until diagnosed) and its outcome label with where it
// came from (null without one).
type apiConversation struct {
	ID           string   `json:"id"`
	Seq          int      `json:"seq"`
	FailureScore *float64 `json:"failure_score"`
	Label        *string  `json:"label"`
	LabelSource  *string  `json:"label_source"`
}

// apiTaskConversations is GET /api/v1/tasks/{id}/conversations?sort=&limit=&after=:
// the task's kept conversations sorted by failure score (the default), turns or
// severity, or sort=to_label: those without a label, diagnosed, most useful to label
// first (the conversation list's "most useful to label").
func (s *Server) apiTaskConversations(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	ctx, owner := c.Request().Context(), auth.OwnerFrom(c)
	task, err := s.store.Task(ctx, id, owner)
	if err != nil {
		return err
	}
	sort := c.QueryParam("sort")
	if sort == "" {
		sort = string(store.SortFailure)
	}
	if sort != sortToLabel && !slices.Contains(store.Sorts(), store.ConversationSort(sort)) {
		return &inputError{status: http.StatusBadRequest, field: "sort", msg: locale.Msg("api_refused.sort")}
	}
	limit := conversationsPerPage
	if raw := c.QueryParam("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > apiMaxConversations {
			return &inputError{status: http.StatusBadRequest, field: "limit",
				msg: locale.Msg("api_refused.limit", "Max", strconv.Itoa(apiMaxConversations))}
		}
		limit = n
	}
	filter := store.ConversationFilter{Sort: store.SortFailure}
	if sort != sortToLabel {
		filter.Sort = store.ConversationSort(sort)
	}
	if raw := c.QueryParam("after"); raw != "" {
		cur, err := store.ParseConversationCursor(filter.Sort, raw)
		if sort == sortToLabel {
			cur, err = toLabelCursor(raw)
		}
		if err != nil {
			return &inputError{status: http.StatusBadRequest, field: "after", msg: locale.Msg("api_refused.after")}
		}
		filter.After = &cur
	}
	var list store.ConversationList
	next := ""
	if sort == sortToLabel {
		order, err := s.labelOrderOf(ctx, task, owner)
		if err != nil {
			return err
		}
		if list, err = s.store.ConversationsInOrder(ctx, id, owner, filter, order.unlabelledAfter(afterSeq(filter)), limit); err != nil {
			return err
		}
		if list.Next != nil {
			next = strconv.Itoa(int(list.Next.Seq))
		}
	} else {
		if list, err = s.store.Conversations(ctx, id, owner, filter, limit); err != nil {
			return err
		}
		if list.Next != nil {
			next = list.Next.String(filter.Sort)
		}
	}
	out := apiConversationPage{Conversations: make([]apiConversation, len(list.Conversations))}
	for i, r := range list.Conversations {
		out.Conversations[i] = apiConversation{ID: r.ExternalID, Seq: int(r.Seq), Label: r.Label, LabelSource: r.LabelSource}
		if r.FailureScore != nil {
			score := math.Round(float64(*r.FailureScore)*1e4) / 1e4 // as report.json writes it
			out.Conversations[i].FailureScore = &score
		}
	}
	if next != "" {
		u := s.apiTaskURL(id.String()) + "/conversations?" +
			url.Values{"sort": {sort}, "limit": {strconv.Itoa(limit)}, "after": {next}}.Encode()
		out.Next = &u
		c.Response().Header().Set("Link", "<"+u+`>; rel="next"`)
	}
	return c.JSON(http.StatusOK, out)
}
