// Package locale is Checkup's two languages, English (en) and Simplified Chinese
// (zh-CN): the message catalogs (catalog/*.toml, go-i18n with CLDR plural rules), the
// choice of a locale from what a browser asks for (golang.org/x/text/language), numbers,
// shares and dates written for it (golang.org/x/text/message), and Text, a sentence kept
// as its message key and arguments so that one stored diagnosis reads in each reader's
// language. It sits at the bottom beside the other shared vocabularies, so every layer
// that writes words for people can import it; it imports nothing else of the module.
//
// The Bundle is built once at start (New) and passed to whoever renders; a request's
// Localizer travels in its context (NewContext, From).
package locale

import (
	"embed"
	"fmt"
	"io/fs"
	"path"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// The locales, by the BCP 47 tag <html lang> and the settings carry.
const (
	English = "en"
	Chinese = "zh-CN"
)

// Codes lists the supported locales, English (the default) first.
func Codes() []string { return []string{English, Chinese} }

// Choices lists the locales in the order the header's switch offers them: 中文 /
// English.
func Choices() []string { return []string{Chinese, English} }

// catalogs holds one message file per locale, named after its tag.
//
//go:embed catalog/*.toml
var catalogs embed.FS

// Bundle is the loaded catalogs and a Localizer per locale. It is read-only once built
// and safe for concurrent use.
type Bundle struct {
	matcher    language.Matcher
	localizers map[string]*Localizer
}

// New loads the embedded catalogs.
func New() (*Bundle, error) {
	bundle := i18n.NewBundle(language.English)
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	files, err := fs.Glob(catalogs, "catalog/*.toml")
	if err != nil {
		return nil, fmt.Errorf("locale: list catalogs: %w", err)
	}
	for _, name := range files {
		data, err := catalogs.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("locale: read %s: %w", name, err)
		}
		if _, err := bundle.ParseMessageFileBytes(data, path.Base(name)); err != nil {
			return nil, fmt.Errorf("locale: parse %s: %w", name, err)
		}
	}
	b := &Bundle{localizers: map[string]*Localizer{}}
	var tags []language.Tag
	for _, code := range Codes() {
		tag := language.MustParse(code)
		tags = append(tags, tag)
		b.localizers[code] = newLocalizer(bundle, code, tag)
	}
	b.matcher = language.NewMatcher(tags)
	return b, nil
}

// For returns the Localizer of a supported locale code; false for any other value
// (an empty setting, a cookie someone edited).
func (b *Bundle) For(code string) (*Localizer, bool) {
	l, ok := b.localizers[code]
	return l, ok
}

// English is the Localizer of the canonical language: what is stored is written in it.
func (b *Bundle) English() *Localizer { return b.localizers[English] }

// Match returns the Localizer a browser asks for in its Accept-Language header, English
// when it asks for neither language.
func (b *Bundle) Match(acceptLanguage string) *Localizer {
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return b.English()
	}
	_, i, confidence := b.matcher.Match(tags...)
	if confidence == language.No {
		return b.English()
	}
	return b.localizers[Codes()[i]]
}
