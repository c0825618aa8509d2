package components

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQuoteLangIsTheQuotesScript: a quote is marked by its own script, never by the
// page's language.
func TestQuoteLangIsTheQuotesScript(t *testing.T) {
	t.Parallel()
	for quote, want := range map[string]string{
		"I’m flying on May 20.": "und",
		"Je voudrais annuler.":  "und",
		"我想申请退款，订单 W123 还没发货":   "zh",
		"book_reservation 失败了":  "zh",
		"予約をキャンセルしたい":           "ja",
		"환불해 주세요":               "ko",
		"":                      "und",
	} {
		require.Equal(t, want, QuoteLang(quote), quote)
	}
}
