package locale

import "context"

// ctxKey keys the request's Localizer in a context.
type ctxKey struct{}

// NewContext returns ctx carrying l: the web layer puts the reader's Localizer there,
// and the templates read it (From, T, N).
func NewContext(ctx context.Context, l *Localizer) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// From returns the Localizer ctx carries; nil when it carries none, which writes
// message keys (see Localizer).
func From(ctx context.Context) *Localizer {
	l, _ := ctx.Value(ctxKey{}).(*Localizer)
	return l
}

// T writes message id in the language of ctx's Localizer (Localizer.T).
func T(ctx context.Context, id string, args ...any) string { return From(ctx).T(id, args...) }

// N writes message id in the plural form of count (Localizer.N).
func N(ctx context.Context, id string, count int, args ...any) string {
	return From(ctx).N(id, count, args...)
}
