package ingest

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io"
)

// bufSize is the read buffer for the text layer: large enough that most lines are
// returned straight from the buffer without being copied again.
const bufSize = 256 << 10

// input is the decompressed text of an upload, read through a size guard.
type input struct {
	text    *bufio.Reader
	gzipped bool
	count   *countingReader // counts the text, after decompression
}

// open sniffs the gzip magic on r and returns the text to parse. Compression is detected
// by content, never by file name, and the decompressed size is capped as it is read.
// The compressed size is the caller's to limit (the upload size).
func open(r io.Reader, maxBytes int64) (*input, error) {
	raw := &countingReader{r: r, max: -1}
	buf := bufio.NewReaderSize(&sourceReader{r: raw}, bufSize)
	magic, err := buf.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		// Plain text: the raw count is the text count, kept below the buffer so that
		// reading stops at the limit.
		raw.max = maxBytes
		if err := raw.check(); err != nil {
			return nil, err
		}
		return &input{text: buf, count: raw}, nil
	}
	zr, err := gzip.NewReader(buf)
	if err != nil {
		return nil, gzipErr(err)
	}
	consumed := func() int64 { return raw.n - int64(buf.Buffered()) } // not what is read ahead
	text := &countingReader{r: &gzipReader{zr: zr}, max: maxBytes, compressed: consumed}
	return &input{text: bufio.NewReaderSize(text, bufSize), gzipped: true, count: text}, nil
}

// A gzip upload may grow to at most maxGzipRatio times the compressed bytes read so far,
// once past gzipRatioFloor. Conversation exports compress about ten times (the sample
// 11.5×); gzip itself reaches about 1,000× only on a run of the same bytes, such as a
// gigabyte of blank lines sent as one megabyte, which is refused here after 16 MiB
// instead of being read to the decompressed limit.
const (
	maxGzipRatio   = 200
	gzipRatioFloor = 16 << 20
)

// sourceReader tags failures of the caller's reader so they are never mistaken for a
// problem with the file.
type sourceReader struct{ r io.Reader }

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	var fe *FileError
	if err != nil && !errors.Is(err, io.EOF) && !errors.As(err, &fe) {
		return n, &readError{err: err}
	}
	return n, err
}

// gzipReader turns decompression failures into a whole-file error while passing the
// caller's read failures through unchanged.
type gzipReader struct{ zr *gzip.Reader }

func (g *gzipReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, gzipErr(err)
	}
	return n, err
}

// gzipErr classifies an error that came out of the gzip reader.
func gzipErr(err error) error {
	var re *readError
	var fe *FileError
	if errors.As(err, &re) || errors.As(err, &fe) {
		return err
	}
	return fileErr(ErrBadGzip, "ingest.bad_gzip", "Detail", err.Error())
}

// countingReader counts bytes and fails once they pass max (no limit when max < 0). It
// reads at most one byte past the limit, so a gzip bomb is stopped without being
// expanded.
type countingReader struct {
	r   io.Reader
	n   int64
	max int64
	// compressed, for the text of a gzip file, counts the compressed bytes decoded
	// beneath it: the text may grow only so many times larger (maxGzipRatio).
	compressed func() int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.max >= 0 {
		if room := c.max + 1 - c.n; int64(len(p)) > room {
			p = p[:max(room, 1)]
		}
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if cerr := c.check(); cerr != nil {
		return n, cerr
	}
	return n, err
}

// check reports the limit error once the count has passed the limit.
func (c *countingReader) check() error {
	if c.max >= 0 && c.n > c.max {
		return fileErr(ErrTooLarge, "ingest.too_large", "Size", sizeText(c.max))
	}
	if c.compressed != nil && c.n > gzipRatioFloor && c.n > maxGzipRatio*c.compressed() {
		return fileErr(ErrTooLarge, "ingest.gzip_bomb", "N", maxGzipRatio)
	}
	return nil
}
