package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// The conversation list of a task for its owner: filtered, searched and sorted pages of
// its kept conversations.

// ConversationSort is what the conversation list is ordered by, highest first, ties in
// upload order.
type ConversationSort string

// The sorts of the conversation list.
const (
	SortFailure  ConversationSort = "failure"  // failure score; conversations not diagnosed last
	SortTurns    ConversationSort = "turns"    // messages
	SortSeverity ConversationSort = "severity" // the highest severity of the findings that are not expected behaviour
)

// Sorts are the sorts the list offers, the default first.
func Sorts() []ConversationSort { return []ConversationSort{SortFailure, SortTurns, SortSeverity} }

// ConversationCursor is where the next page of a conversation list starts: the sort key
// and seq of the last conversation shown, which the sort's index is ordered by.
type ConversationCursor struct {
	Score    float32 // SortFailure: the failure score, -1 when not diagnosed
	Turns    int32   // SortTurns
	Severity int32   // SortSeverity
	Seq      int32
}

// String encodes the cursor of a list sorted by sort for a URL: the key, an underscore
// and the seq. A score is written with as many digits as it needs to read back the same.
func (c ConversationCursor) String(sort ConversationSort) string {
	var key string
	switch sort {
	case SortTurns:
		key = strconv.Itoa(int(c.Turns))
	case SortSeverity:
		key = strconv.Itoa(int(c.Severity))
	default:
		key = strconv.FormatFloat(float64(c.Score), 'g', -1, 32)
	}
	return key + "_" + strconv.Itoa(int(c.Seq))
}

// ErrBadConversationCursor means a cursor did not come from ConversationCursor.String
// for the list's sort.
var ErrBadConversationCursor = errors.New("store: bad conversation list cursor")

// ParseConversationCursor decodes ConversationCursor.String for a list sorted by sort.
func ParseConversationCursor(sort ConversationSort, s string) (ConversationCursor, error) {
	key, seqText, ok := strings.Cut(s, "_")
	if !ok {
		return ConversationCursor{}, ErrBadConversationCursor
	}
	seq, err := strconv.ParseInt(seqText, 10, 32)
	if err != nil || seq < 0 {
		return ConversationCursor{}, ErrBadConversationCursor
	}
	c := ConversationCursor{Seq: int32(seq)}
	switch sort {
	case SortTurns, SortSeverity:
		n, err := strconv.ParseInt(key, 10, 32)
		if err != nil {
			return ConversationCursor{}, ErrBadConversationCursor
		}
		c.Turns, c.Severity = int32(n), int32(n)
	default:
		f, err := strconv.ParseFloat(key, 32)
		if err != nil || f != f { // NaN compares with nothing
			return ConversationCursor{}, ErrBadConversationCursor
		}
		c.Score = float32(f)
	}
	return c, nil
}

// ConversationFilter says which of a task's kept conversations a page lists; a nil
// field filters nothing.
type ConversationFilter struct {
	Sort        ConversationSort
	Cluster     *int32  // the conversations of this cluster
	Driver      *int32  // the labelled conversations with this failure driver's feature
	Category    *string // with a finding of this category that is not expected behaviour
	MinSeverity *int32  // whose most severe such finding is at least this severe
	Label       *string // with this outcome label: "failed" or "succeeded"
	Risk        *string // with a risk flag of this kind
	Query       string  // a tsquery of search terms (search.Query); "" for none
	After       *ConversationCursor
	// CountMatches asks for a search's matches to be counted with the page, as its
	// list shows them: cheap when they are few (FewMatches), and not counted when they
	// are more. Other filters are counted on their own (CountConversations).
	CountMatches bool
}

// ConversationList is one page of a task's conversations, with what the page names its
// filters by. Next is nil on the last page.
type ConversationList struct {
	Task          dbsqlc.AnalysisTask
	Clusters      []dbsqlc.ListClusterNamesRow
	Drivers       []dbsqlc.ListDriverNamesRow
	Conversations []dbsqlc.ListTaskConversationsRow
	Next          *ConversationCursor
	// Unsearchable is set when a search found nothing because the task has no search
	// documents: it was diagnosed before they were stored.
	Unsearchable bool
	// Matches is how many conversations a search lets through with the filters, when
	// asked (CountMatches) and it matched few enough to count (FewMatches); nil
	// otherwise. ManyMatches is set when the search alone matched more than that.
	Matches     *int
	ManyMatches bool
}

