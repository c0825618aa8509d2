package pglocal

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrNoBinaries is returned when no initdb/pg_ctl can be found.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found: " +
	"install them (Debian/Ubuntu: apt-get install postgresql) or set DATABASE_URL to an existing database")

// findBinDir returns the directory holding initdb and pg_ctl: from PATH, then
// `pg_config --bindir`, then the newest /usr/lib/postgresql/*/bin.
func findBinDir() (string, error) {
	if initdb, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(initdb); err == nil && hasServer(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
		if hasServer(filepath.Dir(initdb)) {
			return filepath.Dir(initdb), nil
		}
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); hasServer(dir) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return majorOf(b) - majorOf(a) })
	for _, dir := range dirs {
		if hasServer(dir) {
			return dir, nil
		}
	}
	return "", ErrNoBinaries
}

func hasServer(dir string) bool {
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.IsDir() {
			return false
		}
	}
	return true
}

// majorOf reads the major version from a path like /usr/lib/postgresql/15/bin.
func majorOf(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}
