package web

import (
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
)

// download is one of the task's files: its name suffix, content type and writer, and
// whether it is written for people in a language (?lang=, the reader's by default) or,
// like the data files, in the stable English of its identifiers.
type download struct {
	name        string
	contentType string
	write       func(io.Writer, report.Report, *locale.Localizer) error
	inLanguage  bool
}

// downloads lists the files every task offers, as routes under /tasks/:id/.
func downloads() []download {
	return []download{
		{"report.json", "application/json", ignoreLocale(report.WriteJSON), false},
		{"actions.csv", "text/csv; charset=utf-8", ignoreLocale(report.WriteActionsCSV), false},
		{"findings.csv", "text/csv; charset=utf-8", ignoreLocale(report.WriteFindingsCSV), false},
		{"report.md", "text/markdown; charset=utf-8", report.WriteMarkdown, true},
		{"labels.csv", "text/csv; charset=utf-8", ignoreLocale(report.WriteLabelsCSV), false},
	}
}

// ignoreLocale adapts a download written without words of its own to the table.
func ignoreLocale(write func(io.Writer, report.Report) error) func(io.Writer, report.Report, *locale.Localizer) error {
	return func(w io.Writer, r report.Report, _ *locale.Localizer) error { return write(w, r) }
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
		l := s.deps.Locales.English()
		if d.inLanguage {
			if l, err = s.downloadLanguage(c); err != nil {
				return err
			}
		}
		ctx := c.Request().Context()
		release, err := s.downloads.take(ctx, auth.OwnerFrom(c))
		if err != nil {
			return err
		}
		defer release()
		sending := false
		err = s.store.WithTaskReport(ctx, id, auth.OwnerFrom(c), func(rows store.ReportRows, lists *store.ReportLists) error {
			r, err := report.Stream(rows, lists, time.Now(), l)
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
			return d.write(w, r, l)
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

// downloadLanguage is the language a download for people is written in: ?lang= when
// given, else the reader's. A language Checkup does not write is refused.
func (s *Server) downloadLanguage(c echo.Context) (*locale.Localizer, error) {
	code := c.QueryParam("lang")
	if code == "" {
		return s.localizerOf(c), nil
	}
	l, ok := s.deps.Locales.For(code)
	if !ok {
		return nil, echo.NewHTTPError(http.StatusBadRequest, locale.Msg("download_refused.lang", "Value", strconv.Quote(truncate(code, 40))))
	}
	return l, nil
}
