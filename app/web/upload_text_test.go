package web_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/ingest"
	"github.com/checkup-dev/checkup/db/dbtest"
)

// TestUploadWithTextStorageRefuses uploads text PostgreSQL cannot store — a lone UTF-16
// surrogate escape in metadata, which jsonb refuses (before, a generic 500 at storage),
// and U+0000 — and gets the form again with the line, and nothing stored.
func TestUploadWithTextStorageRefuses(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 0, ingest.Limits{})
	ok := `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}` + "\n"
	cases := map[string]string{
		ok + `{"messages": [{"role": "user", "content": "hi"}], "metadata": {"note": "\ud800"}}` + "\n":       "line 2: the text holds a lone UTF-16 surrogate escape",
		ok + ok + `{"messages": [{"role": "user", "content": "a\u0000b"}]}` + "\n":                            "line 3: the conversation contains a NUL character",
		"[\n" + ok + ",\n" + `{"messages": [{"role": "user", "content": "x"}], "metadata": {"n": "\udc00"}}]`: "line 4: the text holds a lone UTF-16 surrogate escape",
	}
	for file, want := range cases {
		c := b.user(t)
		resp := upload(t, c, titlePart("March"), filePart("export.jsonl", []byte(file)))
		require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
		require.Contains(t, testid(parse(t, resp), "upload-problem").First().Text(), want)
		require.Equal(t, stored{}, storedFor(t, b.pool, c.User.ID))
	}
}

// TestUploadTitleMustBeAName uploads with titles a list cannot show as they are (a
// control character, a line break, a right-to-left override) or that are not text: each
// is refused with the form again and the sentence, and nothing stored.
func TestUploadTitleMustBeAName(t *testing.T) {
	t.Parallel()
	b := setupUpload(t, dbtest.Pool(t), 0, ingest.Limits{})
	file := []byte(`{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}` + "\n")
	for title, want := range map[string]string{
		"bell\a":            "cannot be shown",
		"two\nlines":        "cannot be shown",
		"evil\u202etxt.exe": "cannot be shown",
		"a\x00b":            "NUL character",
		"a\xffb":            "not valid UTF-8",
	} {
		c := b.user(t)
		resp := upload(t, c, titlePart(title), filePart("export.jsonl", file))
		require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "%q", title)
		require.Contains(t, testid(parse(t, resp), "upload-reason").Text(), want, "%q", title)
		require.Equal(t, stored{}, storedFor(t, b.pool, c.User.ID))
	}
}
