package web

import (
	"fmt"
	"io"
	"os"
)

// spool is an uploaded file held in a temporary file (in TMPDIR) until its task is
// created from it, so the transaction that stores it lasts as long as the COPY, not as
// long as the client takes to send it. The file is unlinked as soon as it is created
// where the system allows it, so nothing is left behind even if the process dies; it
// is never larger than MAX_UPLOAD_MB, the limit being checked as it is written.
type spool struct {
	f    *os.File
	size int64
}

func newSpool() (*spool, error) {
	f, err := os.CreateTemp("", "checkup-upload-*")
	if err != nil {
		return nil, fmt.Errorf("web: spool upload: %w", err)
	}
	_ = os.Remove(f.Name()) // fails where open files cannot be removed; Close removes it then
	return &spool{f: f}, nil
}

// fill copies the file from r, which refuses it once it passes MAX_UPLOAD_MB, and
// rewinds for reading. A failure to write is the server's (a full disk); one to read
// is r's own error.
func (s *spool) fill(r io.Reader) error {
	buf := make([]byte, uploadReadBuffer)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := s.f.Write(buf[:n]); werr != nil {
				return fmt.Errorf("web: spool upload: %w", werr)
			}
			s.size += int64(n)
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

// Close closes and removes the file.
func (s *spool) Close() {
	_ = s.f.Close()
	_ = os.Remove(s.f.Name())
}
