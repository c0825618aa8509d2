package ingest

import "cmp"

// Limits bound what one upload may hold, so a hostile or mistaken file is refused with a
// clear sentence before it can exhaust memory or the database. A zero field takes its
// default from DefaultLimits, so callers set only what they want to change.
type Limits struct {
	// MaxDecompressedBytes caps the text read after un-gzipping; reading stops as soon
	// as it is passed, so a gzip bomb is never expanded in full.
	MaxDecompressedBytes int64
	// MaxLineBytes caps one JSONL or CSV line, one record (a conversation, a span, a
	// run) inside a JSON document, and the text of one conversation in every format, so
	// no single record can make the parser buffer without bound.
	MaxLineBytes int
	// MaxConversations caps the conversations in one file.
	MaxConversations int
	// MaxMessages caps the messages in one conversation.
	MaxMessages int
	// MaxMessageChars caps the characters (Unicode code points) of one message: its
	// content plus the arguments of its tool calls.
	MaxMessageChars int
	// SpillBytes is how much of an upload may wait in memory to be regrouped (CSV rows
	// of interleaved conversations, trace spans spread over the file) before it is
	// written to a temporary file in TempDir ("" for the system's, $TMPDIR).
	SpillBytes int
	TempDir    string
}

// DefaultLimits returns the limits used when the caller sets none: generous for real
// exports, small enough that one upload cannot take the server down.
func DefaultLimits() Limits {
	return Limits{
		MaxDecompressedBytes: 1 << 30,
		MaxLineBytes:         8 << 20,
		MaxConversations:     50_000,
		MaxMessages:          2_000,
		MaxMessageChars:      200_000,
		SpillBytes:           16 << 20,
	}
}

// withDefaults fills every zero or negative field from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	return Limits{
		MaxDecompressedBytes: positive(l.MaxDecompressedBytes, d.MaxDecompressedBytes),
		MaxLineBytes:         positive(l.MaxLineBytes, d.MaxLineBytes),
		MaxConversations:     positive(l.MaxConversations, d.MaxConversations),
		MaxMessages:          positive(l.MaxMessages, d.MaxMessages),
		MaxMessageChars:      positive(l.MaxMessageChars, d.MaxMessageChars),
		SpillBytes:           positive(l.SpillBytes, d.SpillBytes),
		TempDir:              l.TempDir,
	}
}

// positive returns v when it is above zero and def otherwise.
func positive[T int | int64](v, def T) T {
	return cmp.Or(max(v, 0), def)
}
