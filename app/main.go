// Command app is Checkup: `app` serves the dashboard with the embedded worker,
// `app worker` runs the worker alone, `app migrate` migrates and exits.
package main

import (
	"context"
	"fmt"
	"os"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "checkup:", err)
		os.Exit(1)
	}
}
