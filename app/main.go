// Command app is Checkup: `app` serves the dashboard with the embedded worker,
// `app worker` runs the worker alone, `app migrate` migrates and exits, `app check`
// is a CI step against a server.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/checkup-dev/checkup/app/check"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "checkup:", err)
		var exit *check.ExitError
		if errors.As(err, &exit) {
			os.Exit(exit.Code)
		}
		os.Exit(1)
	}
}
