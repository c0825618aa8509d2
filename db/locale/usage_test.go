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

// catalogCalls are the functions that take a message key: the catalog's own and the
// helpers that wrap them.
var catalogCalls = map[string]bool{"Msg": true, "T": true, "N": true, "Lookup": true, "t": true,
	"problem": true, "warn": true, "badRecord": true, "fileErr": true, "conflict": true, "bad": true}

// TestEveryMessageTheCodeNamesExists reads every non-test Go file of the module and
// fails on a string literal that names a message the catalog does not have: one given
// to a function that takes a message key, or one under a section of the catalog
// ("upload.title"). A mistyped key would show as the key itself.
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
		keys := map[*ast.BasicLit]bool{} // literals given to a function that takes a key
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				name := ""
				switch fn := call.Fun.(type) {
				case *ast.Ident:
					name = fn.Name
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				}
				for _, a := range call.Args {
					if lit, ok := a.(*ast.BasicLit); ok && catalogCalls[name] {
						keys[lit] = true
					}
				}
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !messageKey.MatchString(s) || fileName.MatchString(s) ||
				(!sections[strings.SplitN(s, ".", 2)[0]] && !keys[lit]) {
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
