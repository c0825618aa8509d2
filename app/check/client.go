package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/report/compare"
)

// client calls the API with a token.
type client struct {
	base  string
	token string
	http  *http.Client
	// out is where a wait for the API's rate limit is announced, so that a CI log
	// shows why the check paused.
	out io.Writer
	// deadline is where --timeout ends: no wait for the rate limit goes past it.
	deadline time.Time
}

func newClient(base, token string, out io.Writer, deadline time.Time) *client {
	return &client{base: base, token: token, http: &http.Client{}, out: out, deadline: deadline}
}

// task is what the check reads of the API's Task and Created.
type task struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Status   string    `json:"status"`
	Terminal bool      `json:"terminal"`
	Stage    string    `json:"stage"`
	Error    string    `json:"error"`
	Created  time.Time `json:"created_at"`
	URL      string    `json:"url"`
	HTMLURL  string    `json:"html_url"`
	Progress struct {
		Done  int `json:"done"`
		Total int `json:"total"`
	} `json:"progress"`
	Upload struct {
		Format        string `json:"format"`
		Conversations int    `json:"conversations"`
	} `json:"upload"`
}

// concluded reports whether the diagnosis ran to its end (taskstate.Status.Concluded):
// only then has it results to check.
func (t task) concluded() bool { return taskstate.Status(t.Status).Concluded() }

// apiError is the API's error body.
type apiError struct {
	Error    string   `json:"error"`
	Field    string   `json:"field"`
	Problems []string `json:"problems"`
}

// upload streams file to POST /api/v1/tasks, never holding it in memory. The stream
// is made afresh from the file for each time it is sent: a 429 with Retry-After is the
// API's rate limit, which refuses before the upload is read, so nothing was stored and
// sending the whole file again is safe (do retries only that kind of 429 of a request
// with a body).
func (c *client) upload(ctx context.Context, file, title string) (task, error) {
	body := func() (io.ReadCloser, string, error) {
		f, err := os.Open(file)
		if err != nil {
			return nil, "", exit(Usage, "app check: --file: %w", err)
		}
		pr, pw := io.Pipe()
		form := multipart.NewWriter(pw)
		go func() {
			defer f.Close()
			pw.CloseWithError(writeForm(form, f, title))
		}()
		return pr, form.FormDataContentType(), nil
	}
	var t task
	err := c.do(ctx, http.MethodPost, "/api/v1/tasks", body, http.StatusCreated, &t)
	return t, err
}

// writeForm writes the upload's form: its title, when there is one, and the file.
func writeForm(form *multipart.Writer, f *os.File, title string) error {
	if title != "" {
		if err := form.WriteField("title", title); err != nil {
			return err
		}
	}
	part, err := form.CreateFormFile("file", filepath.Base(f.Name()))
	if err != nil {
		return err
	}
	if _, err := io.Copy(part, f); err != nil {
		return err
	}
	return form.Close()
}

// wait polls the task until it is terminal or the client's deadline, timeout from
// now, passes, printing each new stage.
func (c *client) wait(ctx context.Context, t task, timeout, poll time.Duration, out io.Writer) (task, error) {
	c.deadline = time.Now().Add(timeout)
	stage := ""
	for !t.Terminal {
		if t.Stage != stage {
			stage = t.Stage
			fmt.Fprintf(out, "  %s: %s\n", printable(t.Status), printable(t.Stage))
		}
		if time.Now().Add(poll).After(c.deadline) {
			return t, exit(NoResults, "the diagnosis did not end within %s; it goes on at %s", timeout, printable(t.HTMLURL))
		}
		select {
		case <-ctx.Done():
			return t, exit(NoResults, "stopped while waiting for the diagnosis: %w", ctx.Err())
		case <-time.After(poll):
		}
		if err := c.do(ctx, http.MethodGet, "/api/v1/tasks/"+t.ID, nil, http.StatusOK, &t); err != nil {
			return t, err
		}
	}
	return t, nil
}

