package web

import (
	"bytes"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/report"
	"github.com/checkup-dev/checkup/db/store"
)

// download is one of the task's files: its name suffix, content type and writer.
type download struct {
	name        string
	contentType string
	write       func(io.Writer, report.Report) error
}

// downloads lists the files every task offers, as routes under /tasks/:id/.
func downloads() []download {
	return []download{
		{"report.json", "application/json", report.WriteJSON},
		{"actions.csv", "text/csv; charset=utf-8", report.WriteActionsCSV},
		{"findings.csv", "text/csv; charset=utf-8", report.WriteFindingsCSV},
		{"report.md", "text/markdown; charset=utf-8", report.WriteMarkdown},
	}
}

// taskDownload serves d for the owner's task, finished or not (report.json says the
// current status, so scripts can poll it). The file is written to memory first, so an
// error is a clean 500 rather than half a file.
func (s *Server) taskDownload(d download) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := taskID(c)
		if err != nil {
			return err
		}
		r, err := s.taskReport(c, id, store.ReportFull)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := d.write(&buf, r); err != nil {
			return err
		}
		h := c.Response().Header()
		h.Set(echo.HeaderContentDisposition, report.ContentDisposition(r.Task.Title, r.Task.ID, d.name))
		return c.Blob(http.StatusOK, d.contentType, buf.Bytes())
	}
}
