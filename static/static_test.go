package static_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/static"
)

// TestSampleIsTheRepositorysSample: the sample the upload page offers is the sample
// export of testdata/, byte for byte once decompressed, with its license beside it.
// After changing testdata/airline-100.jsonl, rebuild it with
//
//	gzip -9cn testdata/airline-100.jsonl > static/sample/conversations.jsonl.gz
func TestSampleIsTheRepositorysSample(t *testing.T) {
	t.Parallel()
	gz, err := static.FS.ReadFile("sample/conversations.jsonl.gz")
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	require.NoError(t, err)
	got, err := io.ReadAll(zr)
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("..", "testdata", "airline-100.jsonl"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "static/sample/conversations.jsonl.gz is testdata/airline-100.jsonl")
	license, err := static.FS.ReadFile("sample/LICENSE.txt")
	require.NoError(t, err)
	require.Contains(t, string(license), "MIT License")
}
