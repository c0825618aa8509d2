package web

import (
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
)

// labelList is the conversation list sorted "most useful to label" (sort=to_label):
// the task's diagnosed conversations without a label, in labelOrder's order, through
// the list's other filters, a page at a time; the page says the order's rule and how
// far the agent's labels are from its detector.
func (s *Server) labelList(c echo.Context, id uuid.UUID, filter store.ConversationFilter, form pages.ConversationForm, v pages.ConversationListView) error {
	ctx, owner := c.Request().Context(), auth.OwnerFrom(c)
	task, err := s.store.Task(ctx, id, owner)
	if err != nil {
		return err
	}
	order, err := s.labelOrderOf(ctx, task, owner)
	if err != nil {
		return err
	}
	list, err := s.store.ConversationsInOrder(ctx, id, owner, filter, order.unlabelledAfter(afterSeq(filter)), conversationsPerPage)
	if err != nil {
		return err
	}
	v.TaskTitle, v.ToLabel = list.Task.Title, &pages.ToLabelView{Scored: order.scored}
	if v.ToLabel.Progress, err = s.agentProgress(ctx, task.AgentID, owner); err != nil {
		return err
	}
	if v.ToLabel.Progress != nil {
		v.ToLabel.Agent = v.ToLabel.Progress.Agent
	}
	l := s.localizerOf(c)
	fillMenus(l, &v, list.Clusters, list.Drivers)
	status := http.StatusOK
	if v.Filtered, v.Problem = describeFilter(l, filter, form.Query, list); v.Problem != "" {
		status = http.StatusBadRequest
	}
	if len(v.Filtered) == 0 {
		v.Matches = l.N("matches.unlabelled", order.unlabelled())
	}
	next := ""
	if list.Next != nil {
		next = strconv.Itoa(int(list.Next.Seq))
	}
	fillRows(c, &v, id, form, filter, list, next)
	return render(c, status, pages.ConversationList(s.page(c, l.T("conversations.to_label_title", "Title", list.Task.Title)), v))
}

// labelListAround is listAround for a conversation opened from the list most useful to
// label: back to that list at a page that starts with it, and on to the next
// conversation without a label after it in the list's order (labelled conversations
// keep their place in it), or the first before it when none is left after.
func (s *Server) labelListAround(c echo.Context, id uuid.UUID, conv dbsqlc.TaskConversation, filter store.ConversationFilter, form pages.ConversationForm) (*pages.ListNav, error) {
	ctx, owner := c.Request().Context(), auth.OwnerFrom(c)
	all := &pages.ListNav{URL: components.TaskPath(id.String(), "conversations")}
	task, err := s.store.Task(ctx, id, owner)
	if err != nil {
		return nil, err
	}
	order, err := s.labelOrderOf(ctx, task, owner)
	if err != nil {
		return nil, err
	}
	list, err := s.store.ConversationsInOrder(ctx, id, owner, filter, order.nextToLabel(conv.Seq), 1)
	if err != nil {
		return nil, err
	}
	filtered, problem := describeFilter(s.localizerOf(c), filter, form.Query, list)
	if problem != "" {
		return all, nil
	}
	query := listQuery(form, filter)
	q := query.Encode()
	if before := order.before(conv.Seq); before > 0 {
		query.Set("after", strconv.Itoa(int(before)))
	}
	nav := &pages.ListNav{URL: all.URL + "?" + query.Encode(), Filtered: filtered, Read: true}
	if len(list.Conversations) > 0 {
		nav.NextURL = string(components.ConversationInListURL(id.String(), int(list.Conversations[0].Seq), q))
	}
	return nav, nil
}

// afterSeq is where a page of the list most useful to label starts: after this seq in
// its order; 0 for the first page.
func afterSeq(f store.ConversationFilter) int32 {
	if f.After == nil {
		return 0
	}
	return f.After.Seq
}
