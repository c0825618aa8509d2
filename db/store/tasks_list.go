package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/db/dbsqlc"
)

// TaskCursor is the position after which the next page of a task list starts: the
// (created_at, id) of the last task shown, which the list index is ordered by.
type TaskCursor struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// String encodes the cursor for a URL: microseconds since the epoch (the precision
// PostgreSQL keeps), an underscore and the task id.
func (c TaskCursor) String() string {
	return strconv.FormatInt(c.CreatedAt.UnixMicro(), 10) + "_" + c.ID.String()
}

// ErrBadCursor means a cursor did not come from TaskCursor.String.
var ErrBadCursor = errors.New("store: bad task list cursor")

// ParseTaskCursor decodes TaskCursor.String.
func ParseTaskCursor(s string) (TaskCursor, error) {
	micros, id, ok := strings.Cut(s, "_")
	if !ok {
		return TaskCursor{}, ErrBadCursor
	}
	us, err := strconv.ParseInt(micros, 10, 64)
	if err != nil {
		return TaskCursor{}, ErrBadCursor
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return TaskCursor{}, ErrBadCursor
	}
	return TaskCursor{CreatedAt: time.UnixMicro(us).UTC(), ID: u}, nil
}

// TaskPage is one page of an owner's tasks, newest first. Next is nil on the last page.
type TaskPage struct {
	Tasks []dbsqlc.ListAnalysisTasksRow
	Next  *TaskCursor
}

// ListTasks returns up to limit of owner's tasks created before after (nil for the
// first page), newest first. It reads one row more than it shows to know whether an
// older page exists.
func (s *Store) ListTasks(ctx context.Context, owner Owner, after *TaskCursor, limit int) (TaskPage, error) {
	arg := dbsqlc.ListAnalysisTasksParams{OwnerUserID: owner.UserID(), MaxRows: int32(limit + 1)}
	if after != nil {
		arg.BeforeCreatedAt, arg.BeforeID = &after.CreatedAt, &after.ID
	}
	rows, err := s.q.ListAnalysisTasks(ctx, s.pool, arg)
	if err != nil {
		return TaskPage{}, fmt.Errorf("store: list tasks: %w", err)
	}
	page := TaskPage{Tasks: rows}
	if len(rows) > limit {
		page.Tasks = rows[:limit]
		last := page.Tasks[limit-1]
		page.Next = &TaskCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return page, nil
}
