package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/checkup-dev/checkup/db/locale"
)

// spool is an uploaded file held in a temporary file (in TMPDIR) until its task is
// created from it, so the transaction that stores it lasts as long as the COPY, not as
// long as the client takes to send it. The file is unlinked as soon as it is created
// where the system allows it, so nothing is left behind even if the process dies; it
// is never larger than MAX_UPLOAD_MB, the limit being checked as it is written.
type spool struct {
	f    *os.File
	size int64
	disk *spoolDisk
}

func newSpool(disk *spoolDisk) (*spool, error) {
	f, err := os.CreateTemp("", "checkup-upload-*")
	if err != nil {
		return nil, fmt.Errorf("web: spool upload: %w", diskFull(err))
	}
	_ = os.Remove(f.Name()) // fails where open files cannot be removed; Close removes it then
	return &spool{f: f, disk: disk}, nil
}

// spoolUploads is how many uploads of MAX_UPLOAD_MB the spooled files of one instance
// may hold together: past it an upload waits for room (503), so many users at once
// cannot fill the disk with files up to the limit each.
const spoolUploads = 8

// spoolDisk counts the bytes of every upload spooled on this instance against one cap.
type spoolDisk struct {
	mu        sync.Mutex
	used, max int64
}

func (d *spoolDisk) take(n int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.used+n > d.max {
		return false
	}
	d.used += n
	return true
}

func (d *spoolDisk) give(n int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.used -= n
}

var (
	// errSpoolFull refuses an upload while the spooled uploads fill their cap.
	errSpoolFull = &formError{http.StatusServiceUnavailable, locale.Msg("upload_refused.spool_full"), fieldFile}
	// errOutOfDisk is the answer to any request that found the disk full: what it had
	// written is removed or rolled back (errors.out_of_disk says so to people).
	errOutOfDisk = errors.New("web: the server is out of disk space")
)

// diskFull is errOutOfDisk when err says the disk is full, else err.
func diskFull(err error) error {
	if outOfDisk(err) && !errors.Is(err, errOutOfDisk) {
		return fmt.Errorf("%w (%w)", errOutOfDisk, err)
	}
	return err
}

// outOfDisk reports an error of a full disk: this server's (a temporary file) or the
// database's (SQLSTATE 53100, disk_full).
func outOfDisk(err error) bool {
	var pgErr *pgconn.PgError
	return errors.Is(err, errOutOfDisk) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		(errors.As(err, &pgErr) && pgErr.Code == "53100")
}

// fill copies the file from r, which refuses it once it passes MAX_UPLOAD_MB, and
// rewinds for reading. A failure to write is the server's (a full disk); one to read
// is r's own error.
func (s *spool) fill(r io.Reader) error {
	buf := make([]byte, uploadReadBuffer)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if !s.disk.take(int64(n)) {
				return errSpoolFull
			}
			s.size += int64(n)
			if _, werr := s.f.Write(buf[:n]); werr != nil {
				return fmt.Errorf("web: spool upload: %w", diskFull(werr))
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("web: spool upload: %w", err)
	}
	return nil
}

// Read reads the spooled file from its start.
func (s *spool) Read(p []byte) (int, error) { return s.f.Read(p) }

// Close closes and removes the file, and gives its room back.
func (s *spool) Close() {
	_ = s.f.Close()
	_ = os.Remove(s.f.Name())
	s.disk.give(s.size)
}
