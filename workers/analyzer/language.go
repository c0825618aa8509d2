package analyzer

import (
	"context"

	"github.com/checkup-dev/checkup/db/locale"
)

// languageKey keys the task's language in a context.
type languageKey struct{}

// WithLanguage returns ctx carrying code, the language (locale.English or
// locale.Chinese) the task's diagnoses and Actions are to be written in: what an
// analyzer that writes words (a model) writes them in. The pipeline sets it per task.
func WithLanguage(ctx context.Context, code string) context.Context {
	return context.WithValue(ctx, languageKey{}, code)
}

// LanguageOf is the language ctx carries; English when it carries none.
func LanguageOf(ctx context.Context) string {
	if code, _ := ctx.Value(languageKey{}).(string); code != "" {
		return code
	}
	return locale.English
}
