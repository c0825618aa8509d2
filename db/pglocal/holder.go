package pglocal

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The holder file names the process responsible for stopping the server: the one that
// started it, or one that adopted it after that process died (a SIGKILL leaves the
// server running). A second process on the same DATA_DIR (`app worker` beside `app`)
// is a guest and leaves the server to its holder.

func (c *Cluster) holderFile() string { return filepath.Join(c.dir, "holder.pid") }

// claim records this process as the holder.
func (c *Cluster) claim() {
	_ = os.WriteFile(c.holderFile(), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
}

// claimByOther reports whether a live process other than this one holds the server;
// if none does, this process becomes the holder.
func (c *Cluster) claimByOther() bool {
	b, err := os.ReadFile(c.holderFile())
	if err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if pid > 0 && pid != os.Getpid() && alive(pid) {
			return true
		}
	}
	c.claim()
	return false
}

func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
