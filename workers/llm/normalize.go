package llm

import (
	"strings"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

// normalizeDiagnosis is analyzer.NormalizeDiagnosis for a model's answer, then the
// limits the schema's maxItems states, which not every server enforces: at most
// analyzer.MaxFindings findings and analyzer.MaxEvidence evidence items each, the rest
// dropped and counted. Quotes copied across lines of a turn lose the prompt's
// continuation marks, and Evidence.Verified is cleared: it is the pipeline's to set.
func normalizeDiagnosis(d analyzer.Diagnosis, turns int) (analyzer.Diagnosis, analyzer.Adjustments) {
	for i := range d.Findings {
		ev := make([]analyzer.Evidence, len(d.Findings[i].Evidence))
		for j, e := range d.Findings[i].Evidence {
			e.Quote = strings.ReplaceAll(e.Quote, continuation, "\n")
			e.Verified = false
			ev[j] = e
		}
		d.Findings[i].Evidence = ev
	}
	d = analyzer.NormalizeDiagnosis(d, turns)
	var adj analyzer.Adjustments
	if n := len(d.Findings); n > analyzer.MaxFindings {
		adj.DroppedFindings = n - analyzer.MaxFindings
		d.Findings = d.Findings[:analyzer.MaxFindings]
	}
	for i := range d.Findings {
		if n := len(d.Findings[i].Evidence); n > analyzer.MaxEvidence {
			adj.DroppedEvidence += n - analyzer.MaxEvidence
			d.Findings[i].Evidence = d.Findings[i].Evidence[:analyzer.MaxEvidence]
		}
	}
	return d, adj
}
