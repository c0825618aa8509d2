package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/check"
	"github.com/checkup-dev/checkup/report"
)

// TestCheckFailsWhenAClusterGotWorse runs the README's CI recipe against the real
// server three times with one title: a first run, with the conversations of the
// sample's largest issue cluster taken out, has nothing to compare with and passes;
// the whole sample then brings that cluster back and the check fails (exit 1) naming
// it; the whole sample once more is the same as the run before and passes.
func TestCheckFailsWhenAClusterGotWorse(t *testing.T) {
	t.Parallel()
	s := startCheckServer(t)
	dir := t.TempDir()
	sample := filepath.Join("..", "testdata", "airline-100.jsonl")

	code, out := s.check(t, "--file", sample, "--title", "probe", "--baseline", "none")
	require.Equal(t, check.Passed, code, out)
	probe := s.latestReport(t)
	cluster := largestCluster(probe)
	t.Logf("taking out the %d conversations of %q", cluster.Conversations, cluster.Title)
	reduced := filepath.Join(dir, "week-1.jsonl")
	require.NoError(t, os.WriteFile(reduced, withoutLines(t, sample, cluster.ConversationSeqs), 0o644))

	code, out = s.check(t, "--file", reduced, "--title", "Support agent, weekly")
	require.Equal(t, check.Passed, code, out)
	require.Contains(t, out, "Uploaded "+strconv.Itoa(100-cluster.Conversations)+" conversations")
	require.Contains(t, out, "No earlier finished run")

	code, out = s.check(t, "--file", sample, "--title", "Support agent, weekly")
	require.Equal(t, check.Regressed, code, out)
	t.Logf("the check that failed:\n%s", out)
	require.Contains(t, out, "✗ ")
	require.Contains(t, out, cluster.Title)
	require.Contains(t, out, "significantly worse than in the previous run")

	code, out = s.check(t, "--file", sample, "--title", "Support agent, weekly")
	require.Equal(t, check.Passed, code, out)
	require.Contains(t, out, "No cluster got significantly worse")
}

// latestReport is the report.json of the token owner's newest task, once it ended.
func (s checkServer) latestReport(t *testing.T) report.Report {
	t.Helper()
	resp := s.api.Do(t, http.MethodGet, "/api/v1/tasks?limit=1", nil, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var page struct {
		Tasks []struct {
			ID string `json:"id"`
		} `json:"tasks"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
	require.Len(t, page.Tasks, 1)
	resp = s.api.Do(t, http.MethodGet, "/api/v1/tasks/"+page.Tasks[0].ID+"/report.json", nil, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var r report.Report
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	require.True(t, r.Task.Terminal)
	return r
}

// largestCluster is the report's ACTION cluster with the most conversations.
func largestCluster(r report.Report) report.Cluster {
	var best report.Cluster
	for _, c := range r.Clusters {
		if c.Type == "ACTION" && !c.Expected && c.Conversations > best.Conversations {
			best = c
		}
	}
	return best
}

// withoutLines is the JSONL file at path without the lines numbered in seqs (1-based:
// a conversation's seq is its place in the upload).
func withoutLines(t *testing.T, path string, seqs []int) []byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out bytes.Buffer
	lines := bufio.NewScanner(f)
	lines.Buffer(nil, 10<<20)
	for n := 1; lines.Scan(); n++ {
		if !slices.Contains(seqs, n) {
			out.Write(lines.Bytes())
			out.WriteByte('\n')
		}
	}
	require.NoError(t, lines.Err())
	return out.Bytes()
}
