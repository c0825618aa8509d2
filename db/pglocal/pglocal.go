// Package pglocal runs a private PostgreSQL cluster in a directory with the server
// binaries installed on the machine, so `go run ./app` and `go test ./...` need no
// database set up by hand. When the process runs as root, the cluster runs as the
// `postgres` user, since PostgreSQL refuses to run as root.
package pglocal

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Options configures a cluster.
type Options struct {
	// Dir holds the cluster (pgdata/), its password and its log. Created if missing;
	// an existing cluster in it is reused.
	Dir string
	// Port to listen on, on 127.0.0.1 only; 0 picks a free one at each start.
	Port int
	// BinDir holds initdb, pg_ctl and postgres; empty searches PATH, `pg_config
	// --bindir` and /usr/lib/postgresql/*/bin.
	BinDir string
	// Throwaway turns durability off (fsync, full-page writes), for test clusters, and
	// loads pg_stat_statements where it is installed, for benchmarks.
	Throwaway bool
	Logger    *slog.Logger
}

// Cluster is a running private PostgreSQL server.
type Cluster struct {
	dir, binDir, pgdata string
	port                int
	password            string
	owner               *osUser
	// guest is true when another live process started this server and still uses it:
	// Stop then leaves it running for that process.
	guest     bool
	throwaway bool // Options.Throwaway, for a start again (Supervise)
	logger    *slog.Logger
	stopping  atomic.Bool // set by Stop, so Supervise does not start the server again
	stopOnce  sync.Once
	stopErr   error
}

const superuser = "postgres"

// Start initialises the cluster in opt.Dir when it holds none, starts it (or adopts
// one already running there, left by a process that was killed), and waits until it
// accepts connections.
func Start(ctx context.Context, opt Options) (*Cluster, error) {
	binDir, err := opt.BinDir, error(nil)
	if binDir == "" {
		binDir, err = findBinDir()
	} else if !hasServer(binDir) {
		err = ErrNoBinaries
	}
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(cmp.Or(opt.Dir, ".data"))
	if err != nil {
		return nil, fmt.Errorf("pglocal: %w", err)
	}
	owner, err := clusterOwner()
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, binDir: binDir, pgdata: filepath.Join(dir, "pgdata"), owner: owner, throwaway: opt.Throwaway,
		logger: cmp.Or(opt.Logger, slog.New(slog.DiscardHandler))}
	if err := c.prepareDir(); err != nil {
		return nil, err
	}
	if err := c.initdb(ctx, opt.Throwaway); err != nil {
		return nil, err
	}
	if port, ok := c.runningPort(); ok {
		c.port = port
		c.guest = c.claimByOther()
		c.logger.Info("reusing PostgreSQL already running", "data_dir", dir, "port", port, "shared", c.guest)
		return c, nil
	}
	c.port = opt.Port
	if c.port == 0 {
		if c.port, err = freePort(); err != nil {
			return nil, fmt.Errorf("pglocal: choose a port: %w", err)
		}
	}
	if err := c.start(ctx, opt.Throwaway); err != nil {
		return nil, err
	}
	c.claim()
	c.logger.Info("started private PostgreSQL", "data_dir", dir, "port", c.port)
	return c, nil
}

// Port is the TCP port the cluster listens on at 127.0.0.1.
func (c *Cluster) Port() int { return c.port }

// URL returns a connection URL for database name.
func (c *Cluster) URL(database string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(superuser, c.password),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)), Path: "/" + database,
		RawQuery: "sslmode=disable"}
	return u.String()
}

// Stop shuts the cluster down (fast mode: open sessions are ended), unless another
// live process started it and still uses it. Safe to call twice.
func (c *Cluster) Stop(ctx context.Context) error {
	c.stopping.Store(true)
	c.stopOnce.Do(func() {
		if c.guest {
			return
		}
		if _, err := c.pgCtl(ctx, "stop", "-D", c.pgdata, "-m", "fast", "-w", "-t", "60"); err != nil {
			c.stopErr = fmt.Errorf("pglocal: stop: %w", err)
			return
		}
		c.logger.Info("stopped private PostgreSQL", "data_dir", c.dir)
	})
	return c.stopErr
}

