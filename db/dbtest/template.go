package dbtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/jackc/pgx/v5"

	"github.com/checkup-dev/checkup/db"
)

// templateName names the migrated template database after the migrations' content, so
// a changed schema gets a new template and test binaries sharing a server agree.
func templateName() string {
	h := sha256.New()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "migrations")
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(path)
			h.Write(b)
		}
		return nil
	})
	return "checkup_tmpl_" + hex.EncodeToString(h.Sum(nil))[:12]
}

// ensureTemplate creates and migrates the template once per server, under an advisory
// lock so test binaries starting together do not race.
func ensureTemplate(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, server.adminURL)
	if err != nil {
		return fmt.Errorf("connect to test server: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(7263)"); err != nil {
		return err
	}
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock(7263)") //nolint:errcheck
	name := templateName()
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return fmt.Errorf("create template: %w", err)
	}
	pool, err := db.Open(ctx, withDatabase(server.adminURL, name))
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := db.Migrate(ctx, pool, discardLogger()); err != nil {
		_, _ = conn.Exec(ctx, "DROP DATABASE "+name)
		return err
	}
	return nil
}
