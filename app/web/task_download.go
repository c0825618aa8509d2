package web

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
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
		{"labels.csv", "text/csv; charset=utf-8", report.WriteLabelsCSV},
	}
}

// taskDownload serves d for the owner's task, finished or not (report.json says the
// current status, so scripts can poll it). The file is written as it is read from one
// snapshot of the task (store.WithTaskReport), a page of findings or conversations at
// a time, so a download costs a page of memory whatever the task's size. A client must
// read it about as fast as an upload may be sent (sendDeadlines), and each user's
// downloads wait for their share of the slots (downloadSlots). Until the first byte is
// sent an error is the error page; after, the connection is cut, so the client sees a
// broken download, never a short file that looks whole.
func (s *Server) taskDownload(d download) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := taskID(c)
		if err != nil {
			return err
		}
		ctx := c.Request().Context()
		release, err := s.downloads.take(ctx, auth.OwnerFrom(c))
		if err != nil {
			return err
		}
		defer release()
		sending := false
		err = s.store.WithTaskReport(ctx, id, auth.OwnerFrom(c), func(rows store.ReportRows, lists *store.ReportLists) error {
			r, err := report.Stream(rows, lists, time.Now())
			if err != nil {
				return err
			}
			r.BaseURL = s.deps.Config.BaseURL
			h := c.Response().Header()
			h.Set(echo.HeaderContentType, d.contentType)
			h.Set(echo.HeaderContentDisposition, report.ContentDisposition(r.Task.Title, r.Task.ID, d.name))
			c.Response().WriteHeader(http.StatusOK)
			sending = true
			w := s.sendDeadlines(c)
			defer w.end()
			return d.write(w, r)
		})
		if err != nil && sending {
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				s.deps.Logger.Info("download cut: the client read it too slowly", "download", d.name, "task_id", id)
			case ctx.Err() == nil:
				s.deps.Logger.Error("download cut short", "download", d.name, "task_id", id, "err", err)
			}
			panic(http.ErrAbortHandler)
		}
		return err
	}
}
