package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/workers/detector"
)

// apiMaxLabels is the most labels one request of POST /api/v1/tasks/{id}/labels gives.
const apiMaxLabels = 500

// apiLabelsRequest is the body of POST /api/v1/tasks/{id}/labels.
type apiLabelsRequest struct {
	Labels []apiLabelInput `json:"labels"`
}

// apiLabelInput is one label: the conversation by its id in the export, and its
// outcome ("failed", "succeeded", or null to take the owner's label back); kept raw to
// tell null from a missing outcome.
type apiLabelInput struct {
	ConversationID string          `json:"conversation_id"`
	Outcome        json.RawMessage `json:"outcome"`
}

// apiLabels is the answer: each conversation's labels now, in the order asked, and the
// task's agent after the change (null for a task without one).
type apiLabels struct {
	Labels []apiLabel      `json:"labels"`
	Agent  *apiAgentLabels `json:"agent"`
}

// apiLabel is one conversation's labels: its outcome label and where it came from, and
// what its owner said, when.
type apiLabel struct {
	ConversationID string     `json:"conversation_id"`
	Seq            int        `json:"seq"`
	Label          *string    `json:"label"`
	LabelSource    *string    `json:"label_source"`
	ReviewedLabel  *string    `json:"reviewed_label"`
	ReviewedAt     *time.Time `json:"reviewed_at"`
}

// apiAgentLabels is what the task's agent has of the labels its detector needs.
type apiAgentLabels struct {
	Name          string `json:"name"`
	Failed        int    `json:"failed"`
	Succeeded     int    `json:"succeeded"`
	MinPerOutcome int    `json:"min_per_outcome"`
	HasDetector   bool   `json:"has_detector"`
	Learning      bool   `json:"learning"`
}

// apiTaskLabels is POST /api/v1/tasks/{id}/labels: the owner labels conversations of
// the task failed or succeeded, or takes their labels back, all of them or none. Labels
// make the agent's detector learn again as on the pages (store.SetLabels).
func (s *Server) apiTaskLabels(c echo.Context) error {
	id, err := taskID(c)
	if err != nil {
		return err
	}
	ctx, owner := c.Request().Context(), auth.OwnerFrom(c)
	if _, err := s.store.Task(ctx, id, owner); err != nil {
		return err
	}
	changes, err := labelChanges(c)
	if err != nil {
		return err
	}
	set, err := s.store.SetLabels(ctx, id, owner, changes, detector.MinPerOutcome)
	if refused := (*store.LabelsRefused)(nil); errors.As(err, &refused) {
		return &inputError{status: http.StatusUnprocessableEntity, field: "labels", msg: refusedSentence(refused)}
	}
	if err != nil {
		return err
	}
	out := apiLabels{Labels: make([]apiLabel, len(set.Conversations))}
	for i, l := range set.Conversations {
		out.Labels[i] = apiLabel{ConversationID: l.ExternalID, Seq: int(l.Seq), Label: l.Label, LabelSource: l.LabelSource,
			ReviewedLabel: l.ReviewedLabel, ReviewedAt: utc(l.ReviewedAt)}
	}
	if a := set.Agent; a != nil {
		out.Agent = &apiAgentLabels{Name: a.Name, Failed: a.Labels.Failed, Succeeded: a.Labels.Succeeded,
			MinPerOutcome: detector.MinPerOutcome, HasDetector: a.HasDetector, Learning: a.Learning}
	}
	return c.JSON(http.StatusOK, out)
}

// labelChanges reads the request's labels, or says what is wrong with them (the first
// problem, by the label's place in the list).
func labelChanges(c echo.Context) ([]store.LabelChange, error) {
	var body apiLabelsRequest
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || dec.More() {
		return nil, &inputError{status: http.StatusBadRequest, field: "labels", msg: locale.Msg("api_refused.labels_body")}
	}
	switch n := len(body.Labels); {
	case n == 0:
		return nil, &inputError{status: http.StatusUnprocessableEntity, field: "labels", msg: locale.Msg("api_refused.labels_empty")}
	case n > apiMaxLabels:
		return nil, &inputError{status: http.StatusUnprocessableEntity, field: "labels", msg: locale.Msg("api_refused.labels_many", "N", n, "Max", apiMaxLabels)}
	}
	out := make([]store.LabelChange, len(body.Labels))
	for i, l := range body.Labels {
		if strings.TrimSpace(l.ConversationID) == "" {
			return nil, &inputError{status: http.StatusUnprocessableEntity, field: "labels", msg: locale.Msg("api_refused.labels_no_id", "I", strconv.Itoa(i))}
		}
		outcome, ok := readOutcome(l.Outcome)
		if !ok {
			return nil, &inputError{status: http.StatusUnprocessableEntity, field: "labels", msg: locale.Msg("api_refused.labels_outcome",
				"I", strconv.Itoa(i), "ID", strconv.Quote(l.ConversationID), "Got", shownOutcome(l.Outcome))}
		}
		out[i] = store.LabelChange{ExternalID: l.ConversationID, Outcome: outcome}
	}
	return out, nil
}

// readOutcome reads an outcome: "failed", "succeeded", or null ("", to take the label
// back). A missing outcome is not null: it is refused, so that a mistyped field name
// never takes a label back.
func readOutcome(raw json.RawMessage) (string, bool) {
	switch v := string(bytes.TrimSpace(raw)); v {
	case "null":
		return "", true
	case `"failed"`, `"succeeded"`:
		return strings.Trim(v, `"`), true
	}
	return "", false
}

// shownOutcome is a refused outcome as the error quotes it.
func shownOutcome(raw json.RawMessage) locale.Text {
	if len(bytes.TrimSpace(raw)) == 0 {
		return locale.Msg("api_refused.missing")
	}
	if len(raw) > 40 {
		return locale.Lit(string(raw[:40]) + "…")
	}
	return locale.Lit(string(raw))
}

// refusedSentence says which conversations a change named that cannot be labeled.
func refusedSentence(e *store.LabelsRefused) locale.Text {
	var parts []locale.Text
	if len(e.Unknown) > 0 {
		parts = append(parts, locale.Msg("api_refused.labels_unknown", "IDs", quoted(e.Unknown)))
	}
	if len(e.NotKept) > 0 {
		parts = append(parts, locale.Msg("api_refused.labels_not_kept", "IDs", quoted(e.NotKept)))
	}
	if len(e.Twice) > 0 {
		parts = append(parts, locale.Msg("api_refused.labels_twice", "IDs", quoted(e.Twice)))
	}
	return locale.Msg("api_refused.labels_refused", "Parts", locale.UpperFirst(locale.Join("join.semicolon", parts...)))
}

// quoted lists the first few conversation ids, quoted: `"a", "b" and 3 more`.
func quoted(ids []string) locale.Text {
	const shown = 5
	var q []locale.Text
	for _, id := range ids[:min(shown, len(ids))] {
		q = append(q, locale.Lit(strconv.Quote(id)))
	}
	if len(ids) > shown {
		q = append(q, locale.Msg("ingest.and_more", "N", len(ids)-shown))
	}
	return locale.List(q...)
}
