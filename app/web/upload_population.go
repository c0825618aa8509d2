package web

import (
	"fmt"
	"net/http"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/views/components"
	"github.com/checkup-dev/checkup/views/pages"
	"github.com/checkup-dev/checkup/workers/quality"
)

// population runs the quality checks a task starts with (workers/quality: malformed,
// empty, too short, duplicate; none needs a model) over an upload's conversations as
// they are parsed, in the same order and with the same options as the pipeline (the
// defaults: no setting tunes them), until
// MIN_CONVERSATIONS of them are kept. A file that cannot reach it is refused at upload
// with the funnel's reasons, instead of being stored to end as insufficient_data. Once
// enough are kept it stops checking: later conversations cannot undo a kept one, and the
// pipeline checks them all anyway.
type population struct {
	checker *quality.Checker
	min     int
	kept    int
}

func newPopulation(min int) *population {
	return &population{checker: quality.NewChecker(quality.Options{}), min: min}
}

// add checks the next conversation of the upload.
func (p *population) add(c transcript.Conversation) {
	if p.kept < p.min && p.checker.Check(c).Status == quality.Kept {
		p.kept++
	}
}

// check is nil when the upload reached MIN_CONVERSATIONS, and the refusal otherwise.
func (p *population) check() error {
	if p.kept >= p.min {
		return nil
	}
	return &tooFewError{funnel: p.checker.Funnel(), min: p.min}
}

// tooFewError is the refusal of an upload with fewer usable conversations than
// MIN_CONVERSATIONS: the funnel says why the others were set aside.
type tooFewError struct {
	funnel quality.Funnel
	min    int
}

func (e *tooFewError) Error() string {
	return fmt.Sprintf("web: %d of %d conversations kept, %d needed", e.funnel.Kept(), e.funnel.Uploaded(), e.min)
}

// failure is what the upload page says: a line per reason of the funnel, and why the
// file cannot be diagnosed.
func (e *tooFewError) failure() (int, *pages.UploadFailure) {
	f := &pages.UploadFailure{}
	for _, step := range e.funnel.Steps {
		for _, r := range step.Reasons {
			f.Problems = append(f.Problems, fmt.Sprintf("%s: %s (%s)", step.Label, r.Reason,
				components.Plural(r.Count, "conversation", "conversations")))
		}
	}
	kept, uploaded := e.funnel.Kept(), e.funnel.Uploaded()
	// The PM reads the sentence; the setting's name tells the operator what to change.
	need := fmt.Sprintf("at least %d are needed for a diagnosis (MIN_CONVERSATIONS, set by whoever runs Checkup)", e.min)
	if e.min == 1 {
		need = "at least 1 is needed for a diagnosis (MIN_CONVERSATIONS, set by whoever runs Checkup)"
	}
	switch {
	case kept == uploaded:
		f.Reason = fmt.Sprintf("The file holds only %s, and %s. Upload an export with more conversations.",
			components.Plural(uploaded, "conversation", "conversations"), need)
	case kept == 0 && uploaded == 1:
		f.Reason = fmt.Sprintf("The file's only conversation cannot be diagnosed (the reasons are listed), and %s. Upload an export with usable conversations.", need)
	case kept == 0:
		f.Reason = fmt.Sprintf("None of the file's %s can be diagnosed (the reasons are listed), and %s. Upload an export with usable conversations.",
			components.Plural(uploaded, "conversation", "conversations"), need)
	default:
		f.Reason = fmt.Sprintf("Only %d of the file's %s can be diagnosed (the others are set aside for the reasons listed), and %s. Upload an export with more usable conversations.",
			kept, components.Plural(uploaded, "conversation", "conversations"), need)
	}
	return http.StatusUnprocessableEntity, f
}
