package detector

// Summary is what report.json's failure_model says of a detector: the agent and
// version, what it learned from, how well it did on scenarios it had not seen (the
// cross-validated AUROC and its interval), what counting alone scores on the same
// conversations, and the features it weighs most.
type Summary struct {
	Agent         string     `json:"agent"`
	Version       int        `json:"version"`
	TrainedOn     int        `json:"trained_on"`
	Failed        int        `json:"failed"`
	Succeeded     int        `json:"succeeded"`
	Runs          int        `json:"runs"`
	Groups        int        `json:"groups"`
	CVAUROC       float64    `json:"cv_auroc"`
	CVInterval    [2]float64 `json:"cv_interval"`
	ReadsFindings bool       `json:"reads_findings"`
	Baselines     []Baseline `json:"baselines"`
	TopFeatures   []Feature  `json:"top_features"`
}

// topFeatures is how many features a summary lists.
const topFeatures = 10

// Summarise is m's summary as version of agent's detector, trained on the labels of
// runs runs.
func (m *Model) Summarise(agent string, version, runs int) Summary {
	e := m.Estimate
	return Summary{
		Agent: agent, Version: version, TrainedOn: e.TrainedOn, Failed: e.Failed, Succeeded: e.Succeeded,
		Runs: runs, Groups: e.Groups, CVAUROC: e.AUROC, CVInterval: [2]float64{e.Low, e.High},
		ReadsFindings: m.ReadsFindings, Baselines: e.Baselines, TopFeatures: m.TopFeatures(topFeatures),
	}
}
