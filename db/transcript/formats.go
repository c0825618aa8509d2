package transcript

import "slices"

// Format is a kind of file an upload may be: the name the upload parser reports and a
// task records (analysis_task.source_format, "+gzip" added for a compressed file), the
// entry of the upload page that explains it, and its name for people. Formats is the one
// list of them, described with their sources in docs/formats.md.
type Format struct {
	Name   string
	Family Family
	Label  string
}

// Family is one entry of the upload page's list of what it accepts: the formats it
// explains together, a document and its JSON-lines form, or the trace exports.
type Family string

// Families lists the families in the order the upload page shows them; the page's
// entries and the formats' families are held to it by their tests.
func Families() []Family {
	return []Family{"openai-jsonl", "openai-json", "sharegpt", "csv", "anthropic", "traces"}
}

// Formats lists every format an upload may be. Most come as JSON lines and as one JSON
// document, named as the upload parser names them: the kind, "-jsonl" or "-json".
func Formats() []Format {
	return slices.Concat(
		[]Format{{"openai-jsonl", "openai-jsonl", "OpenAI chat JSONL"}, {"openai-json", "openai-json", "OpenAI chat JSON"}},
		linesAndDocument("sharegpt", "sharegpt", "ShareGPT"),
		[]Format{{"csv", "csv", "CSV"}},
		linesAndDocument("anthropic", "anthropic", "Anthropic Messages"),
		[]Format{{"otlp-jsonl", "traces", "OpenTelemetry spans (JSON lines)"}, {"otlp-json", "traces", "OpenTelemetry spans (OTLP JSON)"}},
		linesAndDocument("langfuse", "traces", "Langfuse traces"),
		linesAndDocument("langsmith", "traces", "LangSmith runs"),
	)
}

// linesAndDocument is a kind of file as JSON lines and as one JSON document.
func linesAndDocument(kind string, family Family, label string) []Format {
	return []Format{{kind + "-jsonl", family, label + " JSONL"}, {kind + "-json", family, label + " JSON"}}
}

// FormatNamed returns the format of that name, false for a name not in Formats.
func FormatNamed(name string) (Format, bool) {
	formats := Formats()
	i := slices.IndexFunc(formats, func(f Format) bool { return f.Name == name })
	if i < 0 {
		return Format{}, false
	}
	return formats[i], true
}

// FormatLabel is the name of a format for people, or the name itself for one not in
// Formats (a task recorded by another version).
func FormatLabel(name string) string {
	if f, ok := FormatNamed(name); ok {
		return f.Label
	}
	return name
}
