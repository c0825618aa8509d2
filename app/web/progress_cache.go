package web

import (
	"cmp"
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/notified"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// Progress cache bounds: an entry is used for at most Deps.ProgressCacheTTL after its
// read began or it was last announced (progressCacheTTL unless a test sets it), and
// the cache holds at most progressCacheMax tasks. The TTL is the poll's interval: a
// task deleted elsewhere announces nothing, and a count that moved within a second of
// the last announcement waits for the next one, so its pages see either at most this
// much later than a read would. A task that stops running announces it (migration
// 00040), and its copy is dropped at once.
const (
	progressCacheTTL = 2 * time.Second
	progressCacheMax = 10_000
)

// progressCache keeps the progress of the running tasks whose pages poll here, so a
// poll costs no database read while the worker moves the task on. The changes that
// leave a task running are announced on checkup_progress by a trigger (migration
// 00015; a moved count at most once a second) with the new values, which replace the
// cached ones on every instance and keep them for another TTL. Only running tasks are
// kept: claims and finishes, the queue's busiest statements, are not announced.
type progressCache = notified.Cache[uuid.UUID, ownedProgress]

// ownedProgress is a cached progress with the owner it was read for: another user's
// request for the same task misses, and reads the database on its own behalf.
type ownedProgress struct {
	owner int64
	row   dbsqlc.GetAnalysisProgressRow
}

func newProgressCache(now func() time.Time, ttl time.Duration) *progressCache {
	return notified.NewCache[uuid.UUID, ownedProgress](now, cmp.Or(ttl, progressCacheTTL), progressCacheMax)
}

// progress returns the task's progress for owner, from the cache while it is there.
func (s *Server) progress(ctx context.Context, id uuid.UUID, owner store.Owner) (dbsqlc.GetAnalysisProgressRow, error) {
	if p, ok := s.progressCache.Get(id); ok && p.owner == owner.UserID() {
		return p.row, nil
	}
	mark := s.progressCache.Mark()
	row, err := s.store.TaskProgress(ctx, id, owner)
	if err == nil && row.Status == taskstate.Running {
		s.progressCache.Put(id, ownedProgress{owner: owner.UserID(), row: row}, mark)
	}
	return row, err
}

// deleteTask deletes the task; this instance's polls find it gone at once, the
// others' once their copy expires.
func (s *Server) deleteTask(ctx context.Context, id uuid.UUID, owner store.Owner) error {
	err := s.store.DeleteTask(ctx, id, owner)
	if err == nil {
		s.progressCache.Evict(id)
	}
	return err
}

// progressNotice is a payload of checkup_progress: a running task's shown columns
// after a change, keyed by the progress row's field names, and its owner; or only its
// id (OwnerUserID zero) when they did not fit.
type progressNotice struct {
	dbsqlc.GetAnalysisProgressRow
	OwnerUserID int64
}

// progressSubscription keeps cache true to every change announced on checkup_progress.
func progressSubscription(deps Deps, cache *progressCache) *notified.Subscription {
	return notified.NewSubscription(notified.Config{
		Conn: deps.Pool.Config().ConnConfig,
		Listen: func(ctx context.Context, conn *pgx.Conn) error {
			return dbsqlc.New().ListenProgress(ctx, conn)
		},
		Live: cache.SetLive,
		Notify: func(_, payload string) {
			var n progressNotice
			if err := json.Unmarshal([]byte(payload), &n); err != nil || n.ID == uuid.Nil {
				cache.SetLive(true) // cannot tell which task changed: forget them all
				return
			}
			if n.OwnerUserID == 0 || n.Status != taskstate.Running {
				cache.Evict(n.ID)
				return
			}
			cache.Replace(n.ID, ownedProgress{owner: n.OwnerUserID, row: n.GetAnalysisProgressRow})
		},
		Lost:   "cannot LISTEN for progress; every poll reads its task until it works again",
		Back:   "the progress cache is on again",
		Logger: deps.Logger,
	})
}
