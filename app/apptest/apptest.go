// Package apptest builds the Checkup binary and runs it as a real OS process, for
// tests of start-up, shutdown, takeover and many instances on one database; and reads
// the CPU time of processes (the server, PostgreSQL) from /proc for benchmarks.
package apptest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Build compiles ./app into dir and returns the binary's path.
func Build(tb testing.TB, dir string) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	bin := filepath.Join(dir, "checkup")
	cmd := exec.Command("go", "build", "-o", bin, "./app")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("apptest: build: %v\n%s", err, out)
	}
	return bin
}

// Process is a running Checkup.
type Process struct {
	Cmd  *exec.Cmd
	Addr string
	out  SyncBuffer
	done chan struct{}
	err  error
}

// Start runs bin with args and env (added to a minimal environment). When env has no
// ADDR, a free loopback port is chosen. The process is killed when the test ends.
func Start(tb testing.TB, bin string, env []string, args ...string) *Process {
	tb.Helper()
	p := &Process{done: make(chan struct{})}
	if !hasKey(env, "ADDR") {
		p.Addr = FreeAddr(tb)
		env = append(env, "ADDR="+p.Addr)
	} else {
		p.Addr = valueOf(env, "ADDR")
	}
	p.Cmd = exec.Command(bin, args...)
	p.Cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	p.Cmd.Stdout, p.Cmd.Stderr = &p.out, &p.out
	if err := p.Cmd.Start(); err != nil {
		tb.Fatalf("apptest: start: %v", err)
	}
	go func() { p.err = p.Cmd.Wait(); close(p.done) }()
	tb.Cleanup(func() {
		_ = p.Cmd.Process.Kill()
		<-p.done
		if tb.Failed() {
			tb.Logf("output of %s:\n%s", bin, p.Output())
		}
	})
	return p
}

// Output is what the process printed so far.
func (p *Process) Output() string { return p.out.String() }

// WaitOutput polls until the process has printed text, and fails the test if it has
// not within timeout. What the process wrote before it answered a request may reach
// Output after the answer: it comes through a pipe.
func (p *Process) WaitOutput(tb testing.TB, timeout time.Duration, text string) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(p.Output(), text) {
		if time.Now().After(deadline) {
			tb.Fatalf("apptest: %q not printed within %s:\n%s", text, timeout, p.Output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Signal sends sig to the process.
func (p *Process) Signal(sig syscall.Signal) error { return p.Cmd.Process.Signal(sig) }

// Wait waits up to timeout for the process to exit and returns its exit code.
func (p *Process) Wait(timeout time.Duration) (int, error) {
	select {
	case <-p.done:
		return p.Cmd.ProcessState.ExitCode(), nil
	case <-time.After(timeout):
		return -1, fmt.Errorf("process still running after %s", timeout)
	}
}

// WaitReady polls /readyz until it answers 200 or the deadline passes.
func (p *Process) WaitReady(tb testing.TB, timeout time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			tb.Fatalf("apptest: process exited before ready:\n%s", p.Output())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.Addr+"/readyz", nil)
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Fatalf("apptest: not ready after %s:\n%s", timeout, p.Output())
}

// FreeAddr returns a loopback address with a port nobody listens on now.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func hasKey(env []string, key string) bool { return valueOf(env, key) != "" }

func valueOf(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if len(env[i]) > len(key) && env[i][:len(key)+1] == key+"=" {
			return env[i][len(key)+1:]
		}
	}
	return ""
}

// SyncBuffer is a buffer that the goroutines of a process or a server can write to at
// once, such as their output or their log, read whole with String.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
