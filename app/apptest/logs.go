package apptest

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
)

// LogLines parses the JSON log lines a process or a server wrote (LOG_FORMAT=json).
func LogLines(tb testing.TB, out string) []map[string]any {
	tb.Helper()
	var lines []map[string]any
	scanner := bufio.NewScanner(strings.NewReader(out))
	scanner.Buffer(nil, 1<<20)
	for scanner.Scan() {
		var line map[string]any
		if err := json.Unmarshal(scanner.Bytes(), &line); err != nil {
			tb.Fatalf("not a JSON log line: %s: %v", scanner.Text(), err)
		}
		lines = append(lines, line)
	}
	return lines
}
