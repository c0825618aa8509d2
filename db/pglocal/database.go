package pglocal

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// CreateDatabase creates database name unless it exists, optionally as a copy of
// template (empty for the default).
func (c *Cluster) CreateDatabase(ctx context.Context, name, template string) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("pglocal: connect: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("pglocal: look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	stmt := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	if template != "" {
		stmt += " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	}
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("pglocal: create database %s: %w", name, err)
	}
	return nil
}
