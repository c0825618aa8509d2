// Package ingest turns an uploaded export of agent conversations into the normalised
// transcript model, as a stream: the format is sniffed from the first bytes (after
// un-gzipping when the data starts with the gzip magic, whatever the file is called)
// and each conversation is handed to the caller as soon as it is complete, so a large
// file is never held whole.
//
// Formats (Summary.Format):
//
//   - "openai-jsonl": one {"messages": [...]} object per line, with optional
//     "conversation_id" or "id" and "metadata" (kept verbatim). Content may be a string,
//     null or an array of parts (text parts joined by newlines, other parts replaced by
//     a bracketed placeholder naming their kind); tool_calls keep their id, name and
//     arguments text.
//   - "openai-json": a JSON array of those objects, a {"conversations": [...]} wrapper of
//     them, or one pretty-printed object. Read token by token, one conversation at a time.
//   - "sharegpt-jsonl", "sharegpt-json": {"conversations": [{"from", "value"}], "id"}.
//     ShareGPT has no tool call ids and no tool_call_id on tool results: those are lost.
//   - "csv": a header, then one message per row, delimited by commas, semicolons or
//     tabs. Header names match loosely (case, spaces, '_' and '-' do not matter):
//     conversation_id (or conversation, session_id, thread_id, chat_id, dialog_id),
//     role (speaker, from, sender, author) and content (message, text, body, value) are
//     required; order (seq, turn, index, position, message_index), time (timestamp,
//     created_at, ts), name, tool_call_id and tool_calls (a JSON array) are optional.
//     Rows are grouped by conversation in order of first appearance and sorted by the
//     order column, then the time column, when present. The whole CSV is held in
//     memory until its end, since a conversation's rows may be anywhere in the file;
//     metadata cannot be carried.
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
