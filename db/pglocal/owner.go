package pglocal

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// osUser is the account the cluster runs as when the process is root; nil otherwise.
type osUser struct{ uid, gid uint32 }

func clusterOwner() (*osUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(superuser)
	if err != nil {
		return nil, fmt.Errorf("running as root, the private PostgreSQL must run as the %q user, which does not exist: "+
			"install the postgresql package, run as another user, or set DATABASE_URL", superuser)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &osUser{uint32(uid), uint32(gid)}, nil
}

func (u *osUser) chown(path string) error {
	if u == nil {
		return nil
	}
	return os.Chown(path, int(u.uid), int(u.gid))
}

func (u *osUser) apply(cmd *exec.Cmd) {
	if u == nil {
		return
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.uid, Gid: u.gid}}
}