// Conversations reads up to limit of owner's task's kept conversations that f lets
// through, in one read-only snapshot: the task (a task that does not exist or belongs
// to someone else is ErrNotFound), the names of its clusters and drivers, and the page,
// one query that reads one row more than it shows to know whether a next page exists;
// a search first reads the conversations it matches when they are few (searchFirst),
// and when it found nothing, whether the task can be searched at all.
func (s *Store) Conversations(ctx context.Context, id uuid.UUID, owner Owner, f ConversationFilter, limit int) (ConversationList, error) {
	var l ConversationList
	uid := owner.UserID()
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			if err := s.readMenus(ctx, tx, id, uid, &l); err != nil {
				return err
			}
			var err error
			p := listParams(id, uid, f, limit+1)
			if f.Query != "" {
				if err := s.searchFirst(ctx, tx, &p); err != nil {
					return fmt.Errorf("search: %w", err)
				}
				if f.CountMatches {
					if l.Matches, l.ManyMatches, err = s.countMatches(ctx, tx, p); err != nil {
						return fmt.Errorf("count matches: %w", err)
					}
				}
			}
			if l.Conversations, err = s.q.ListTaskConversations(ctx, planned{tx}, p); err != nil {
				return err
			}
			if f.Query == "" || len(l.Conversations) > 0 || f.After != nil {
				return nil
			}
			searchable, err := s.q.TaskHasSearch(ctx, tx, dbsqlc.TaskHasSearchParams{TaskID: id, OwnerUserID: uid})
			l.Unsearchable = !searchable
			return err
		})
	if err != nil {
		return ConversationList{}, readError("conversations", err)
	}
	if len(l.Conversations) > limit {
		l.Conversations = l.Conversations[:limit]
		last := l.Conversations[limit-1]
		next := ConversationCursor{Score: -1, Turns: last.MessageCount, Severity: last.MaxSeverity, Seq: last.Seq}
		if last.FailureScore != nil {
			next.Score = *last.FailureScore
		}
		l.Next = &next
	}
	return l, nil
}

// ConversationMenus reads what the conversation list's filter form offers of owner's
// task, in one read-only snapshot: the task (ErrNotFound for one that does not exist
// or belongs to someone else) and the names of its clusters and drivers. A list whose
// filters were refused shows the form with them.
func (s *Store) ConversationMenus(ctx context.Context, id uuid.UUID, owner Owner) (ConversationList, error) {
	var l ConversationList
	uid := owner.UserID()
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return s.readMenus(ctx, tx, id, uid, &l) })
	if err != nil {
		return ConversationList{}, readError("conversation menus", err)
	}
	return l, nil
}

// readMenus reads the task and the names of its clusters and drivers into l.
func (s *Store) readMenus(ctx context.Context, tx pgx.Tx, id uuid.UUID, uid int64, l *ConversationList) error {
	var err error
	if l.Task, err = s.q.GetAnalysisTask(ctx, tx, dbsqlc.GetAnalysisTaskParams{ID: id, OwnerUserID: uid}); err != nil {
		return err
	}
	if l.Clusters, err = s.q.ListClusterNames(ctx, tx, dbsqlc.ListClusterNamesParams{TaskID: id, OwnerUserID: uid}); err != nil {
		return fmt.Errorf("clusters: %w", err)
	}
	if l.Drivers, err = s.q.ListDriverNames(ctx, tx, dbsqlc.ListDriverNamesParams{TaskID: id, OwnerUserID: uid}); err != nil {
		return fmt.Errorf("drivers: %w", err)
	}
	return nil
}

// ConversationWithID returns the seq of owner's task's conversation whose id in the
// upload is external, and whether there is one.
func (s *Store) ConversationWithID(ctx context.Context, id uuid.UUID, owner Owner, external string) (int32, bool, error) {
	// As typed, then in lower case: ids are mostly written in it, and a person copying
	// one from a title or a log may not keep its case. Each is one lookup of the task's
	// unique index on its ids.
	for _, try := range slices.Compact([]string{external, strings.ToLower(external)}) {
		seqs, err := s.q.FindConversationSeq(ctx, s.pool, dbsqlc.FindConversationSeqParams{TaskID: id, OwnerUserID: owner.UserID(), ExternalID: try})
		if err != nil {
			return 0, false, readError("conversation by id", err)
		}
		if len(seqs) > 0 {
			return seqs[0], true, nil
		}
	}
	return 0, false, nil
}

// IDMatch is a conversation found by the start of its id from the upload.
type IDMatch struct {
	Seq int32
	ID  string
}

