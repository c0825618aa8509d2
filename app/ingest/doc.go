// Package ingest turns an uploaded export of agent conversations into the normalised
// transcript model, as a stream: the format is sniffed from the first bytes (after
// un-gzipping when the data starts with the gzip magic, whatever the file is called)
// and each conversation is handed to the caller as soon as it is complete, so a large
// file is never held whole.
//
// Formats (Summary.Format), each described with its sources in docs/formats.md:
//
//   - "openai-jsonl", "openai-json": {"messages": [...]} conversations, one per line or
//     in a JSON document (an array, a {"conversations": [...]} wrapper, one object).
//   - "anthropic-jsonl", "anthropic-json": Anthropic Messages conversations (top-level
//     "system", content blocks text / tool_use / tool_result).
//   - "sharegpt-jsonl", "sharegpt-json": {"conversations": [{"from", "value"}]}.
//   - "csv": one message per row, grouped by a conversation id column.
//   - "otlp-jsonl", "otlp-json": OpenTelemetry traces in OTLP JSON, read by the GenAI
//     semantic conventions, OpenInference or OpenLLMetry attributes.
//   - "langfuse-jsonl", "langfuse-json": Langfuse traces, observations and scores.
//   - "langsmith-jsonl", "langsmith-json": LangSmith runs.
//
// The trace formats record model calls: their calls are filed by conversation and each
// conversation is rebuilt once at the end (trace.go, rebuild.go). Records that must be
// regrouped (CSV rows, calls) wait in a bounded spill (spill.go), in memory up to
// Limits.SpillBytes and in a temporary file past it. Outcome labels are read from
// metadata or a column (label.go, labels.go).
//
// Ids: the export's own id is kept; a conversation without one gets "conv-0001" style
// ids from its position; a repeated id gets a "-2", "-3", ... suffix and a warning.
//
// Errors: a bad file is refused as a whole. Problems at known places ("line 17: ...",
// "row 12: ...") are collected into an *Error (the first MaxProblems, then a count);
// whole-file reasons (empty, unknown format, not UTF-8, over a Limits bound, damaged
// gzip) are a *FileError, one sentence each. IsRejected tells both from failures to
// read the upload or to store a conversation.
package ingest
