package web

import (
	"errors"
	"io"
	"log"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// Timeouts bound how long a client may take to send its request, so a slow or stalled
// one holds a goroutine and a socket for a bounded time, and never a database
// connection (an upload is read to a temporary file before its transaction starts);
// the body's bounds also bound how slowly a download may be read (sendDeadlines).
// Zero fields take the defaults, which suit any link of 256 kbit/s or better: nobody
// should need to change them, so they are not settings; tests shorten them.
type Timeouts struct {
	// Header is how long the request line and headers may take (default 10 s).
	Header time.Duration
	// BodyIdle is how long the body may send nothing at all (default 30 s).
	BodyIdle time.Duration
	// BodyBase and BodyRate bound the whole body: BodyBase plus its size at BodyRate
	// bytes a second (default 60 s + size at 32 KiB/s: 200 MB may take 1 h 47 min).
	// A body of unknown size (chunked) is given the size of the largest upload.
	BodyBase time.Duration
	BodyRate int64
	// KeepAlive is how long an idle kept-alive connection stays open (default 2 min).
	KeepAlive time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.Header, 10*time.Second)
	def(&t.BodyIdle, 30*time.Second)
	def(&t.BodyBase, time.Minute)
	def(&t.KeepAlive, 2*time.Minute)
	if t.BodyRate <= 0 {
		t.BodyRate = 32 << 10
	}
	return t
}

// HTTPServer is the server as an http.Server with the header and keep-alive
// timeouts; the body's are set per request (bodyDeadlines), and a download's as it is
// sent (sendDeadlines). There is no ReadTimeout or WriteTimeout: they would cut a long
// download, and net/http's ReadTimeout also cancels the context of any handler that
// outlives it.
func (s *Server) HTTPServer(errorLog *log.Logger) *http.Server {
	return &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: s.deps.Timeouts.Header,
		IdleTimeout:       s.deps.Timeouts.KeepAlive,
		ErrorLog:          errorLog,
	}
}

// bodyDeadlines gives every request with a body its read deadlines: BodyIdle from each
// read, never past the whole body's deadline. Once the body has been read to its end
// the deadline is lifted, so what the handler does next (an upload's COPY, a long
// answer) is never cut by it.
func (s *Server) bodyDeadlines() echo.MiddlewareFunc {
	t := s.deps.Timeouts
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
				return next(c)
			}
			size := r.ContentLength
			if size < 0 {
				size = s.deps.Config.MaxUploadBytes() + formSlack
			}
			rc := http.NewResponseController(c.Response())
			r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc, idle: t.BodyIdle,
				end: time.Now().Add(t.BodyBase + time.Duration(float64(size)/float64(t.BodyRate)*float64(time.Second)))}
			return next(c)
		}
	}
}

// deadlineBody sets the connection's read deadline before every read of the body and
// lifts it at the body's end.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
	end  time.Time
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	if !b.done {
		// An error means the connection cannot take deadlines (a test's recorder): the
		// body is then read without them.
		_ = b.rc.SetReadDeadline(earlier(time.Now().Add(b.idle), b.end))
	}
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// deadlineWriter sets the connection's write deadline before every write of a
// download: BodyIdle for that write, and never past BodyBase plus what has been sent
// at BodyRate, the slowest link an upload may use. A client that stops reading, or
// reads slower than that, is cut off instead of holding the download's database
// connection and snapshot for hours.
type deadlineWriter struct {
	w     io.Writer
	rc    *http.ResponseController
	t     Timeouts
	start time.Time
	sent  int64
}

func (s *Server) sendDeadlines(c echo.Context) *deadlineWriter {
	return &deadlineWriter{w: c.Response(), rc: http.NewResponseController(c.Response()), t: s.deps.Timeouts, start: time.Now()}
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	end := d.start.Add(d.t.BodyBase + time.Duration(float64(d.sent+int64(len(p)))/float64(d.t.BodyRate)*float64(time.Second)))
	// An error means the connection cannot take deadlines (a test's recorder).
	_ = d.rc.SetWriteDeadline(earlier(time.Now().Add(d.t.BodyIdle), end))
	n, err := d.w.Write(p)
	d.sent += int64(n)
	return n, err
}

// end sends what is still buffered within BodyIdle, then lifts the deadline, so the
// next request on the connection is not cut by it. What net/http writes after the
// handler, the chunked body's last few bytes, has no deadline: a client that stops
// reading just then holds a goroutine and a socket, but no database connection.
func (d *deadlineWriter) end() {
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.t.BodyIdle))
	_ = d.rc.Flush()
	_ = d.rc.SetWriteDeadline(time.Time{})
}
