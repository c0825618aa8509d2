package locale

import (
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/stretchr/testify/require"
)

// messageFile is one catalog as parsed, by message id.
func messageFile(t *testing.T, code string) map[string]*i18n.Message {
	t.Helper()
	name := "catalog/" + code + ".toml"
	data, err := fs.ReadFile(catalogs, name)
	require.NoError(t, err)
	f, err := i18n.ParseMessageFileBytes(data, path.Base(name), map[string]i18n.UnmarshalFunc{"toml": toml.Unmarshal})
	require.NoError(t, err, name)
	out := map[string]*i18n.Message{}
	for _, m := range f.Messages {
		require.NotContains(t, out, m.ID, "%s: %s twice", name, m.ID)
		out[m.ID] = m
	}
	return out
}

// placeholder finds a message's arguments.
var placeholder = regexp.MustCompile(`{{\s*\.(\w+)\s*}}`)

// forms are the plural forms a message has.
func forms(m *i18n.Message) map[string]string {
	out := map[string]string{}
	for name, s := range map[string]string{"zero": m.Zero, "one": m.One, "two": m.Two, "few": m.Few, "many": m.Many, "other": m.Other} {
		if s != "" {
			out[name] = s
		}
	}
	return out
}

func arguments(m *i18n.Message) []string {
	var names []string
	for _, s := range forms(m) {
		for _, match := range placeholder.FindAllStringSubmatch(s, -1) {
			names = append(names, match[1])
		}
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// TestCatalogsHaveTheSameMessages fails on a key that one locale has and the other
// lacks, on a message whose two versions take different arguments, and on plural forms
// a language does not have (Chinese has only "other"; an English message with a
// singular has its plural too).
func TestCatalogsHaveTheSameMessages(t *testing.T) {
	t.Parallel()
	en, zh := messageFile(t, English), messageFile(t, Chinese)
	var onlyEn, onlyZh, args, plural []string
	for id, m := range en {
		z, ok := zh[id]
		if !ok {
			onlyEn = append(onlyEn, id)
			continue
		}
		if a, b := arguments(m), arguments(z); !slices.Equal(a, b) {
			args = append(args, id+": en "+strings.Join(a, ",")+" / zh-CN "+strings.Join(b, ","))
		}
		if f := forms(m); f["other"] == "" || (len(f) > 1 && (f["one"] == "" || len(f) > 2)) {
			plural = append(plural, "en "+id)
		}
		if f := forms(z); f["other"] == "" || len(f) > 1 {
			plural = append(plural, "zh-CN "+id)
		}
	}
	for id := range zh {
		if _, ok := en[id]; !ok {
			onlyZh = append(onlyZh, id)
		}
	}
	for _, l := range [][]string{onlyEn, onlyZh, args, plural} {
		sort.Strings(l)
	}
	require.Empty(t, onlyEn, "messages only the English catalog has")
	require.Empty(t, onlyZh, "messages only the Chinese catalog has")
	require.Empty(t, args, "messages whose two versions take different arguments")
	require.Empty(t, plural, "plural forms: English one and other, Chinese other only")
}

// TestCatalogsLoad builds the bundle from the embedded files.
func TestCatalogsLoad(t *testing.T) {
	t.Parallel()
	b, err := New()
	require.NoError(t, err)
	for _, code := range Codes() {
		l, ok := b.For(code)
		require.True(t, ok, code)
		require.Equal(t, code, l.Code())
	}
	_, ok := b.For("fr")
	require.False(t, ok)
}

// TestChineseSaysPromptOneWay: a prompt is 提示词 wherever the English says prompt,
// never 提示 alone, and the agent's prompt — the system prompt, the prompt a playbook
// or a fix location means — is 系统提示词 every time, so a reader never wonders whether
// two words name two things.
func TestChineseSaysPromptOneWay(t *testing.T) {
	t.Parallel()
	en, zh := messageFile(t, English), messageFile(t, Chinese)
	bare := regexp.MustCompile(`提示([^词]|$)`)
	for id, m := range en {
		for _, english := range forms(m) {
			chinese := forms(zh[id])["other"] // Chinese has no other form
			require.NotRegexp(t, bare, chinese, "%s: 提示 alone", id)
			english = strings.ToLower(placeholder.ReplaceAllString(english, ""))
			if strings.Contains(english, "prompt") {
				require.Contains(t, chinese, "提示词", "%s: %q", id, english)
			}
			agents := strings.HasPrefix(id, "playbook.") || strings.HasPrefix(id, "fix_location.")
			if strings.Contains(english, "system prompt") || (agents && strings.Contains(english, "prompt")) {
				require.Contains(t, chinese, "系统提示词", "%s: the system prompt, in %q", id, chinese)
			}
		}
	}
}

// TestCatalogsQuoteInsideQuotesWithSingleQuotes: no message opens “ inside its own
// “…”; a quote inside a quote is ‘…’, in both languages.
func TestCatalogsQuoteInsideQuotesWithSingleQuotes(t *testing.T) {
	t.Parallel()
	for _, code := range Codes() {
		for id, m := range messageFile(t, code) {
			for _, s := range forms(m) {
				depth := 0
				for _, r := range s {
					switch r {
					case '“':
						require.Zero(t, depth, "%s %s: “ inside “…”: %s", code, id, s)
						depth++
					case '”':
						depth--
					}
				}
				require.Zero(t, depth, "%s %s: “ and ” do not pair up: %s", code, id, s)
			}
		}
	}
}
