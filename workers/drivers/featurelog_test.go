package drivers

import (
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFeatureLogLeavesNoFile: the log's file is unlinked as soon as it is made, so a
// worker that dies with it open leaves nothing in the directory.
func TestFeatureLogLeavesNoFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log, err := NewFeatureLog(dir)
	require.NoError(t, err)
	log.Add(Conversation{Seq: 1, Features: []Feature{{KindTool, "cancel_order"}}})
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)

	m := NewMembers([]Driver{{Feature: Feature{KindTool, "cancel_order"}}})
	require.NoError(t, log.Members(m))
	require.Equal(t, []int{1}, m.Drivers()[0].Conversations)
	require.NoError(t, log.Close())
}

// TestFeatureLogReportsAFailedWrite: a log whose file fails says so, so that its
// caller reads the conversations again instead of listing too few.
func TestFeatureLogReportsAFailedWrite(t *testing.T) {
	t.Parallel()
	log, err := NewFeatureLog(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, log.file.Close()) // every write from now on fails
	// More than the buffer holds, so that the writes reach the closed file.
	for seq := 1; seq <= 5000; seq++ {
		log.Add(Conversation{Seq: seq, Features: []Feature{{KindUserWords, "word" + strconv.Itoa(seq)}, {KindTool, "cancel_order"}}})
	}
	m := NewMembers([]Driver{{Feature: Feature{KindTool, "cancel_order"}}})
	require.ErrorContains(t, log.Members(m), "feature log")
	require.Nil(t, m.Drivers()[0].Conversations)
}

// TestFeatureLogNoticesATruncatedFile: a record cut short is an error, not a shorter
// list.
func TestFeatureLogNoticesATruncatedFile(t *testing.T) {
	t.Parallel()
	log, err := NewFeatureLog(t.TempDir())
	require.NoError(t, err)
	log.Add(Conversation{Seq: 1, Features: []Feature{{KindTool, "a"}, {KindTool, "b"}}})
	log.size -= 3
	require.ErrorContains(t, log.Members(NewMembers([]Driver{{Feature: Feature{KindTool, "a"}}})), "feature log")
	require.NoError(t, log.Close())
}
