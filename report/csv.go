package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// bom is the UTF-8 byte order mark that starts every CSV download: without it Excel on
// Windows reads the file in the local code page and garbles every non-ASCII character.
// Other spreadsheets and CSV readers skip it (Go's encoding/csv keeps it in the first
// header cell).
const bom = "\ufeff"

// WriteActionsCSV writes actions.csv: one row per ranked Action, in rank order, after
// the byte order mark. share_percent is the share of the analyzed conversations written
// as the page and report.md write it ("6.5%", which spreadsheets read as a number);
// report.json keeps the fraction. evidence_links has, line for line with evidence, the
// address of each quoted turn on the dashboard. support_basis, support_explained and
// support_reach are what the rows are ranked by (report.json's support), so a
// spreadsheet can see the order the priority_score column does not give.
func WriteActionsCSV(w io.Writer, r Report) error {
	if _, err := io.WriteString(w, bom); err != nil {
		return fmt.Errorf("report: actions.csv: %w", err)
	}
	cw := csv.NewWriter(w)
	write := func(cells ...string) { _ = cw.Write(neutralise(cells)) }
	write("rank", "type", "category", "title", "conversations", "share_percent", "priority_score",
		"prevalence_term", "severity_term", "confidence_term", "severity", "confidence",
		"problem", "recommendation", "expected_impact", "fix_location", "evidence", "evidence_links",
		"failed", "succeeded", "excess_failures", "q_value", "support_basis", "support_explained", "support_reach")
	for _, a := range r.Actions {
		// With outcome labels, the split of the Action's issue and the failures it
		// explains beyond its size. Empty without labels.
		failed, succeeded, excess, q := "", "", "", ""
		if o := a.LabelOutcomes; o != nil && a.ExcessFailures != nil && a.QValue != nil {
			failed, succeeded, excess, q = strconv.Itoa(o.Failed), strconv.Itoa(o.Succeeded), num(*a.ExcessFailures), num(*a.QValue)
		}
		steps := make([]string, len(a.Recommendation))
		for i, s := range a.Recommendation {
			steps[i] = strconv.Itoa(i+1) + ". " + s
		}
		quotes := make([]string, len(a.Evidence))
		links := make([]string, len(a.Evidence))
		for i, q := range a.Evidence {
			quotes[i] = fmt.Sprintf("%s turn %d: %s", conversationName(q.ConversationID, q.ConversationSeq), q.Turn, q.Quote)
			links[i] = ConversationLink(r.BaseURL, r.Task.ID, q.ConversationSeq, q.Turn)
		}
		p := a.PriorityParts
		write(strconv.Itoa(a.Rank), a.Type, a.Category, a.Title, strconv.Itoa(a.Conversations), Percent(a.Share),
			num(a.PriorityScore), num(p.PrevalenceTerm), num(p.SeverityTerm), num(p.ConfidenceTerm),
			num(a.Severity), num(a.Confidence), a.Problem, strings.Join(steps, "\n"), a.ExpectedImpact,
			a.FixLocation, strings.Join(quotes, "\n"), strings.Join(links, "\n"), failed, succeeded, excess, q,
			a.Support.Basis, num(a.Support.Explained), strconv.FormatFloat(a.Support.Reach, 'f', -1, 64))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: actions.csv: %w", err)
	}
	return nil
}

// WriteFindingsCSV writes findings.csv: one row per finding with its conversation,
// the turn and quote of its first piece of evidence, and any further evidence in
// more_evidence. It starts with the byte order mark, like actions.csv.
func WriteFindingsCSV(w io.Writer, r Report) error {
	if _, err := io.WriteString(w, bom); err != nil {
		return fmt.Errorf("report: findings.csv: %w", err)
	}
	cw := csv.NewWriter(w)
	write := func(cells ...string) { _ = cw.Write(neutralise(cells)) }
	write("conversation_seq", "conversation_id", "finding_idx", "type", "category", "title", "description",
		"severity", "confidence", "priority_score", "action_rank", "turn", "quote", "quote_verified", "more_evidence",
		"issue_idx", "expected")
	markedExpected := map[int]bool{}
	for _, c := range r.Clusters {
		markedExpected[c.Idx] = c.Expected
	}
	for f, err := range r.AllFindings() {
		if err != nil {
			return fmt.Errorf("report: findings.csv: %w", err)
		}
		turn, quote, verified := "", "", ""
		var more []string
		for i, e := range f.Evidence {
			if i == 0 {
				turn, quote, verified = strconv.Itoa(e.Turn), e.Quote, strconv.FormatBool(e.Verified)
				continue
			}
			more = append(more, fmt.Sprintf("turn %d: %s", e.Turn, e.Quote))
		}
		rank := ""
		if f.ActionRank > 0 {
			rank = strconv.Itoa(f.ActionRank)
		}
		// A finding in an issue is expected as its issue is, whoever said so: the policy,
		// the owner's mark, or the owner's word that it is not. report.json's findings
		// keep their own expected, which is the policy's.
		issue, expected := "", f.Expected
		if f.ClusterIdx != nil {
			issue, expected = strconv.Itoa(*f.ClusterIdx), markedExpected[*f.ClusterIdx]
		}
		write(strconv.Itoa(f.ConversationSeq), f.ConversationID, strconv.Itoa(f.Idx), f.Type, f.Category,
			f.Title, f.Description, strconv.Itoa(f.Severity), num(f.Confidence), num(f.PriorityScore), rank,
			turn, quote, verified, strings.Join(more, "\n"), issue, strconv.FormatBool(expected))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: findings.csv: %w", err)
	}
	return nil
}

// neutralise defuses formula injection: a spreadsheet runs a cell that starts with
// = + - @ (or a tab or carriage return) as a formula, so such cells get a leading
// apostrophe, which spreadsheets show as text. A negative number ("-0.38") is left as
// it is, for the spreadsheet to read as a number: it runs nothing.
func neutralise(cells []string) []string {
	for i, c := range cells {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) && !negativeNumber(c) {
			cells[i] = "'" + c
		}
	}
	return cells
}

// negativeNumber reports whether c is a minus sign and digits, with at most one point.
func negativeNumber(c string) bool {
	digits, point := 0, false
	for i, r := range c {
		switch {
		case i == 0:
			if r != '-' {
				return false
			}
		case r >= '0' && r <= '9':
			digits++
		case r == '.' && !point:
			point = true
		default:
			return false
		}
	}
	return digits > 0
}

// num formats a score or share compactly: no exponent, at most four decimals.
func num(f float64) string {
	return strconv.FormatFloat(roundTo(f, 4), 'f', -1, 64)
}

// ConversationLink is the address of a turn of a conversation of a task on the
// dashboard at base (BASE_URL): /tasks/{id}/conversations/{seq}#turn-{turn}, without
// the fragment for turn 0.
func ConversationLink(base, taskID string, seq, turn int) string {
	u := strings.TrimRight(base, "/") + "/tasks/" + taskID + "/conversations/" + strconv.Itoa(seq)
	if turn > 0 {
		u += "#turn-" + strconv.Itoa(turn)
	}
	return u
}

// conversationName is how a conversation is named in text: its export id, or its
// number in the upload when it had none.
func conversationName(id string, seq int) string {
	if id != "" {
		return id
	}
	return "#" + strconv.Itoa(seq)
}
