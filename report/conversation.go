package report

import (
	"encoding/json"
	"fmt"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// ConversationDetail is one conversation as its page shows it: messages, risk flags
// and findings, read back from their stored JSON.
type ConversationDetail struct {
	Messages  []transcript.Message
	Flags     []RiskFlag
	Findings  []Finding
	Diagnosis *analyzer.Diagnosis // nil until diagnosed
}

// DecodeConversation reads a stored conversation, its diagnosis and its findings.
func DecodeConversation(c dbsqlc.TaskConversation, findings []dbsqlc.TaskFinding) (ConversationDetail, error) {
	var d ConversationDetail
	if err := json.Unmarshal(c.Messages, &d.Messages); err != nil {
		return d, fmt.Errorf("report: messages of conversation %d: %w", c.Seq, err)
	}
	if len(c.RiskFlags) > 0 {
		if err := json.Unmarshal(c.RiskFlags, &d.Flags); err != nil {
			return d, fmt.Errorf("report: risk flags of conversation %d: %w", c.Seq, err)
		}
	}
	if len(c.Diagnosis) > 0 && string(c.Diagnosis) != "null" {
		d.Diagnosis = &analyzer.Diagnosis{}
		if err := json.Unmarshal(c.Diagnosis, d.Diagnosis); err != nil {
			return d, fmt.Errorf("report: diagnosis of conversation %d: %w", c.Seq, err)
		}
	}
	for _, f := range findings {
		fd, err := buildFinding(dbsqlc.ListTaskFindingsRow{
			ConversationSeq: f.ConversationSeq, Idx: f.Idx, Type: f.Type, Category: f.Category, Title: f.Title,
			Description: f.Description, Severity: f.Severity, Confidence: f.Confidence, PriorityScore: f.PriorityScore,
			Evidence: f.Evidence, ClusterIdx: f.ClusterIdx, ExternalID: c.ExternalID, Expected: f.Expected, Policy: f.Policy, Text: f.Text,
		}, nil)
		if err != nil {
			return d, err
		}
		d.Findings = append(d.Findings, fd)
	}
	return d, nil
}
