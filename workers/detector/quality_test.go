package detector

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/checkup-dev/checkup/db/transcript"
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
				Doc:         Extract(l.Conversation, errorTurns, findingCategories(r.Value)),
				Fingerprint: TakeFingerprint(l.Conversation),
				Failed:      !l.Success,
			},
			scenario: scenarioOf(tb, l.Conversation.ID),
			rules:    r.Value.FailureScore,
		})
	}
	return out
}

func findingCategories(d analyzer.Diagnosis) []string {
	var out []string
	for _, f := range d.Findings {
		if !f.Expected {
			out = append(out, f.Category)
		}
	}
	return out
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
// cut, scored on the others.
type splitFigures struct {
	set                    string
	trained, unseen        int
	unseenFailed           int
	model                  *Model
	detector, rules        float64
	messages, users, tools float64
}

func measureSplit(tb testing.TB, set string, cut int, minPerOutcome int) (splitFigures, error) {
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
	m, err := train1(walkOf(train), minPerOutcome)
	if err != nil {
		return f, err
	}
	f.model = m
	var det, rules, msgs, users, tools []float64
	var failed []bool
	for _, e := range test {
		det = append(det, m.Score(e.Doc))
		rules = append(rules, e.rules)
		msgs = append(msgs, float64(e.Doc.Counts.Messages))
		users = append(users, float64(e.Doc.Counts.UserTurns))
		tools = append(tools, float64(e.Doc.Counts.ToolCalls))
		failed = append(failed, e.Failed)
		if e.Failed {
			f.unseenFailed++
		}
	}
	f.detector, f.rules = stats.AUROC(det, failed), stats.AUROC(rules, failed)
	f.messages, f.users, f.tools = stats.AUROC(msgs, failed), stats.AUROC(users, failed), stats.AUROC(tools, failed)
	return f, nil
}

func train1(walk Examples, _ int) (*Model, error) {
	m, _, err := Train(context.Background(), walk)
	return m, err
}

func (f splitFigures) String() string {
	e := f.model.Estimate
	return fmt.Sprintf("%s: trained on %d (%d failed), unseen %d (%d failed): detector %.3f | cv %.3f [%.3f, %.3f] (without findings %.3f, with %.3f; %d groups) | rules %.3f | messages %.3f user turns %.3f tool calls %.3f",
		f.set, f.trained, e.Failed, f.unseen, f.unseenFailed, f.detector, e.AUROC, e.Low, e.High, e.WithoutFindings, e.WithFindings, e.Groups, f.rules, f.messages, f.users, f.tools)
}

func TestExploreSplit(t *testing.T) {
	f, err := measureSplit(t, transcripttest.Airline, 13, MinPerOutcome)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(f)
	for _, tf := range f.model.TopFeatures(15) {
		t.Log(tf)
	}
	_ = transcript.LabelFailed
}

func TestExploreSplitReverse(t *testing.T) {
	all := sampleExamples(t, transcripttest.Airline)
	for _, e := range all {
		_ = e
	}
	for _, cut := range []int{13} {
		var train, test []sampleExample
		for _, e := range all {
			if e.scenario >= cut {
				train = append(train, e)
			} else {
				test = append(test, e)
			}
		}
		m, _, err := Train(context.Background(), walkOf(train))
		if err != nil {
			t.Fatal(err)
		}
		var det, msgs []float64
		var failed []bool
		for _, e := range test {
			det = append(det, m.Score(e.Doc))
			msgs = append(msgs, float64(e.Doc.Counts.Messages))
			failed = append(failed, e.Failed)
		}
		t.Logf("reverse: detector %.3f cv %.3f [%.3f %.3f] messages %.3f", stats.AUROC(det, failed), m.Estimate.AUROC, m.Estimate.Low, m.Estimate.High, stats.AUROC(msgs, failed))
	}
}

func TestExploreRetail(t *testing.T) {
	f, err := measureSplit(t, transcripttest.Retail, 25, MinPerOutcome)
	t.Log(f.trained, err)
	if err == nil {
		t.Log(f)
	}
}

func TestExploreGroupsCount(t *testing.T) {
	for _, set := range []string{transcripttest.Airline, transcripttest.Retail} {
		ex := sampleExamples(t, set)
		fps := make([]Fingerprint, len(ex))
		for i, e := range ex {
			fps[i] = e.Fingerprint
		}
		g := Groups(fps)
		byScenario := map[int]map[int]bool{}
		groups := map[int]bool{}
		for i, e := range ex {
			if byScenario[e.scenario] == nil {
				byScenario[e.scenario] = map[int]bool{}
			}
			byScenario[e.scenario][g[i]] = true
			groups[g[i]] = true
		}
		split := 0
		for _, s := range byScenario {
			if len(s) > 1 {
				split++
			}
		}
		t.Log(set, len(groups), "groups; scenarios split", split, "of", len(byScenario))
	}
}