// ConversationsWithIDPrefix lists owner's task's conversations whose id from the
// upload starts with prefix (as typed, else in lower case), by id, at most limit.
func (s *Store) ConversationsWithIDPrefix(ctx context.Context, id uuid.UUID, owner Owner, prefix string, limit int) ([]IDMatch, error) {
	for _, try := range slices.Compact([]string{prefix, strings.ToLower(prefix)}) {
		rows, err := s.q.ListConversationIDsByPrefix(ctx, s.pool, dbsqlc.ListConversationIDsByPrefixParams{
			TaskID: id, OwnerUserID: owner.UserID(), Prefix: try, MaxRows: int32(limit)})
		if err != nil {
			return nil, readError("conversations by the start of their id", err)
		}
		if len(rows) > 0 {
			out := make([]IDMatch, len(rows))
			for i, r := range rows {
				out[i] = IDMatch{Seq: r.Seq, ID: r.ExternalID}
			}
			return out, nil
		}
	}
	return nil, nil
}

// ConversationMessages reads the messages of owner's task's conversations seqs as
// stored (a JSON array each), by seq: what a page of search results quotes from,
// decoding only as far as it needs.
func (s *Store) ConversationMessages(ctx context.Context, id uuid.UUID, owner Owner, seqs []int32) (map[int32]string, error) {
	rows, err := s.q.ListConversationMessagesBySeq(ctx, s.pool, dbsqlc.ListConversationMessagesBySeqParams{TaskID: id, OwnerUserID: owner.UserID(), Seqs: seqs})
	if err != nil {
		return nil, readError("conversation messages", err)
	}
	out := make(map[int32]string, len(rows))
	for _, r := range rows {
		out[r.Seq] = r.Messages
	}
	return out, nil
}

// SearchHoldsNames reports whether owner's task's search documents hold names joined by
// underscores whole, marked by marker (search.NamesTerm): a search then looks for a
// name whole, and by its words in a task stored before.
func (s *Store) SearchHoldsNames(ctx context.Context, id uuid.UUID, owner Owner, marker string) (bool, error) {
	holds, err := s.q.TaskSearchHoldsNames(ctx, s.pool, dbsqlc.TaskSearchHoldsNamesParams{Marker: marker, TaskID: id, OwnerUserID: owner.UserID()})
	if err != nil {
		return false, readError("search documents", err)
	}
	return holds, nil
}

// FewMatches is the most conversations a search may match for the list to be read from
// them, and the matches counted; a search matching more is checked along the list's
// sort instead. A filtered list is counted up to it too.
const FewMatches = 2000

// searchFirst reads the conversations a search matches from the words' index, when
// they are few, and lists from them: walking the sort's index and checking each
// conversation's words costs in proportion to the conversations walked, which for a
// rare word can be all of them. A common word finds its page within a short walk.
func (s *Store) searchFirst(ctx context.Context, tx pgx.Tx, p *dbsqlc.ListTaskConversationsParams) error {
	if err := s.q.PreferSearchIndexes(ctx, tx); err != nil {
		return err
	}
	seqs, err := s.q.SearchConversationSeqs(ctx, planned{tx}, dbsqlc.SearchConversationSeqsParams{
		TaskID: p.TaskID, OwnerUserID: p.OwnerUserID, Query: *p.Query, MaxRows: FewMatches + 1,
	})
	if err != nil || len(seqs) > FewMatches {
		return err
	}
	p.Query, p.Seqs = nil, append([]int32{}, seqs...)
	return nil
}

// countMatches counts the conversations a search listed from its few matches (p.Seqs)
// lets through with the filters; a search with many matches (p.Query still set) is not
// counted, which would read every match.
func (s *Store) countMatches(ctx context.Context, tx pgx.Tx, p dbsqlc.ListTaskConversationsParams) (*int, bool, error) {
	if p.Query != nil {
		return nil, true, nil
	}
	if len(p.Seqs) == 0 {
		return new(int), false, nil
	}
	return s.count(ctx, tx, p)
}

// CountConversations counts owner's task's kept conversations that f lets through, up
// to FewMatches, in one read-only snapshot: n, or many when there are more. A search
// is counted from its matches (countMatches); other filters along the task's
// conversations, which for a rare filter is a walk of all of them: the list page asks
// for it after it is shown. A task that does not exist or belongs to someone else is
// ErrNotFound.
func (s *Store) CountConversations(ctx context.Context, id uuid.UUID, owner Owner, f ConversationFilter) (n int, many bool, err error) {
	uid := owner.UserID()
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			if _, err := s.q.GetAnalysisTask(ctx, tx, dbsqlc.GetAnalysisTaskParams{ID: id, OwnerUserID: uid}); err != nil {
				return err
			}
			p := listParams(id, uid, f, 0)
			var count *int
			var err error
			if f.Query != "" {
				if err := s.searchFirst(ctx, tx, &p); err != nil {
					return fmt.Errorf("search: %w", err)
				}
				count, many, err = s.countMatches(ctx, tx, p)
			} else {
				count, many, err = s.count(ctx, tx, p)
			}
			if count != nil {
				n = *count
			}
			return err
		})
	if err != nil {
		return 0, false, readError("count conversations", err)
	}
	return n, many, nil
}

