package htmx

import (
	"bytes"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/checkup-dev/checkup/db/locale"
)

// A page is written in pieces (a message, a number, a badge, each its own text) and a
// template puts a space between two pieces on one line. English wants it; Chinese
// wants none beside full-width punctuation: “排名依据：” then the reason, “62.8” then
// “（满分 100）”, nor between two Chinese characters: “<b>56 个对话</b> 被标记”.
// tightenChinese takes those spaces out of a rendered page, once for every page, so no
// template has to know which language its pieces will be in.

// pageToken is one token of a page as it was written, and whether it is text the
// page writes in its own words (a Chinese page's spacing is its to set).
type pageToken struct {
	raw       []byte
	text      bool
	ownWords  bool
	lineBreak bool   // a br: what stands on either side is on two lines
	tag       string // a tag's element name, "" for text
}

// tightenChinese drops the runs of spaces in page's text that stand beside full-width
// punctuation (locale.FullWidth, or a Chinese dash ——), looking across tags for the
// character on each side, and those between two pieces with a Chinese character on
// either side, where one piece is words set in bold, italics or a link (b, strong, i,
// em, a): a badge or a button keeps its space, as it has no margin of its own. A line
// break (br) ends what is ahead. A space inside one piece between Chinese words is the
// writer's and stays. Text that is not in the
// page's own words is left as it is: a quote marked with its own language (lang), code,
// pre, script, style, textarea.
func tightenChinese(page []byte) []byte {
	tokens, ok := tokenize(page)
	if !ok {
		return page
	}
	// after[i] is the text that follows token i-1: the first text not all spaces.
	after := make([]string, len(tokens)+1)
	for i := len(tokens) - 1; i >= 0; i-- {
		after[i] = after[i+1]
		if tokens[i].text && strings.Trim(string(tokens[i].raw), " ") != "" {
			after[i] = string(tokens[i].raw)
		}
	}
	var out bytes.Buffer
	out.Grow(len(page))
	before := "" // the text written so far, up to its last character that is not a space
	for i, t := range tokens {
		if t.lineBreak {
			before = ""
		}
		s := string(t.raw)
		if t.ownWords {
			var edges [2]bool // a run at s's start, at its end, meets words set apart
			if i > 0 {
				edges[0] = setApart(tokens[i-1].tag)
			}
			if i+1 < len(tokens) {
				edges[1] = setApart(tokens[i+1].tag)
			}
			s = tighten(before, s, after[i+1], edges)
		}
		out.WriteString(s)
		if t.text {
			if trimmed := strings.TrimRight(s, " "); trimmed != "" {
				before = trimmed
			}
		}
	}
	return out.Bytes()
}

// tokenize splits page into its tokens, false when it is not HTML the tokenizer reads
// to its end.
func tokenize(page []byte) ([]pageToken, bool) {
	var tokens []pageToken
	z := html.NewTokenizer(bytes.NewReader(page))
	keeping, depth := "", 0 // the element whose text is kept as it is, and how deep in it
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return tokens, z.Err() == io.EOF
		}
		t := pageToken{raw: append([]byte(nil), z.Raw()...), text: tt == html.TextToken}
		switch tt {
		case html.SelfClosingTagToken:
			name, _ := z.TagName()
			t.tag, t.lineBreak = string(name), string(name) == "br"
		case html.StartTagToken:
			name, hasAttr := z.TagName()
			t.tag, t.lineBreak = string(name), string(name) == "br"
			switch {
			case keeping == string(name):
				depth++
			case keeping == "" && keepsItsText(string(name), hasAttr, z):
				keeping, depth = string(name), 1
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			t.tag = string(name)
			if keeping == string(name) {
				if depth--; depth == 0 {
					keeping = ""
				}
			}
		}
		t.ownWords = t.text && keeping == ""
		tokens = append(tokens, t)
	}
}

// keepsItsText reports whether the element starting at z holds text whose spaces are
// not the page's: code, preformatted text, scripts, and words marked with a language
// other than Chinese (a conversation's quotes).
func keepsItsText(name string, hasAttr bool, z *html.Tokenizer) bool {
	switch name {
	case "code", "pre", "script", "style", "textarea":
		return true
	case "html", "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr":
		return false // the page's own language, or an element with no text
	}
	for hasAttr {
		var key, val []byte
		key, val, hasAttr = z.TagAttr()
		if string(key) == "lang" && !strings.HasPrefix(string(val), "zh") {
			return true
		}
	}
	return false
}

// tighten drops from s the runs of spaces beside full-width punctuation, and those at
// its edges between two Chinese characters where edges says the run meets words set
// apart; before is the text ahead of s and after the text that follows it, for the
// runs at its edges.
func tighten(before, s, after string, edges [2]bool) string {
	if !strings.Contains(s, " ") {
		return s
	}
	var out strings.Builder
	left := before // the text ahead of the next run of spaces
	for s != "" {
		start := strings.IndexByte(s, ' ')
		if start < 0 {
			out.WriteString(s)
			break
		}
		end := start
		for end < len(s) && s[end] == ' ' {
			end++
		}
		if start > 0 {
			left = s[:start]
		}
		right := s[end:]
		if right == "" {
			right = after
		}
		out.WriteString(s[:start])
		edge := (start == 0 && edges[0]) || (end == len(s) && edges[1])
		if !endsWide(left) && !startsWide(right) && !(edge && endsHan(left) && startsHan(right)) {
			out.WriteString(s[start:end])
		}
		s = s[end:]
	}
	return out.String()
}

func endsWide(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return locale.FullWidth(r) || strings.HasSuffix(s, "——")
}

// setApart reports an element that sets words apart only by their type or a link: the
// spaces beside it are a template's, not the layout's.
func setApart(tag string) bool {
	switch tag {
	case "b", "strong", "i", "em", "a":
		return true
	}
	return false
}

func endsHan(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.Is(unicode.Han, r)
}

func startsHan(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.Is(unicode.Han, r)
}

func startsWide(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return locale.FullWidth(r) || strings.HasPrefix(s, "——")
}