// baseline picks what to compare t with: with "last", the newest other run of t's
// title that finished with results and was created before t; "" when there is none,
// or with "none".
func (c *client) baseline(ctx context.Context, t task, want string) (string, error) {
	switch want {
	case "none":
		return "", nil
	case "last":
	default:
		return want, nil
	}
	path := "/api/v1/tasks?limit=100"
	for path != "" {
		var page struct {
			Tasks []task  `json:"tasks"`
			Next  *string `json:"next_cursor"`
		}
		if err := c.do(ctx, http.MethodGet, path, nil, http.StatusOK, &page); err != nil {
			return "", err
		}
		for _, other := range page.Tasks {
			if other.ID != t.ID && other.Title == t.Title && other.Created.Before(t.Created) &&
				other.concluded() {
				return other.ID, nil
			}
		}
		path = ""
		if page.Next != nil {
			path = "/api/v1/tasks?limit=100&before=" + url.QueryEscape(*page.Next)
		}
	}
	return "", nil
}

// compare reads GET /api/v1/tasks/{id}/compare.json?baseline=.
func (c *client) compare(ctx context.Context, id, baseline string) (compare.Comparison, error) {
	var cmp compare.Comparison
	err := c.do(ctx, http.MethodGet, "/api/v1/tasks/"+id+"/compare.json?baseline="+url.QueryEscape(baseline), nil, http.StatusOK, &cmp)
	return cmp, err
}

// newBody makes a request's body afresh, with its content type, for each time the
// request is sent.
type newBody func() (io.ReadCloser, string, error)

// do sends a request and decodes the answer into v when it has the status want. A
// 429 is waited out (rateLimited) and the request sent again, a request with a body
// only when the 429 says how long to wait; any other answer is an ExitError with the
// server's sentence.
func (c *client) do(ctx context.Context, method, path string, body newBody, want int, v any) error {
	for {
		req, err := http.NewRequestWithContext(ctx, method, c.base+path, nil)
		if err != nil {
			return exit(Usage, "app check: --url: %w", err)
		}
		if body != nil {
			content, contentType, err := body()
			if err != nil {
				return err
			}
			req.Body = content
			req.Header.Set("Content-Type", contentType)
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("Accept", "application/json")
		resp, err := c.http.Do(req)
		if err != nil {
			return exit(Refused, "%s %s: %w", method, c.base+path, err)
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			wait, said := retryAfter(resp.Header, time.Now())
			if said || body == nil {
				err := c.rateLimited(ctx, method, path, resp, wait)
				resp.Body.Close()
				if err != nil {
					return err
				}
				continue
			}
		}
		defer resp.Body.Close()
		if resp.StatusCode != want {
			return refusal(method, path, resp)
		}
		if v == nil {
			return nil
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			return exit(Refused, "%s %s: the answer is not the API's JSON: %w", method, path, err)
		}
		return nil
	}
}

// refusal is the ExitError of an answer that is not the one wanted, with the server's
// sentence, the field it names and the first problems of a refused file.
func refusal(method, path string, resp *http.Response) error {
	return &ExitError{Code: Refused, Err: fmt.Errorf("%s %s: %s: %w", method, path, resp.Status, errors.New(serverSays(resp)))}
}

// serverSays is the server's sentence in resp, the field it names and the first
// problems of a refused file, made printable.
func serverSays(resp *http.Response) string {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var e apiError
	if json.Unmarshal(raw, &e) != nil || e.Error == "" {
		e.Error = strings.TrimSpace(string(raw))
	}
	msg := printable(e.Error)
	if e.Field != "" {
		msg += " (field " + printable(e.Field) + ")"
	}
	for i, p := range e.Problems {
		if i == 5 {
			msg += fmt.Sprintf("\n  and %d more", len(e.Problems)-i)
			break
		}
		msg += "\n  " + printable(p)
	}
	return msg
}