func (c *Cluster) prepareDir() error {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return fmt.Errorf("DATA_DIR %s is not usable (%v): choose a writable directory", c.dir, unwrapPath(err))
	}
	if err := c.owner.chown(c.dir); err != nil {
		return fmt.Errorf("DATA_DIR %s is not usable (%v): choose a directory the %s user can own", c.dir, unwrapPath(err), superuser)
	}
	pw, err := os.ReadFile(c.passwordFile())
	switch {
	case err == nil:
		c.password = strings.TrimSpace(string(pw))
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("DATA_DIR %s is not usable: cannot read its password file (%v)", c.dir, unwrapPath(err))
	case fileExists(filepath.Join(c.pgdata, "PG_VERSION")):
		return fmt.Errorf("DATA_DIR %s holds a cluster but no password file: restore %s or move the directory away", c.dir, c.passwordFile())
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	c.password = hex.EncodeToString(b)
	if err := os.WriteFile(c.passwordFile(), []byte(c.password+"\n"), 0o600); err != nil {
		return fmt.Errorf("DATA_DIR %s is not usable (%v): choose a writable directory", c.dir, unwrapPath(err))
	}
	return c.owner.chown(c.passwordFile())
}

func (c *Cluster) passwordFile() string { return filepath.Join(c.dir, "password") }

func (c *Cluster) initdb(ctx context.Context, throwaway bool) error {
	if fileExists(filepath.Join(c.pgdata, "PG_VERSION")) {
		return c.checkVersion()
	}
	if entries, err := os.ReadDir(c.pgdata); err == nil && len(entries) > 0 {
		return fmt.Errorf("DATA_DIR %s: %s is not empty and holds no PostgreSQL cluster: empty it or choose another DATA_DIR", c.dir, c.pgdata)
	}
	args := []string{"-D", c.pgdata, "-U", superuser, "--auth=scram-sha-256", "--pwfile=" + c.passwordFile(),
		"-E", "UTF8", "--locale=C"}
	if throwaway {
		args = append(args, "--no-sync")
	}
	if out, err := c.run(ctx, filepath.Join(c.binDir, "initdb"), args...); err != nil {
		return fmt.Errorf("pglocal: initdb in %s failed: %s", c.pgdata, lastLine(out, err))
	}
	return nil
}

func (c *Cluster) checkVersion() error {
	b, err := os.ReadFile(filepath.Join(c.pgdata, "PG_VERSION"))
	if err != nil {
		return fmt.Errorf("DATA_DIR %s is not usable (%v)", c.dir, unwrapPath(err))
	}
	have := strings.TrimSpace(string(b))
	out, err := exec.Command(filepath.Join(c.binDir, "postgres"), "--version").Output()
	if err == nil && !strings.Contains(string(out), " "+have+".") {
		return fmt.Errorf("DATA_DIR %s was created by PostgreSQL %s but the installed server is %s: install PostgreSQL %s or choose another DATA_DIR",
			c.dir, have, strings.TrimSpace(string(out)), have)
	}
	return nil
}

func (c *Cluster) start(ctx context.Context, throwaway bool) error {
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=''", c.port)
	if throwaway {
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
		if fileExists(filepath.Join(c.binDir, "..", "lib", "pg_stat_statements.so")) {
			opts += " -c shared_preload_libraries=pg_stat_statements" // benchmarks count statements with it
		}
	}
	logFile := filepath.Join(c.dir, "postgres.log")
	if out, err := c.pgCtl(ctx, "start", "-D", c.pgdata, "-w", "-t", "60", "-l", logFile, "-o", opts); err != nil {
		return fmt.Errorf("pglocal: PostgreSQL did not start (see %s): %s", logFile, lastLine(out, err))
	}
	return nil
}

// runningPort reports the port of a server already running on this data directory.
func (c *Cluster) runningPort() (int, bool) {
	if _, err := c.pgCtl(context.Background(), "status", "-D", c.pgdata); err != nil {
		return 0, false
	}
	b, err := os.ReadFile(filepath.Join(c.pgdata, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 {
		return 0, false
	}
	port, err := strconv.Atoi(strings.TrimSpace(lines[3]))
	return port, err == nil
}

func (c *Cluster) pgCtl(ctx context.Context, args ...string) ([]byte, error) {
	return c.run(ctx, filepath.Join(c.binDir, "pg_ctl"), args...)
}

func (c *Cluster) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	c.owner.apply(cmd)
	err := cmd.Run()
	return out.Bytes(), err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func lastLine(out []byte, err error) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return last
	}
	return err.Error()
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
