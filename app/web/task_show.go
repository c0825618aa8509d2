package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/report"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/views/pages"
)

// taskShow is the task page: its state, live progress while it runs, and the results
// stored so far.
func (s *Server) taskShow(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	r, err := s.taskReport(c, id, store.ReportPage)
	if err != nil {
		return err
	}
	v, err := s.taskView(c, r)
	if err != nil {
		return err
	}
	return renderPage(c, http.StatusOK, pages.TaskShow(s.page(c, r.Task.Title), v), pages.TaskBody(v))
}

// taskView is what the task page shows of r, with the diagnoses a finished one can be
// compared with.
func (s *Server) taskView(c echo.Context, r report.Report) (pages.TaskView, error) {
	v := pages.TaskView{Report: r, CSRFToken: auth.CSRFToken(c), MinConversations: s.deps.Config.MinConversations}
	if comparable(r.Task) != nil {
		return v, nil
	}
	var err error
	v.CompareOptions, err = s.compareOptions(c, r.Task, "")
	return v, err
}