// count counts the conversations p's filters let through, among p.Seqs when a search
// gave them, up to FewMatches; many when there are more.
func (s *Store) count(ctx context.Context, tx pgx.Tx, p dbsqlc.ListTaskConversationsParams) (*int, bool, error) {
	n, err := s.q.CountTaskConversations(ctx, planned{tx}, dbsqlc.CountTaskConversationsParams{
		TaskID: p.TaskID, OwnerUserID: p.OwnerUserID, Seqs: p.Seqs, MaxRows: FewMatches + 1,
		Cluster: p.Cluster, Driver: p.Driver, Category: p.Category, MinSeverity: p.MinSeverity, Label: p.Label, Risk: p.Risk,
	})
	if err != nil || n > FewMatches {
		return nil, n > FewMatches, err
	}
	count := int(n)
	return &count, false, nil
}

func listParams(id uuid.UUID, owner int64, f ConversationFilter, rows int) dbsqlc.ListTaskConversationsParams {
	p := dbsqlc.ListTaskConversationsParams{
		TaskID: id, OwnerUserID: owner, Sort: string(f.Sort), MaxRows: int32(rows),
		Cluster: f.Cluster, Driver: f.Driver, Category: f.Category, MinSeverity: f.MinSeverity,
		Label: f.Label, Risk: f.Risk,
	}
	if p.Sort == "" {
		p.Sort = string(SortFailure)
	}
	if f.Query != "" {
		p.Query = &f.Query
	}
	if a := f.After; a != nil {
		p.AfterSeq, p.AfterScore, p.AfterTurns, p.AfterSeverity = &a.Seq, &a.Score, &a.Turns, &a.Severity
	}
	return p
}

// ConversationPlace is where one conversation stands in a list: the list's first
// conversation and the one after it (nil for none), with the task and the names the
// list's filters are said by (no page).
type ConversationPlace struct {
	ConversationList
	First, Next *int32
}

// ConversationPlace reads where the conversation at here stands in the list f gives
// (f.After is not read), in one read-only snapshot: the first conversation of the list
// and the one after here, each the first row of a walk like a page's. A task that does
// not exist or belongs to someone else is ErrNotFound.
func (s *Store) ConversationPlace(ctx context.Context, id uuid.UUID, owner Owner, f ConversationFilter, here ConversationCursor) (ConversationPlace, error) {
	var place ConversationPlace
	uid := owner.UserID()
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			if err := s.readMenus(ctx, tx, id, uid, &place.ConversationList); err != nil {
				return err
			}
			f.After = nil
			p := listParams(id, uid, f, 1)
			if f.Query != "" {
				if err := s.searchFirst(ctx, tx, &p); err != nil {
					return fmt.Errorf("search: %w", err)
				}
			}
			var err error
			if place.First, err = s.firstSeq(ctx, tx, p); err != nil {
				return err
			}
			p.AfterSeq, p.AfterScore, p.AfterTurns, p.AfterSeverity = &here.Seq, &here.Score, &here.Turns, &here.Severity
			place.Next, err = s.firstSeq(ctx, tx, p)
			return err
		})
	if err != nil {
		return ConversationPlace{}, readError("conversation place", err)
	}
	return place, nil
}

// firstSeq is the seq of the first conversation of the page p asks for; nil for none.
func (s *Store) firstSeq(ctx context.Context, tx pgx.Tx, p dbsqlc.ListTaskConversationsParams) (*int32, error) {
	rows, err := s.q.ListTaskConversations(ctx, planned{tx}, p)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return &rows[0].Seq, nil
}

// planned runs its queries planned for their parameters every time, as pgx's
// describe-and-execute mode does (the unnamed statement): PostgreSQL then folds away
// the filters left empty and the sorts not asked for, and picks the index of the one
// that is, which a cached generic plan, made for any parameters, cannot.
type planned struct{ dbsqlc.DBTX }

func (p planned) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return p.DBTX.Query(ctx, sql, append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
}

func (p planned) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return p.DBTX.QueryRow(ctx, sql, append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
}
