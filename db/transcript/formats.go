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

// The families, in the order the upload page shows them.
const (
	FamilyOpenAIJSONL Family = "openai-jsonl"
	FamilyOpenAIJSON  Family = "openai-json"
	FamilyShareGPT    Family = "sharegpt"
	FamilyCSV         Family = "csv"
	FamilyAnthropic   Family = "anthropic"
	FamilyTraces      Family = "traces"
)

// Families lists the families in the order the upload page shows them.
func Families() []Family {
	return []Family{FamilyOpenAIJSONL, FamilyOpenAIJSON, FamilyShareGPT, FamilyCSV, FamilyAnthropic, FamilyTraces}
}

// Formats lists every format an upload may be.
func Formats() []Format {
	return []Format{
		{"openai-jsonl", FamilyOpenAIJSONL, "OpenAI chat JSONL"},
		{"openai-json", FamilyOpenAIJSON, "OpenAI chat JSON"},
		{"sharegpt-jsonl", FamilyShareGPT, "ShareGPT JSONL"},
		{"sharegpt-json", FamilyShareGPT, "ShareGPT JSON"},
		{"csv", FamilyCSV, "CSV"},
		{"anthropic-jsonl", FamilyAnthropic, "Anthropic Messages JSONL"},
		{"anthropic-json", FamilyAnthropic, "Anthropic Messages JSON"},
		{"otlp-jsonl", FamilyTraces, "OpenTelemetry spans (JSON lines)"},
		{"otlp-json", FamilyTraces, "OpenTelemetry spans (OTLP JSON)"},
		{"langfuse-jsonl", FamilyTraces, "Langfuse traces JSONL"},
		{"langfuse-json", FamilyTraces, "Langfuse traces JSON"},
		{"langsmith-jsonl", FamilyTraces, "LangSmith runs JSONL"},
		{"langsmith-json", FamilyTraces, "LangSmith runs JSON"},
	}
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
