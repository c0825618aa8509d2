package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/report/reporttest"
)

// A streamed report (the downloads) writes every file byte for byte as the report
// read whole does, for a finished task and for a running one.
func TestStreamedDownloadsEqualWholeOnes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, status := range []reporttest.Task{{}, {Status: "running"}} {
		b := setup(t, status)
		rows, err := b.store.TaskReport(context.Background(), b.inserted.ID, b.owner, store.ReportFull)
		require.NoError(t, err)
		whole, err := report.Build(rows, now, localetest.English(t))
		require.NoError(t, err)
		page, err := b.store.TaskReport(context.Background(), b.inserted.ID, b.owner, store.ReportPage)
		require.NoError(t, err)
		shown, err := report.Build(page, now, localetest.English(t))
		require.NoError(t, err)
		require.Len(t, shown.Clusters, len(whole.Clusters))
		for i, c := range whole.Clusters {
			require.Len(t, c.ConversationSeqs, c.Conversations, "report.json lists a cluster's conversations")
			require.Equal(t, c.Conversations, shown.Clusters[i].Conversations, "the page counts them")
			require.Nil(t, shown.Clusters[i].ConversationSeqs, "the page does not read the list")
		}
		var encoded, written bytes.Buffer
		enc := json.NewEncoder(&encoded)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(whole))
		require.NoError(t, report.WriteJSON(&written, whole))
		require.Equal(t, encoded.String(), written.String(), "report.json is the report as encoding/json writes it")
		markdown := func(w io.Writer, r report.Report) error { return report.WriteMarkdown(w, r, localetest.English(t)) }
		for _, write := range []func(io.Writer, report.Report) error{
			report.WriteJSON, report.WriteActionsCSV, report.WriteFindingsCSV, markdown,
		} {
			var want, got bytes.Buffer
			require.NoError(t, write(&want, whole))
			require.NoError(t, b.store.WithTaskReport(context.Background(), b.inserted.ID, b.owner,
				func(rows store.ReportRows, lists *store.ReportLists) error {
					r, err := report.Stream(rows, lists, now, localetest.English(t))
					if err != nil {
						return err
					}
					return write(&got, r)
				}))
			require.Equal(t, want.String(), got.String())
			require.Contains(t, got.String(), "conv-3", "the lists are there")
		}
	}
}
