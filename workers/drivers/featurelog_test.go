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
	require.NoError(t, log.FillMembers(m))
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
	require.ErrorContains(t, log.FillMembers(m), "feature log")
	require.Nil(t, m.Drivers()[0].Conversations)
}

// TestFeatureLogNoticesATruncatedFile: a record cut short is an error, not a shorter
// list, and leaves the drivers as they were for the second pass.
func TestFeatureLogNoticesATruncatedFile(t *testing.T) {
	t.Parallel()
	log, err := NewFeatureLog(t.TempDir())
	require.NoError(t, err)
	log.Add(Conversation{Seq: 1, Features: []Feature{{KindTool, "a"}, {KindTool, "b"}}})
	log.Add(Conversation{Seq: 2, Features: []Feature{{KindTool, "a"}, {KindTool, "b"}}})
	log.size -= 3
	m := NewMembers([]Driver{{Feature: Feature{KindTool, "a"}}})
	require.ErrorContains(t, log.FillMembers(m), "feature log")
	require.Nil(t, m.Drivers()[0].Conversations, "nothing of what was read before the error")
	require.NoError(t, log.Close())
}

// TestFeatureLogListsAConversationOnce: a feature a conversation has twice (a tool it
// called twice) lists it once, and conversations stored out of order come out in
// upload order.
func TestFeatureLogListsAConversationOnce(t *testing.T) {
	t.Parallel()
	log, err := NewFeatureLog(t.TempDir())
	require.NoError(t, err)
	twice := []Feature{{KindTool, "cancel_order"}, {KindUserWords, "cancel"}, {KindTool, "cancel_order"}}
	log.Add(Conversation{Seq: 3, Features: twice})
	log.Add(Conversation{Seq: 1, Features: twice})
	log.Add(Conversation{Seq: 2, Features: []Feature{{KindUserWords, "cancel"}}})
	m := NewMembers([]Driver{{Feature: Feature{KindTool, "cancel_order"}}, {Feature: Feature{KindUserWords, "cancel"}}})
	require.NoError(t, log.FillMembers(m))
	require.Equal(t, []int{1, 3}, m.Drivers()[0].Conversations)
	require.Equal(t, []int{1, 2, 3}, m.Drivers()[1].Conversations)
	require.NoError(t, log.Close())
}
