package report

import (
	"net/url"
	"strings"
	"unicode"
)

// maxSlugRunes keeps file names short enough for every file system and mail client.
const maxSlugRunes = 60

// Slug turns a task title into a file-name part: lower-case letters and digits of any
// script (so Chinese titles keep their words), runs of anything else as one hyphen.
func Slug(title string) string {
	var b strings.Builder
	n, dash := 0, false
	for _, r := range strings.ToLower(title) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			sep := dash && b.Len() > 0
			if n+1 > maxSlugRunes || (sep && n+2 > maxSlugRunes) {
				break
			}
			if sep {
				b.WriteByte('-')
				n++
			}
			b.WriteRune(r)
			n++
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// ContentDisposition is the Content-Disposition of a download named
// "<slug of title>-<short task id>-<suffix>" (RFC 6266): an ASCII filename for old
// clients, and filename* with the UTF-8 name when the slug is not plain ASCII. The id
// keeps two runs of one title (a re-run, last week's upload) apart in a downloads
// folder; a title with no letters or digits an ASCII client could show gives
// "checkup-<short task id>-<suffix>" as the ASCII name.
func ContentDisposition(title, taskID, suffix string) string {
	id := shortID(taskID)
	slug := Slug(title)
	ascii := asciiSlug(slug)
	if ascii == "" {
		ascii = "checkup"
	}
	ascii += "-" + id
	if slug == "" {
		slug = ascii
	} else {
		slug += "-" + id
	}
	v := `attachment; filename="` + ascii + "-" + suffix + `"`
	if slug != ascii {
		v += "; filename*=UTF-8''" + url.PathEscape(slug+"-"+suffix)
	}
	return v
}

// asciiSlug keeps the ASCII letters, digits and hyphens of slug, without stray hyphens.
func asciiSlug(slug string) string {
	var b strings.Builder
	for _, part := range strings.Split(slug, "-") {
		var p strings.Builder
		for _, r := range part {
			if r < unicode.MaxASCII {
				p.WriteRune(r)
			}
		}
		if p.Len() == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
