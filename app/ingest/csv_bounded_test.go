package ingest_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/app/ingest/ingesttest"
	"github.com/checkup-dev/checkup/db/transcript"
)

// TestCSVInterleavedSpills parses the sample written as an interleaved CSV (each
// conversation's rows spread over the whole file, last turn first) with an in-memory
// budget far smaller than the file: the rows wait in a temporary file, the result is the
// same as with everything in memory, and the temporary file is gone afterwards.
func TestCSVInterleavedSpills(t *testing.T) {
	t.Parallel()
	orig, _ := mustParse(t, readSample(t))
	want := ingesttest.Map(orig, func(c *transcript.Conversation) { c.Metadata, c.Label = nil, "" })
	data := writeCSV(t, orig)
	dir := t.TempDir()

	inMemory, memSum := mustParse(t, data)
	spilled, sum, err := parseBytes(t, data, ingest.Limits{SpillBytes: 64 << 10, TempDir: dir})

	require.NoError(t, err)
	require.Zero(t, memSum.SpilledBytes, "the default budget holds the sample")
	require.Greater(t, sum.SpilledBytes, int64(len(data))/2, "most rows waited on disk")
	require.Equal(t, canonical(t, want), canonical(t, inMemory))
	require.Equal(t, canonical(t, want), canonical(t, spilled))
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, left, "the temporary file is removed")
}

// TestCSVSpillKeepsEmptySessions checks that conversations named only by session rows
// keep their place among spilled conversations.
func TestCSVSpillKeepsEmptySessions(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("conversation_id,role,content\nempty-first,,\n")
	for i := range 400 {
		for _, id := range []string{"a", "b"} {
			b.WriteString(id + ",user,message number " + strings.Repeat("x", i%7) + "\n")
		}
	}
	b.WriteString("empty-last,,\n")

	convs, sum, err := parseBytes(t, []byte(b.String()), ingest.Limits{SpillBytes: 4 << 10, TempDir: t.TempDir()})

	require.NoError(t, err)
	require.Positive(t, sum.SpilledBytes)
	var ids []string
	for _, c := range convs {
		ids = append(ids, c.ID)
	}
	require.Equal(t, []string{"empty-first", "a", "b", "empty-last"}, ids)
	require.Len(t, convs[1].Messages, 400)
	require.Empty(t, convs[3].Messages)
}

// TestCSVConversationLimitsWhileReading checks that a CSV conversation is refused as
// soon as its rows pass a per-conversation limit, at the conversation's first row.
func TestCSVConversationLimitsWhileReading(t *testing.T) {
	t.Parallel()
	rows := "conversation_id,role,content\n" + strings.Repeat("a,user,0123456789\nb,user,x\n", 20)

	_, _, err := parseBytes(t, []byte(rows), ingest.Limits{MaxLineBytes: 100})

	require.ErrorIs(t, err, ingest.ErrLineTooLong)
	requireRefusal(t, err, "The conversation starting at row 2 is larger than the 100 bytes limit for one conversation.")
}

// TestShareGPTDocumentChecksTurnsAsTheyArrive reads one pretty-printed ShareGPT
// conversation: a turn over the message limit is refused at its own line, and turns
// whose sum passes the conversation limit are refused before the rest is gathered.
func TestShareGPTDocumentChecksTurnsAsTheyArrive(t *testing.T) {
	t.Parallel()
	turn := func(from, value string) string { return `  {"from": "` + from + `", "value": "` + value + `"}` }
	doc := func(turns ...string) []byte {
		return []byte("{\"id\": \"s\", \"conversations\": [\n" + strings.Join(turns, ",\n") + "\n]}\n")
	}

	_, _, err := parseBytes(t, doc(turn("human", "hi"), turn("gpt", "hello"), turn("human", strings.Repeat("é", 30))), ingest.Limits{MaxMessageChars: 20})
	require.ErrorIs(t, err, ingest.ErrMessageTooLong)
	requireRefusal(t, err, "The message at line 4 has 30 characters, over the limit of 20 characters per message.")

	many := make([]string, 30)
	for i := range many {
		many[i] = turn("human", "0123456789")
	}
	_, _, err = parseBytes(t, doc(many...), ingest.Limits{MaxLineBytes: 200})
	require.ErrorIs(t, err, ingest.ErrLineTooLong)
	requireRefusal(t, err, "The conversation starting at line 1 is larger than the 200 bytes limit for one conversation.")
}

// TestCSVRecordLimitCountsEachRecord reads records whose quoted fields hold newlines
// and escaped quotes, each under the limit and all together far over it: the limit is
// per record, so every one is read.
func TestCSVRecordLimitCountsEachRecord(t *testing.T) {
	t.Parallel()
	var rows strings.Builder
	rows.WriteString("conversation_id,role,content\n")
	for i := range 40 {
		fmt.Fprintf(&rows, "c%d,user,\"say \"\"hi\"\",\nthen \"\"bye\"\"\"\n", i)
	}

	convs, _, err := parseBytes(t, []byte(rows.String()), ingest.Limits{MaxLineBytes: 100})

	require.NoError(t, err)
	require.Len(t, convs, 40)
	require.Equal(t, "say \"hi\",\nthen \"bye\"", convs[39].Messages[0].Content)
}
