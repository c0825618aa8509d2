package web

import (
	"net/http"
	"sync"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/store"
)

// uploadsPerUser is how many uploads one user may have in progress at once on one
// instance: enough for a person and a script side by side, few enough that one user
// cannot fill the disk with spooled files or the bulk pool with COPYs.
const uploadsPerUser = 2

// uploadSlots counts each user's uploads in progress on this instance.
type uploadSlots struct {
	mu     sync.Mutex
	active map[int64]int
}

// take claims one of owner's slots; ok is false when all are in use. release gives
// it back and must be called once.
func (u *uploadSlots) take(owner store.Owner) (release func(), ok bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.active == nil {
		u.active = map[int64]int{}
	}
	id := owner.UserID()
	if u.active[id] >= uploadsPerUser {
		return nil, false
	}
	u.active[id]++
	return func() {
		u.mu.Lock()
		defer u.mu.Unlock()
		if u.active[id]--; u.active[id] == 0 {
			delete(u.active, id)
		}
	}, true
}

// errTooManyUploads refuses an upload while the user has uploadsPerUser in progress.
var errTooManyUploads = &formError{http.StatusTooManyRequests, locale.Msg("upload_refused.too_many_uploads", "N", uploadsPerUser), fieldFile}
