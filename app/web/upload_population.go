package web

import (
	"fmt"
	"net/http"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
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
func (e *tooFewError) failure() (int, *refused) {
	f := &refused{}
	for _, step := range e.funnel.Steps {
		for _, r := range step.Reasons {
			f.problems = append(f.problems, locale.Msg("too_few.reason", "Step", locale.Msg("funnel_step."+step.Step),
				"Reason", r.Reason, "Conversations", locale.Msg("count.conversations", "Count", r.Count)))
		}
	}
	kept, uploaded := e.funnel.Kept(), e.funnel.Uploaded()
	// The PM reads the sentence; the setting's name tells the operator what to change.
	need := locale.Msg("too_few.need", "Count", e.min)
	switch {
	case kept == uploaded:
		f.reason = locale.Msg("too_few.only", "Conversations", locale.Msg("count.conversations", "Count", uploaded), "Need", need)
	case kept == 0 && uploaded == 1:
		f.reason = locale.Msg("too_few.only_one", "Need", need)
	case kept == 0:
		f.reason = locale.Msg("too_few.none", "Conversations", locale.Msg("count.conversations", "Count", uploaded), "Need", need)
	default:
		f.reason = locale.Msg("too_few.some", "Kept", kept, "Conversations", locale.Msg("count.conversations", "Count", uploaded), "Need", need)
	}
	return http.StatusUnprocessableEntity, f
}
