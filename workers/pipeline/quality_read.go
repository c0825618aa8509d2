package pipeline

import (
	"context"
	"fmt"
	"iter"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/quality"
	"github.com/checkup-dev/checkup/workers/search"
)

// screenedPages yields the task's conversations page by page in upload order, each
// decoded, examined by checker, screened for risks (risk.Screener.Screen) and split
// into its search terms, on pageWorkers goroutines while the next page is read.
func (r *run) screenedPages(ctx context.Context, checker *quality.Checker) iter.Seq2[[]screenedConversation, error] {
	return func(yield func([]screenedConversation, error) bool) {
		var indexers [pageWorkers]*search.Indexer
		for i := range indexers {
			indexers[i] = search.NewIndexer()
		}
		for rows, err := range readAhead(ctx, r.lease.Task.ConversationCount, r.readConversations) {
			if err != nil {
				yield(nil, err)
				return
			}
			screened, err := r.screenPage(rows, checker, indexers)
			if !yield(screened, err) || err != nil {
				return
			}
		}
	}
}

// screenedConversation is a conversation of the quality pass, screened, with what its
// checks found and its search terms.
type screenedConversation struct {
	storedConversation
	examined quality.Examined
	terms    []string
}

// screenPage decodes and screens rows on pageWorkers goroutines, keeping their order;
// goroutine w indexes with indexers[w].
func (r *run) screenPage(rows []dbsqlc.ListConversationsAfterRow, checker *quality.Checker, indexers [pageWorkers]*search.Indexer) ([]screenedConversation, error) {
	out := make([]screenedConversation, len(rows))
	err := forEachOnWorkers(len(rows), func(w, i int) error {
		c, err := decodeConversation(rows[i].Seq, rows[i].ExternalID, rows[i].Messages, rows[i].Label)
		if err != nil {
			return err
		}
		c.flags = r.p.screener.Screen(c.conv)
		out[i] = screenedConversation{storedConversation: c, examined: checker.Examine(c.conv), terms: indexers[w].Terms(c.conv)}
		return nil
	})
	return out, err
}

// readConversations reads the transcripts of the seqs after..through.
func (r *run) readConversations(ctx context.Context, after, through int32) ([]dbsqlc.ListConversationsAfterRow, error) {
	rows, err := r.q.ListConversationsAfter(ctx, r.p.pool, dbsqlc.ListConversationsAfterParams{
		TaskID: r.id, OwnerUserID: r.owner, AfterSeq: after, ThroughSeq: through,
	})
	if err != nil {
		return nil, fmt.Errorf("pipeline: read conversations: %w", err)
	}
	return rows, nil
}
