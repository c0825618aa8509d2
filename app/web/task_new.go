package web

import (
	"cmp"
	"errors"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/views/pages"
)

// taskNew is the upload page: the form, the accepted formats with an example of each,
// and the limits. A user with no room for another diagnosis is told so before choosing
// a file, rather than after sending it.
func (s *Server) taskNew(c echo.Context) error {
	var failure *refused
	var fe *formError
	switch err := s.roomForATask(c.Request().Context(), auth.OwnerFrom(c)); {
	case errors.As(err, &fe):
		failure = &refused{reason: fe.msg}
	case err != nil:
		// The upload counts again before it is stored: the form is worth showing.
		s.logger(c).Warn("upload page: could not count the unfinished tasks", "err", err)
	}
	return s.renderUpload(c, http.StatusOK, "", "", "", failure)
}

// renderUpload shows the upload form with the title, the agent's name and the language
// kept and the reasons of a refused upload, as the whole page or, for htmx, as the
// form's panel alone. The agent's field offers the owner's agents; the language is the
// owner's until they choose another.
func (s *Server) renderUpload(c echo.Context, status int, title, agent, language string, failure *refused) error {
	lim := s.uploadLimits()
	agents, err := s.store.Agents(c.Request().Context(), auth.OwnerFrom(c))
	if err != nil {
		return err
	}
	l := s.localizerOf(c)
	if !slices.Contains(locale.Codes(), language) {
		language = l.Code()
	}
	v := pages.TaskNewView{
		CSRFToken: auth.CSRFToken(c),
		Title:     title,
		Agent:     agent,
		Language:  language,
		Failure:   failure.page(l),
		Limits: pages.UploadLimits{
			MaxUploadMB:          s.deps.Config.MaxUploadMB,
			MaxDecompressedBytes: lim.MaxDecompressedBytes,
			MaxLineBytes:         lim.MaxLineBytes,
			MaxConversations:     lim.MaxConversations,
			MaxMessages:          lim.MaxMessages,
			MaxMessageChars:      lim.MaxMessageChars,
			MinConversations:     s.deps.Config.MinConversations,
			MaxUnfinished:        s.deps.Config.MaxUnfinishedTasks,
		},
	}
	for _, a := range agents {
		v.Agents = append(v.Agents, a.Name)
	}
	return renderPage(c, status, pages.TaskNew(s.page(c, l.T("upload.page_title")), v), pages.TaskNewForm(v))
}

// uploadLimits are the ingest limits in force: Deps.Ingest over ingest's defaults, with
// the decompressed size never below MAX_UPLOAD_MB, so a plain file the upload limit lets
// through is not refused for its size once "decompressed".
func (s *Server) uploadLimits() ingest.Limits {
	set, def := s.deps.Ingest, ingest.DefaultLimits()
	return ingest.Limits{
		MaxDecompressedBytes: cmp.Or(set.MaxDecompressedBytes, max(def.MaxDecompressedBytes, s.deps.Config.MaxUploadBytes())),
		MaxLineBytes:         cmp.Or(set.MaxLineBytes, def.MaxLineBytes),
		MaxConversations:     cmp.Or(set.MaxConversations, def.MaxConversations),
		MaxMessages:          cmp.Or(set.MaxMessages, def.MaxMessages),
		MaxMessageChars:      cmp.Or(set.MaxMessageChars, def.MaxMessageChars),
	}
}
