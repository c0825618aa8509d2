package layout

import (
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/a-h/templ/parser/v2"
	"github.com/a-h/templ/parser/v2/visitor"
	"github.com/stretchr/testify/require"
)

// word is a run of Latin letters as a reader would read a word.
var word = regexp.MustCompile(`[A-Za-z][A-Za-z'’]+`)

// notWords are the Latin words a template may show as they are, in every language:
// the product's name, the type badges' identifiers and the names of formats.
var notWords = []string{"Checkup", "RISK", "ACTION", "ShareGPT", "CSV"}

// codeLike is a token that is a file name, an address or an identifier
// ("report.json", "/api/v1/openapi.json", "conversation_id"), shown as it is.
var codeLike = regexp.MustCompile(`\S*[A-Za-z0-9][._/][A-Za-z0-9]\S*`)

// codeElements show code, shown as it is in every language.
var codeElements = []string{"code", "pre", "kbd"}

// readAttributes are the attributes people read (or hear from a screen reader); the
// others are classes, ids, addresses and htmx settings.
var readAttributes = []string{"placeholder", "title", "aria-label", "alt", "label", "hx-confirm", "data-label"}

// englishIn returns what of s reads as English words.
func englishIn(s string) []string {
	var out []string
	for _, w := range word.FindAllString(codeLike.ReplaceAllString(html.UnescapeString(s), " "), -1) {
		if !slices.Contains(notWords, w) {
			out = append(out, w)
		}
	}
	return out
}

// sentenceLiteral reports whether a Go string literal in a template's expression reads
// as words for people: a capitalised word, or two words with a space between. Single
// lower-case identifiers ("cluster", "expected/delete") are code.
var sentenceLiteral = regexp.MustCompile(`[A-Z][a-z]+|[A-Za-z]{2,} +[A-Za-z]{2,}`)

// literalsIn lists the string literals of a Go expression that read as sentences.
func literalsIn(expr string) []string {
	e, err := goparser.ParseExpr(expr)
	if err != nil {
		// Not an expression on its own (a for clause, a call with a block): look at its
		// quoted strings.
		var out []string
		for _, q := range regexp.MustCompile(`"(?:[^"\\]|\\.)*"`).FindAllString(expr, -1) {
			if s, err := strconv.Unquote(q); err == nil && sentenceLiteral.MatchString(s) {
				out = append(out, s)
			}
		}
		return out
	}
	var out []string
	catalogArgs := map[*ast.BasicLit]bool{} // a message's key and its arguments' names
	ast.Inspect(e, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && catalogCall(call) {
			for _, a := range call.Args {
				if lit, ok := a.(*ast.BasicLit); ok && argName.MatchString(lit.Value) {
					catalogArgs[lit] = true
				}
			}
		}
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && !catalogArgs[lit] {
			if s, err := strconv.Unquote(lit.Value); err == nil && sentenceLiteral.MatchString(s) && !strings.ContainsAny(s, "{}=") {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}

// argName is a quoted message key or argument name, as a call of the catalog takes
// them.
var argName = regexp.MustCompile(`^"([a-z][a-z0-9_]*(\.[a-zA-Z0-9_-]+)+|[A-Z][A-Za-z0-9]*)"$`)

// catalogCall reports whether call writes a catalog message: locale.T, locale.N,
// locale.Msg or a Localizer's T and N.
func catalogCall(call *ast.CallExpr) bool {
	var name string
	switch f := call.Fun.(type) {
	case *ast.SelectorExpr:
		name = f.Sel.Name
	case *ast.Ident:
		name = f.Name
	}
	return name == "T" || name == "N" || name == "Msg"
}

// englishLiterals parses one templ file and lists, by line, the English it shows outside
// the catalog: text between tags, attributes people read, and string literals in the
// expressions it renders or passes to other components.
func englishLiterals(name, src string) ([]string, error) {
	tf, err := parser.ParseString(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []string
	report := func(r parser.Range, what string, words []string) {
		if len(words) > 0 {
			out = append(out, fmt.Sprintf("%s:%d: %s %q", name, r.From.Line+1, what, strings.Join(words, " ")))
		}
	}
	v := visitor.New()
	element := v.Element
	v.Element = func(n *parser.Element) error {
		if slices.Contains(codeElements, n.Name) {
			return nil
		}
		return element(n)
	}
	text := v.Text
	v.Text = func(n *parser.Text) error {
		report(n.Range, "text", englishIn(n.Value))
		return text(n)
	}
	constant := v.ConstantAttribute
	v.ConstantAttribute = func(n *parser.ConstantAttribute) error {
		if slices.Contains(readAttributes, n.Key.String()) {
			report(n.ValueRange, n.Key.String(), englishIn(n.Value))
		}
		return constant(n)
	}
	attr := v.ExpressionAttribute
	v.ExpressionAttribute = func(n *parser.ExpressionAttribute) error {
		if slices.Contains(readAttributes, n.Key.String()) {
			report(n.Expression.Range, n.Key.String(), literalsIn(n.Expression.Value))
		}
		return attr(n)
	}
	str := v.StringExpression
	v.StringExpression = func(n *parser.StringExpression) error {
		report(n.Expression.Range, "expression", literalsIn(n.Expression.Value))
		return str(n)
	}
	call := v.TemplElementExpression
	v.TemplElementExpression = func(n *parser.TemplElementExpression) error {
		report(n.Expression.Range, "component argument", literalsIn(n.Expression.Value))
		return call(n)
	}
	if err := tf.Visit(v); err != nil {
		return nil, err
	}
	return out, nil
}

// TestTemplatesShowNoEnglishOutsideTheCatalog reads every templ file of views/ and fails
// on English words a template shows as they are instead of from the catalog
// (locale.T): a page would show them to a reader of Chinese too.
func TestTemplatesShowNoEnglishOutsideTheCatalog(t *testing.T) {
	t.Parallel()
	var found []string
	files := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".templ") {
			return err
		}
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lits, err := englishLiterals(path, string(src))
		found = append(found, lits...)
		return err
	})
	require.NoError(t, err)
	require.Greater(t, files, 10, "the templates were read")
	require.Empty(t, found, "English in templates, outside the catalog")
}

// TestTheLiteralCheckCatches proves the check on a made-up template.
func TestTheLiteralCheckCatches(t *testing.T) {
	t.Parallel()
	src := `package x

templ Bad(n int) {
	<h1>Your diagnoses</h1>
	<input placeholder="Search here"/>
	<p title={ "Upload a file" }>{ "and more" }</p>
	@Other("Compare with")
	<p>{ locale.T(ctx, "nav.diagnoses") } · Checkup — RISK #{ fmt.Sprint(n) }</p>
	<a href="/tasks" class="button secondary" data-testid="x">→</a>
	<p><code>conversation_id, role</code> report.json { "·" }</p>
	@Other("cluster")
	<p>{ locale.N(ctx, "upload.count", 3, "Name", "Some words") }</p>
}
`
	found, err := englishLiterals("bad.templ", src)
	require.NoError(t, err)
	require.Equal(t, []string{
		`bad.templ:4: text "Your diagnoses"`,
		`bad.templ:5: placeholder "Search here"`,
		`bad.templ:6: title "Upload a file"`,
		`bad.templ:6: expression "and more"`,
		`bad.templ:7: component argument "Compare with"`,
		`bad.templ:12: expression "Some words"`,
	}, found)
}
