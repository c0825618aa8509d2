package pages_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
)

// TestUploadedTextIsEscaped puts hostile text in every place uploaded or analyzer text
// appears and checks it is shown as text and never becomes an element.
func TestUploadedTextIsEscaped(t *testing.T) {
	t.Parallel()
	r := sampleReport("completed")
	r.Task.Title = "Title " + xss
	r.Task.Error = "Error " + xss
	r.Actions[0].Title = "Action " + xss
	r.Actions[0].Problem = xss
	r.Actions[0].Recommendation = []string{xss}
	r.Actions[0].Evidence[0].Quote = "Quote " + xss
	r.Actions[0].Evidence[0].ConversationID = xss
	r.Clusters[0].Title = xss
	r.Warnings[0].Message = xss
	r.Funnel[1].Reasons[0].Reason = xss
	r.RiskSummary.Kinds[0].Examples[0].Quote = xss
	conv := conversationView("Message " + xss)
	conv.TaskTitle = xss
	conv.Findings[0].Title = xss
	conv.Turns[3].Message.Content = xss
	list := pages.TaskListView{Tasks: []pages.TaskRow{{Title: "List " + xss, SourceFilename: xss,
		Progress: components.Progress{TaskID: taskID, Status: "running"}}}}

	for name, doc := range map[string]*goquery.Document{
		"task page":         first(render(t, pages.TaskShow(page, pages.TaskView{Report: r}))),
		"conversation page": first(render(t, pages.ConversationShow(page, conv))),
		"task list":         first(render(t, pages.TaskList(page, list))),
		"delete page":       first(render(t, pages.TaskDeleteConfirm(page, taskID, xss))),
	} {
		inline := doc.Find("script").FilterFunction(func(_ int, s *goquery.Selection) bool {
			_, hasSrc := s.Attr("src")
			return !hasSrc
		})
		require.Zero(t, inline.Length(), "%s: no inline script element", name)
		require.Zero(t, doc.Find("b").FilterFunction(func(_ int, s *goquery.Selection) bool { return s.Text() == "bold" }).Length(),
			"%s: no <b> element from uploaded text", name)
		require.True(t, strings.Contains(doc.Text(), "<script>alert(1)</script>"), "%s: the text is shown as text", name)
	}
}

func first(doc *goquery.Document, _ string) *goquery.Document { return doc }
