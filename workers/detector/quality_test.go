package detector

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/stats"
)

// scenarioOf reads the scenario number a sample conversation's id carries
// ("airline-task07-trial2" → 7): the split keeps every retry of a scenario on one side.
func scenarioOf(tb testing.TB, id string) int {
	tb.Helper()
	m := regexp.MustCompile(`task(\d+)`).FindStringSubmatch(id)
	if m == nil {
		tb.Fatalf("no scenario in id %q", id)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// sampleExample is a sample conversation as the pipeline hands it to the detector:
// its terms with the offline diagnosis' categories and the tool errors risk screening
// flags, read without its label.
type sampleExample struct {
	Example
	scenario int
	rules    float64 // the offline analysis' failure score
}

func sampleExamples(tb testing.TB, set string) []sampleExample {
	tb.Helper()
	a := offline.New(offline.Options{})
	screener := risk.NewScreener()
	var out []sampleExample
	for _, l := range transcripttest.LabelledSet(tb, set) {
		r, err := a.Diagnose(context.Background(), l.Conversation)
		if err != nil {
			tb.Fatal(err)
		}
		var errorTurns []int
		for _, f := range screener.Screen(l.Conversation) {
			if f.Kind == risk.KindToolError {
				errorTurns = append(errorTurns, f.Turn)
			}
		}
		out = append(out, sampleExample{
			Example: Example{
				Doc:         Extract(l.Conversation, errorTurns, findingCategories(r.Value), r.Value.FailureScore),
				Fingerprint: TakeFingerprint(l.Conversation),
				Failed:      !l.Success,
			},
			scenario: scenarioOf(tb, l.Conversation.ID),
			rules:    r.Value.FailureScore,
		})
	}
	return out
}

func findingCategories(d analyzer.Diagnosis) []string { // distinct and sorted, as the diagnosis stores them
	var out []string
	for _, f := range d.Findings {
		if !f.Expected {
			out = append(out, f.Category)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func walkOf(examples []sampleExample) Examples {
	return func(_ context.Context, yield func(Example) error) error {
		for _, e := range examples {
			if err := yield(e.Example); err != nil {
				return err
			}
		}
		return nil
	}
}

// splitFigures are the figures of one split: a detector trained on the scenarios below
// cut, scored on the others with their labels unread.
type splitFigures struct {
	set                    string
	trained, unseen        int
	trainedFailed          int
	unseenFailed           int
	model                  *Model // nil when the trained half has too few labels
	detector, rules        float64
	messages, users, tools float64
}

// measureSplit trains on the scenarios below cut and scores the rest. A trained half
// with too few labels of an outcome has no detector: the figures then hold the
// baselines and the rules' only, with the error.
func measureSplit(tb testing.TB, set string, cut int) (splitFigures, error) {
	tb.Helper()
	all := sampleExamples(tb, set)
	var train, test []sampleExample
	for _, e := range all {
		if e.scenario < cut {
			train = append(train, e)
		} else {
			test = append(test, e)
		}
	}
	f := splitFigures{set: set, trained: len(train), unseen: len(test)}
	for _, e := range train {
		if e.Failed {
			f.trainedFailed++
		}
	}
	m, _, trainErr := Train(context.Background(), walkOf(train))
	f.model = m
	var det, rules, msgs, users, tools []float64
	var failed []bool
	for _, e := range test {
		if m != nil {
			det = append(det, m.Score(e.Doc))
		}
		rules = append(rules, e.rules)
		msgs = append(msgs, float64(e.Doc.Counts.Messages))
		users = append(users, float64(e.Doc.Counts.UserTurns))
		tools = append(tools, float64(e.Doc.Counts.ToolCalls))
		failed = append(failed, e.Failed)
		if e.Failed {
			f.unseenFailed++
		}
	}
	if m != nil {
		f.detector = stats.AUROC(det, failed)
	}
	f.rules = stats.AUROC(rules, failed)
	f.messages, f.users, f.tools = stats.AUROC(msgs, failed), stats.AUROC(users, failed), stats.AUROC(tools, failed)
	return f, trainErr
}
