package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/workers/risk"
)

// TestRiskScreeningNamesTheAgent: the risk kinds speak of the diagnosed agent as the
// rest of the report does ("agent", 智能体), never "assistant" or 助手.
func TestRiskScreeningNamesTheAgent(t *testing.T) {
	t.Parallel()
	for _, l := range []*locale.Localizer{localetest.English(t), localetest.Chinese(t)} {
		agent := map[string]string{locale.English: "agent", locale.Chinese: "智能体"}[l.Code()]
		for _, kind := range risk.Kinds() {
			label := report.RiskKindLabel(l, kind)
			require.NotContains(t, strings.ToLower(label), "assistant", "%s %s", l.Code(), kind)
			require.NotContains(t, label, "助手", "%s %s", l.Code(), kind)
		}
		require.Contains(t, report.RiskKindLabel(l, risk.KindPersonalData), agent, l.Code())
		require.Contains(t, report.RiskKindLabel(l, risk.KindRefusal), agent, l.Code())
	}
}

// TestRefusalsAndPolicyDeclinesReadApart: risk screening counts turns worded as an
// outright refusal, for any reason; Expected behavior counts conversations where the
// agent says a request cannot be done, in any words, because its policy rules it out.
// The two counts differ on every sample, so their labels say what each counts.
func TestRefusalsAndPolicyDeclinesReadApart(t *testing.T) {
	t.Parallel()
	expected := report.Cluster{Type: "ACTION", Title: "Agent says a request cannot be done because its policy rules it out",
		TitleText: locale.Msg("rule.expected_refusal"), Conversations: 44, Expected: true,
		Policies: []string{"Basic economy flights cannot be modified."}}
	r := report.Report{
		Clusters:    []report.Cluster{expected},
		RiskSummary: &report.RiskSummary{Screened: 100, Flagged: 56, Selected: 100, Kinds: []report.RiskKind{{Kind: risk.KindRefusal, Conversations: 25, Flags: 45}}},
	}
	for _, c := range []struct {
		l              *locale.Localizer
		risk, declines string
	}{
		{localetest.English(t),
			"- Outright refusals by the agent (turns worded as a refusal, “I can't…” or “I'm unable to…”, for any reason; declines its policy calls for, in any words, are under Expected behavior): 25 conversations, 45 flags",
			"- Agent says a request cannot be done because its policy rules it out — 44 conversations"},
		{localetest.Chinese(t),
			"- 智能体的直接拒绝（以“我无法……”“我不能……”等拒绝措辞回复的轮次，不论原因；按其政策告知请求无法办理的，不论措辞，都列在“预期行为”中）：25 个对话，45 处标记",
			"- 智能体按其政策告知请求无法办理 — 44 个对话"},
	} {
		var md bytes.Buffer
		require.NoError(t, report.WriteMarkdown(&md, r, c.l))
		require.Contains(t, md.String(), c.risk+"\n", c.l.Code())
		require.Contains(t, md.String(), c.declines+"\n", c.l.Code())
	}
}
