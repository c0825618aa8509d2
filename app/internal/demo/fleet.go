package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/checkup-dev/checkup/app/auth"
	"github.com/checkup-dev/checkup/db"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/pglocal"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/taskstate"
	"github.com/checkup-dev/checkup/report"
	"github.com/checkup-dev/checkup/workers/llm/llmtest"
)

// demo is the database, the fake model, the binary, the instances and the tasks.
type demo struct {
	dir       string
	bin       string
	dbURL     string
	cluster   *pglocal.Cluster
	pool      *pgxpool.Pool
	model     *llmtest.Server
	owner     store.Owner
	cookie    string
	csrf      string
	instances []*instance
	tasks     []uuid.UUID
}

// instance is one running Checkup process.
type instance struct {
	name string
	addr string
	cmd  *exec.Cmd
	dead bool
}

func newDemo(ctx context.Context, delay time.Duration) (*demo, error) {
	dir, err := os.MkdirTemp("", "checkup-demo-")
	if err != nil {
		return nil, err
	}
	// The cluster may run as the postgres user (as root): let it into the directory.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	d := &demo{dir: dir, bin: filepath.Join(dir, "checkup"), dbURL: os.Getenv("DATABASE_URL")}
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", d.bin, "./app").CombinedOutput(); err != nil {
		d.close()
		return nil, fmt.Errorf("go build ./app (run the demo from the repository's root): %v\n%s", err, out)
	}
	if err := d.openDatabase(ctx); err != nil {
		d.close()
		return nil, err
	}
	d.model = llmtest.Start(llmtest.WithScript(func(req llmtest.Request, _ int) llmtest.Reply {
		r := llmtest.Valid(req)
		r.Delay = delay
		return r
	}))
	say("fake model at %s answers every call after %s", d.model.URL(), delay)
	return d, nil
}

// openDatabase uses DATABASE_URL, or starts a throwaway cluster, migrates it and signs
// the demo's user in.
func (d *demo) openDatabase(ctx context.Context) error {
	if d.dbURL == "" {
		c, err := pglocal.Start(ctx, pglocal.Options{Dir: filepath.Join(d.dir, "pg"), Throwaway: true})
		if err != nil {
			return err
		}
		d.cluster = c
		if err := c.CreateDatabase(ctx, "checkup", ""); err != nil {
			return err
		}
		d.dbURL = c.URL("checkup")
		say("started a throwaway PostgreSQL on port %d", c.Port())
	}
	pool, err := db.Open(ctx, d.dbURL)
	if err != nil {
		return err
	}
	d.pool = pool
	if err := db.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	email := "demo-" + uuid.NewString()[:8] + "@example.com"
	user, token, err := auth.SignIn(ctx, store.New(pool), store.Identity{
		Provider: auth.LocalProvider, ProviderUserID: email, Email: email, Name: "Demo",
	}, "")
	if err != nil {
		return err
	}
	d.owner, d.cookie, d.csrf = user.Owner(), token, auth.CSRFTokenFor(token)
	return nil
}

// startInstance starts the binary and waits until /readyz answers 200. Its log lines
// are printed with its name in front.
func (d *demo) startInstance(ctx context.Context, name string) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	cmd := exec.Command(d.bin)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+d.dbURL, "ADDR="+addr,
		"OPENAI_API_KEY=demo", "OPENAI_BASE_URL="+d.model.URL(),
		"TASK_STALE_MS=3000", "TASK_HEARTBEAT_MS=500", "WORKER_POLL_MS=500", "LOG_LEVEL=info")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	inst := &instance{name: name, addr: addr, cmd: cmd}
	d.instances = append(d.instances, inst)
	go relay(name, out)
	deadline := time.Now().Add(30 * time.Second)
	for !ready(addr) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("instance %s did not become ready", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
	say("instance %s (pid %d) ready at http://%s", name, cmd.Process.Pid, addr)
	return nil
}

// relay prints an instance's log lines, but for the long configuration summary.
func relay(name string, r io.Reader) {
	lines := bufio.NewScanner(r)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		if line := lines.Text(); !strings.Contains(line, "msg=configuration") {
			fmt.Printf("             [%s] %s\n", name, line)
		}
	}
}

func (i *instance) kill() {
	_ = i.cmd.Process.Signal(syscall.SIGKILL)
	_ = i.cmd.Wait()
	i.dead = true
}

// upload posts file to POST /tasks as the upload form does and returns the task id.
func (d *demo) upload(inst *instance, filename string, file []byte) (uuid.UUID, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("title", filename)
	part, _ := w.CreateFormFile("file", filename)
	_, _ = part.Write(file)
	_ = w.Close()
	req, err := http.NewRequest(http.MethodPost, "http://"+inst.addr+"/tasks", &body)
	if err != nil {
		return uuid.Nil, err
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set(auth.CSRFHeader, d.csrf)
	req.AddCookie(&http.Cookie{Name: auth.SessionCookie, Value: d.cookie})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return uuid.Nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return uuid.Nil, fmt.Errorf("upload of %s answered %s", filename, resp.Status)
	}
	return uuid.Parse(strings.TrimPrefix(resp.Header.Get("Location"), "/tasks/"))
}

// report downloads the task's report.json from inst, as its owner.
func (d *demo) report(inst *instance, id uuid.UUID) (report.Report, error) {
	var r report.Report
	req, err := http.NewRequest(http.MethodGet, "http://"+inst.addr+"/tasks/"+id.String()+"/report.json", nil)
	if err != nil {
		return r, err
	}
	req.AddCookie(&http.Cookie{Name: auth.SessionCookie, Value: d.cookie})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return r, fmt.Errorf("answered %s", resp.Status)
	}
	err = json.NewDecoder(resp.Body).Decode(&r)
	return r, err
}

func (d *demo) task(ctx context.Context, id uuid.UUID) (dbsqlc.AnalysisTask, error) {
	return store.New(d.pool).Task(ctx, id, d.owner)
}

// holderOf is the instance whose worker holds the task's lease: its id names the pid.
func (d *demo) holderOf(t dbsqlc.AnalysisTask) *instance {
	if t.LeaseOwner == nil || t.Status != taskstate.Running {
		return nil
	}
	for _, inst := range d.instances {
		if strings.Contains(*t.LeaseOwner, fmt.Sprintf("-%d-", inst.cmd.Process.Pid)) {
			return inst
		}
	}
	return nil
}

func (d *demo) close() {
	for _, inst := range d.instances {
		if !inst.dead {
			_ = inst.cmd.Process.Signal(syscall.SIGTERM)
			_ = inst.cmd.Wait()
		}
	}
	if d.model != nil {
		d.model.Close()
	}
	if d.pool != nil {
		d.pool.Close()
	}
	if d.cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = d.cluster.Stop(ctx)
	}
	_ = os.RemoveAll(d.dir)
}

func ready(addr string) bool {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
