package pages_test

import (
	"fmt"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/views/pages"
)

var limits = pages.UploadLimits{MaxUploadMB: 200, MaxDecompressedBytes: 1 << 30, MaxLineBytes: 8 << 20,
	MaxConversations: 50_000, MaxMessages: 2_000, MaxMessageChars: 200_000, MinConversations: 5, MaxUnfinished: 20}

func TestUploadPageListsFormatsWithExamplesAndLimits(t *testing.T) {
	t.Parallel()
	doc, _ := render(t, pages.TaskNew(page, pages.TaskNewView{CSRFToken: "tok", Limits: limits}))

	formats := testid(doc, "upload-format")
	require.Equal(t, len(transcript.Families()), formats.Length())
	for i, f := range pages.UploadFormats() {
		s := formats.Eq(i)
		require.Equal(t, transcript.Families()[i], f.Family, "the page explains every family of formats, in order")
		require.Equal(t, string(f.Family), s.AttrOr("data-format", ""))
		require.Equal(t, f.Name(english(t)), s.Find("h3").Text())
		require.Equal(t, f.Example, s.Find(`[data-testid="upload-example"]`).Text(), "the example is shown as it is")
	}
	names := formats.Find("h3").Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	require.Equal(t, []string{"OpenAI chat JSONL", "JSON array of conversations", "ShareGPT", "CSV, one message per row",
		"Anthropic Messages", "Traces: OpenTelemetry, Langfuse, LangSmith"}, names)
	require.Contains(t, testid(doc, "upload-formats").Text(), "gzip-compressed")
	require.Contains(t, formats.Eq(3).Text(), "conversation_id, role, content")

	l := testid(doc, "upload-limits").Text()
	for _, want := range []string{"up to 200 MB as uploaded", "1 GB once decompressed", "50,000 conversations per file",
		"2,000 messages per conversation", "200,000 characters per message", "up to 8 MB", "first 20 problems",
		"At least 5 conversations that pass the quality checks", "Up to 20 of your diagnoses waiting or running at once"} {
		require.Contains(t, l, want)
	}
	require.Contains(t, testid(doc, "upload-form").Text(), "named after the file")
	sample := testid(doc, "upload-sample")
	require.Equal(t, "/static/sample/conversations.jsonl.gz", sample.AttrOr("href", ""), "the sample is offered as a download")
	require.NotContains(t, testid(doc, "upload-form").Text(), "testdata/", "no path inside the repository")
}

func TestUploadFormIsAPlainMultipartFormThatHTMXEnhances(t *testing.T) {
	t.Parallel()
	doc, _ := render(t, pages.TaskNewForm(pages.TaskNewView{CSRFToken: "tok", Limits: limits}))
	form := testid(doc, "upload-form")
	require.Equal(t, "post", form.AttrOr("method", ""))
	require.Equal(t, "/tasks", form.AttrOr("action", ""))
	require.Equal(t, "multipart/form-data", form.AttrOr("enctype", ""))
	require.Equal(t, "/tasks", form.AttrOr("hx-post", ""))
	require.Equal(t, "multipart/form-data", form.AttrOr("hx-encoding", ""))
	require.Equal(t, "#upload", form.AttrOr("hx-target", ""))
	require.Equal(t, 1, doc.Find("#upload").Length(), "htmx swaps the panel it came from")
	indicator := testid(doc, "upload-indicator")
	require.Equal(t, "#"+indicator.AttrOr("id", ""), form.AttrOr("hx-indicator", ""))
	require.True(t, indicator.HasClass("htmx-indicator"))

	inputs := form.Find("input")
	require.Equal(t, []string{"_csrf", "title", "agent", "file"}, inputs.Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("name", "") }),
		"_csrf first, so the CSRF check reads only that part and the file streams")
	require.Equal(t, "tok", inputs.First().AttrOr("value", ""))
	require.Equal(t, "file", testid(doc, "upload-file").AttrOr("type", ""))
	require.Equal(t, "200", testid(doc, "upload-title").AttrOr("maxlength", ""))
	require.Equal(t, 1, doc.Find(`label[for="upload-title"]`).Length())
	require.Equal(t, 1, doc.Find(`label[for="upload-file"]`).Length())
	require.Equal(t, "submit", testid(doc, "upload-submit").AttrOr("type", ""))
}

func TestUploadErrorsAreShownNextToTheFormWithTheTitleKept(t *testing.T) {
	t.Parallel()
	problems := make([]string, 20)
	for i := range problems {
		problems[i] = fmt.Sprintf(`line %d: "role" must be one of system, user, assistant, tool`, i+1)
	}
	problems[0] = "line 1: " + xss
	v := pages.TaskNewView{CSRFToken: "tok", Title: "Support bot " + xss, Limits: limits, Failure: &pages.UploadFailure{
		Problems: problems, More: 1234, Reason: "The conversation starting on line 90 is larger than the 8 MiB limit for one conversation.",
	}}
	doc, html := render(t, pages.TaskNew(page, v))

	errs := testid(doc, "upload-errors")
	require.Equal(t, 1, errs.Length())
	require.Equal(t, "alert", errs.AttrOr("role", ""))
	require.Equal(t, 1, doc.Find(`[data-testid="upload-panel"] > [data-testid="upload-errors"] + [data-testid="upload-form"]`).Length(),
		"the errors sit right above the form, in the panel htmx replaces")
	require.Contains(t, errs.Text(), "nothing was stored")
	require.Equal(t, 20, testid(doc, "upload-problem").Length())
	require.Equal(t, "line 1: "+xss, testid(doc, "upload-problem").First().Text())
	require.Equal(t, "and 1,234 more", testid(doc, "upload-more").Text())
	require.Equal(t, v.Failure.Reason, testid(doc, "upload-reason").Text())
	require.Equal(t, v.Title, testid(doc, "upload-title").AttrOr("value", ""), "the title is kept")
	require.NotContains(t, html, "<script>alert(1)</script>", "text from the file is escaped")
}

func TestUploadErrorWithoutLocatedProblems(t *testing.T) {
	t.Parallel()
	doc, _ := render(t, pages.TaskNewForm(pages.TaskNewView{Limits: limits, Failure: &pages.UploadFailure{Reason: "No file was chosen. Choose the export to upload."}}))
	require.Zero(t, testid(doc, "upload-problems").Length())
	require.Zero(t, testid(doc, "upload-more").Length())
	require.Equal(t, "No file was chosen. Choose the export to upload.", testid(doc, "upload-reason").Text())
}
