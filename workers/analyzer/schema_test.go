package analyzer

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale/localetest"
)

func TestBestEvidence(t *testing.T) {
	t.Parallel()
	_, ok := BestEvidence(nil)
	require.False(t, ok)
	first, verified := Evidence{Turn: 1, Quote: "a"}, Evidence{Turn: 2, Quote: "b", Verified: true}
	got, ok := BestEvidence([]Evidence{first, verified})
	require.True(t, ok)
	require.Equal(t, verified, got, "a verified quote first")
	got, _ = BestEvidence([]Evidence{first, {Turn: 3, Quote: "c"}})
	require.Equal(t, first, got, "else the first")
	call, said := Evidence{Turn: 4, Quote: "book({})", Verified: true, Speaker: SpeakerCall}, Evidence{Turn: 5, Quote: "Booked", Verified: true, Speaker: SpeakerAgent}
	got, _ = BestEvidence([]Evidence{first, call, said})
	require.Equal(t, said, got, "words before a serialized call")
	got, _ = BestEvidence([]Evidence{first, call})
	require.Equal(t, call, got, "a verified call before an unverified quote")
}

func TestFindingTypeBadgeReadsInTheReadersLanguage(t *testing.T) {
	en, zh := localetest.English(t), localetest.Chinese(t)
	require.Equal(t, "RISK", en.Text(TypeRisk.Badge()))
	require.Equal(t, "风险", zh.Text(TypeRisk.Badge()))
	require.Equal(t, "改进", zh.Text(TypeAction.Badge()))
	require.Equal(t, "OTHER", zh.Text(FindingType("OTHER").Badge()), "an unknown type keeps its identifier")
}
