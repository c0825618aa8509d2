package web

import (
	"encoding/json"
	"time"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/views/components"
)

// The API's view of a task: TaskSummary and Task in openapi.json. Times are UTC;
// url is the task in the API, html_url its page.

// apiPrefix is where the API's routes live; its version changes only when a field is
// renamed, removed or given another meaning.
const apiPrefix = "/api/v1"

// apiTaskSummary is a task as the list shows it.
type apiTaskSummary struct {
	ID            string           `json:"id"`
	Title         string           `json:"title"`
	Status        taskstate.Status `json:"status"`
	Terminal      bool             `json:"terminal"`
	Stage         taskstate.Stage  `json:"stage"`
	Progress      apiProgress      `json:"progress"`
	Conversations int              `json:"conversations"`
	Rerun         bool             `json:"rerun"`
	Agent         string           `json:"agent"`
	CreatedAt     time.Time        `json:"created_at"`
	FinishedAt    *time.Time       `json:"finished_at"`
	URL           string           `json:"url"`
	HTMLURL       string           `json:"html_url"`
}

// apiProgress is how far the task's current stage is: done units out of total.
type apiProgress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// apiTask is one task with everything a script polls it for.
type apiTask struct {
	apiTaskSummary
	Error             string            `json:"error"`
	Attempt           int               `json:"attempt"`
	LostCount         int               `json:"lost_count"`
	Isolated          int               `json:"isolated"`
	CancelRequestedAt *time.Time        `json:"cancel_requested_at"`
	ProviderDownSince *time.Time        `json:"provider_down_since"`
	RerunOf           *string           `json:"rerun_of"`
	Source            apiSource         `json:"source"`
	Downloads         map[string]string `json:"downloads"`
	// FailureModel is the agent's detector that scored the task, as report.json's
	// failure_model; null when none did.
	FailureModel json.RawMessage `json:"failure_model"`
}

// apiSource is the file the task was made from.
type apiSource struct {
	Filename   string `json:"filename"`
	Format     string `json:"format"`
	Bytes      int64  `json:"bytes"`
	LabelField string `json:"label_field"`
}

// apiTaskURL is the API's URL of task id, absolute on BASE_URL.
func (s *Server) apiTaskURL(id string) string {
	return s.deps.Config.BaseURL + apiPrefix + "/tasks/" + id
}

func (s *Server) apiSummaryOf(r dbsqlc.ListAnalysisTasksRow) apiTaskSummary {
	id := r.ID.String()
	return apiTaskSummary{
		ID: id, Title: r.Title, Status: r.Status, Terminal: r.Status.Terminal(), Stage: r.Stage,
		Progress:      apiProgress{Done: int(r.ProgressDone), Total: int(r.ProgressTotal)},
		Conversations: int(r.ConversationCount), Rerun: r.Rerun, Agent: r.AgentName,
		CreatedAt: r.CreatedAt.UTC(), FinishedAt: utc(r.FinishedAt),
		URL: s.apiTaskURL(id), HTMLURL: s.deps.Config.BaseURL + string(components.TaskURL(id)),
	}
}

func (s *Server) apiTaskOf(t dbsqlc.GetAnalysisTaskStateRow) apiTask {
	out := apiTask{
		apiTaskSummary: s.apiSummaryOf(dbsqlc.ListAnalysisTasksRow{
			ID: t.ID, Title: t.Title, Status: t.Status, Stage: t.Stage, ProgressDone: t.ProgressDone,
			ProgressTotal: t.ProgressTotal, ConversationCount: t.ConversationCount, CreatedAt: t.CreatedAt,
			FinishedAt: t.FinishedAt, Rerun: t.RerunOf != nil, AgentName: t.AgentName,
		}),
		Error: t.Error, Attempt: int(t.Attempt), LostCount: int(t.LostCount), Isolated: int(t.Isolated),
		CancelRequestedAt: utc(t.CancelRequestedAt), ProviderDownSince: utc(t.ProviderDownSince),
		Source:    apiSource{Filename: t.SourceFilename, Format: t.SourceFormat, Bytes: t.SourceBytes, LabelField: t.LabelField},
		Downloads: map[string]string{}, FailureModel: json.RawMessage("null"),
	}
	if len(t.FailureModel) > 0 {
		out.FailureModel = t.FailureModel
	}
	if t.RerunOf != nil {
		of := t.RerunOf.String()
		out.RerunOf = &of
	}
	for _, d := range downloads() {
		out.Downloads[d.name] = out.URL + "/" + d.name
	}
	return out
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
