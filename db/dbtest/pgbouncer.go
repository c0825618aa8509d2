package dbtest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// PgBouncer starts Debian's pgbouncer (found on PATH or in /usr/sbin) in front of the
// database at dbURL in the given pool mode ("session" or "transaction") with at most
// servers connections to it, stopped when the test ends, and returns a URL to the same
// database through it. In transaction mode, fewer servers than clients make the
// clients share them as they do in production.
func PgBouncer(tb testing.TB, dbURL, mode string, servers int) string {
	tb.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		bin = "/usr/sbin/pgbouncer"
	}
	if _, err := os.Stat(bin); err != nil {
		tb.Fatalf("dbtest: pgbouncer is not installed (Debian: apt-get install pgbouncer): %v", err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	password, _ := u.User.Password()
	dir, err := os.MkdirTemp("", "checkup-pgbouncer-")
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	port := freeTCPPort(tb)
	database := strings.TrimPrefix(u.Path, "/")
	ini := fmt.Sprintf(`[databases]
%s = host=%s port=%s dbname=%s
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = scram-sha-256
auth_file = %s
pool_mode = %s
default_pool_size = %d
max_client_conn = 200
ignore_startup_parameters = extra_float_digits
logfile = %s
pidfile = %s
`, database, u.Hostname(), u.Port(), database, port, filepath.Join(dir, "users.txt"), mode, servers,
		filepath.Join(dir, "pgbouncer.log"), filepath.Join(dir, "pgbouncer.pid"))
	files := map[string]string{
		"pgbouncer.ini": ini,
		"users.txt":     fmt.Sprintf("%q %q\n", u.User.Username(), password),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			tb.Fatalf("dbtest: %v", err)
		}
	}
	cmd := exec.Command(bin, "-q", filepath.Join(dir, "pgbouncer.ini"))
	if err := runAsPostgresWhenRoot(cmd, dir); err != nil {
		tb.Fatalf("dbtest: pgbouncer: %v", err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("dbtest: start pgbouncer: %v", err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	waitListening(tb, addr, filepath.Join(dir, "pgbouncer.log"))
	through := *u
	through.Host = addr
	return through.String()
}

// runAsPostgresWhenRoot makes cmd run as the postgres user when the tests run as root,
// since pgbouncer refuses to run as root, and lets that user read dir.
func runAsPostgresWhenRoot(cmd *exec.Cmd, dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	pg, err := user.Lookup("postgres")
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(pg.Uid)
	gid, _ := strconv.Atoi(pg.Gid)
	entries, _ := os.ReadDir(dir)
	for _, e := range append(entries, nil) {
		path := dir
		if e != nil {
			path = filepath.Join(dir, e.Name())
		}
		if err := os.Chown(path, uid, gid); err != nil {
			return err
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	return nil
}

func freeTCPPort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitListening(tb testing.TB, addr, logFile string) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := net.Dialer{Timeout: time.Second}
		conn, err := d.DialContext(context.Background(), "tcp", addr)
		if err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logFile)
			tb.Fatalf("dbtest: pgbouncer does not listen at %s: %v\n%s", addr, err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
