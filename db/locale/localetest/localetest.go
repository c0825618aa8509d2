// Package localetest gives tests the Localizers of the embedded catalogs, and contexts
// that carry them, as a request's would.
package localetest

import (
	"context"
	"testing"

	"github.com/checkup-dev/checkup/db/locale"
)

// Bundle loads the embedded catalogs.
func Bundle(tb testing.TB) *locale.Bundle {
	tb.Helper()
	b, err := locale.New()
	if err != nil {
		tb.Fatalf("localetest: %v", err)
	}
	return b
}

// English is the English Localizer.
func English(tb testing.TB) *locale.Localizer {
	tb.Helper()
	return Bundle(tb).English()
}

// Chinese is the Simplified Chinese Localizer.
func Chinese(tb testing.TB) *locale.Localizer {
	tb.Helper()
	l, _ := Bundle(tb).For(locale.Chinese)
	return l
}

// Context is a context carrying l, as a request's does.
func Context(l *locale.Localizer) context.Context { return locale.NewContext(context.Background(), l) }
