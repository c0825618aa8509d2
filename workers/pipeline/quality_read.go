package pipeline

import (
	"context"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/workers/risk"
	"github.com/checkup-dev/checkup/workers/search"
)

// readPage is how many transcripts are read at a time: small enough that the next page
// is read while the current one is decoded and checked or diagnosed, and that the
// pages in flight stay a few megabytes.
const readPage = 50

// screenedPages yields the task's conversations page by page in upload order, each
// decoded, screened for risks (risk.Screener.Screen) and split into its search terms. A
// goroutine reads the next page while the current one is decoded and screened on
// screenWorkers goroutines, so PostgreSQL and both cores work at once.
func (r *run) screenedPages(ctx context.Context) iter.Seq2[[]screenedConversation, error] {
	return func(yield func([]screenedConversation, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		pages := make(chan rowPage, 1)
		go func() {
			defer close(pages)
			if err := protect(r.readPages, pageReader{ctx, pages}); err != nil { // a panic too
				select {
				case pages <- rowPage{err: err}:
				case <-ctx.Done():
				}
			}
		}()
		defer func() {
			cancel()
			for range pages { // the reader has returned once pages is closed
			}
		}()
		var indexers [screenWorkers]*search.Indexer
		for i := range indexers {
			indexers[i] = search.NewIndexer()
		}
		for p := range pages {
			if p.err != nil {
				yield(nil, p.err)
				return
			}
			screened, err := r.screenPage(p.rows, indexers)
			if !yield(screened, err) || err != nil {
				return
			}
		}
	}
}

// screenWorkers is how many goroutines decode and screen a page of the quality pass.
const screenWorkers = 2

// screenedConversation is a conversation of the quality pass with its risk flags and
// search terms.
type screenedConversation struct {
	storedConversation
	flags []risk.Flag
	terms []string
}

// screenPage decodes and screens rows on screenWorkers goroutines, keeping their order;
// goroutine i indexes with indexers[i].
func (r *run) screenPage(rows []dbsqlc.ListConversationsAfterRow, indexers [screenWorkers]*search.Indexer) ([]screenedConversation, error) {
	out := make([]screenedConversation, len(rows))
	errs := make([]error, len(rows))
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, ix := range indexers {
		screen := func(i int) error {
			c, err := decodeConversation(rows[i].Seq, rows[i].ExternalID, rows[i].Messages, rows[i].Label)
			if err != nil {
				return err
			}
			flags := r.p.screener.Screen(c.conv)
			c.toolErrors = toolErrorTurns(flags)
			out[i] = screenedConversation{storedConversation: c, flags: flags, terms: ix.Terms(c.conv)}
			return nil
		}
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(rows); i = int(next.Add(1) - 1) {
				errs[i] = protect(screen, i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rowPage is one page of stored conversations, or the error that ended them.
type rowPage struct {
	rows []dbsqlc.ListConversationsAfterRow
	err  error
}

// pageReader is where readPages sends pages, and until when.
type pageReader struct {
	ctx   context.Context
	pages chan<- rowPage
}

// readPages sends the task's conversations to p.pages, readPage seqs at a time, until
// the last page or the end of p.ctx, and returns the error that stopped it early.
func (r *run) readPages(p pageReader) error {
	last := r.lease.Task.ConversationCount
	for after := int32(0); after < last; after += readPage {
		rows, err := r.q.ListConversationsAfter(p.ctx, r.p.pool, dbsqlc.ListConversationsAfterParams{
			TaskID: r.id, OwnerUserID: r.owner, AfterSeq: after, ThroughSeq: after + readPage,
		})
		if err != nil {
			return fmt.Errorf("pipeline: read conversations: %w", err)
		}
		select {
		case p.pages <- rowPage{rows: rows}:
		case <-p.ctx.Done():
			return nil
		}
	}
	return nil
}
