package locale

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// messageKey is what a string literal that names a catalog message looks like.
var messageKey = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-zA-Z0-9_-]+)+$`)

// fileName is a literal that names a file ("report.json"), not a message.
var fileName = regexp.MustCompile(`\.(json|jsonl|csv|md|go|toml|gz|txt|svg|ico|css|js|sql|templ)$`)

// TestEveryMessageTheCodeNamesExists reads every non-test Go file of the module and
// fails on a string literal that names a message of one of the catalog's sections
// ("upload.title") that the catalog does not have: a mistyped key would show as the
// key itself.
func TestEveryMessageTheCodeNamesExists(t *testing.T) {
	t.Parallel()
	en := messageFile(t, English)
	sections := map[string]bool{}
	for id := range en {
		sections[strings.SplitN(id, ".", 2)[0]] = true
	}
	var missing []string
	fset := token.NewFileSet()
	found := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "../.." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !messageKey.MatchString(s) || !sections[strings.SplitN(s, ".", 2)[0]] || fileName.MatchString(s) {
				return true
			}
			found++
			if _, ok := en[s]; !ok {
				missing = append(missing, fset.Position(lit.Pos()).String()+": "+s)
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, found, 10, "the code's message keys were read")
	sort.Strings(missing)
	require.Empty(t, missing, "message keys the code names that the catalog lacks")
}
