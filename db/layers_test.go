package db_test

import (
	"go/parser"
	gotoken "go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// module is the import path every package of the tree starts with.
const module = "github.com/checkup-dev/checkup/"

// layer is one rule of the module's shape: the packages at or under dir import none of
// forbidden (a package path under the module, or an outside module), except allowed.
type layer struct {
	dir       string
	forbidden []string
	allowed   []string
	why       string
}

// layers points every import down: db ← workers ← app/report ← views ← app/web,
// app/auth (DESIGN.md §9); within workers the analyzers plug into the pipeline without
// importing it.
var layers = []layer{
	{"db", []string{"app", "workers", "views"}, nil, "the tables and their queries sit at the bottom"},
	{"workers", []string{"app", "views"}, nil, "the worker and the diagnosis run without the web layer"},
	{"workers/offline", []string{"workers/pipeline"}, nil, "an analyzer plugs into the pipeline, it does not depend on it"},
	{"workers/llm", []string{"workers/pipeline"}, nil, "an analyzer plugs into the pipeline, it does not depend on it"},
	{"views", []string{"app"}, []string{"app/report"}, "pages render the report model and nothing else of the app"},
	{"app/report", []string{"views", "github.com/labstack/echo"}, nil, "the report model knows no page and no web framework"},
}

// TestImportsPointDown reads every non-test Go file of the module and fails on an
// import a layer forbids.
func TestImportsPointDown(t *testing.T) {
	t.Parallel()
	imports := moduleImports(t, "..")
	require.Contains(t, imports, "db/store", "the module's packages were read")
	var broken []string
	for pkg, deps := range imports {
		for _, dep := range deps {
			if l, bad := violates(pkg, dep); bad {
				broken = append(broken, pkg+" imports "+dep+": "+l.dir+" must not import "+
					strings.Join(l.forbidden, ", ")+" ("+l.why+")")
			}
		}
	}
	slices.Sort(broken)
	require.Empty(t, broken, "imports that point up")
}

// TestLayerRulesCatchWhatTheyShould proves the rules on made-up imports.
func TestLayerRulesCatchWhatTheyShould(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pkg, dep string
		bad      bool
	}{
		{"db/store", "workers/transcript", true},
		{"db/store", "db/taskstate", false},
		{"db", "app/config", true},
		{"workers/internal/testworker", "app/config", true},
		{"workers/pipeline", "db/store", false},
		{"workers/offline", "workers/pipeline", true},
		{"workers/offline", "workers/textmatch", false},
		{"views/components", "app/report", false},
		{"views/components", "app/reporting", true},
		{"views/pages", "app/web", true},
		{"app/report", "views/components", true},
		{"app/report", "github.com/labstack/echo/v4", true},
		{"app/web", "views/pages", false},
		{"app/reportx", "views", false},
		{"dbx", "app", false},
	} {
		_, bad := violates(c.pkg, c.dep)
		require.Equal(t, c.bad, bad, "%s importing %s", c.pkg, c.dep)
	}
}

// violates reports the layer whose rule pkg importing dep breaks. Module packages are
// named without the module's prefix.
func violates(pkg, dep string) (layer, bool) {
	for _, l := range layers {
		if !under(pkg, l.dir) {
			continue
		}
		forbidden := slices.ContainsFunc(l.forbidden, func(f string) bool { return under(dep, f) })
		allowed := slices.ContainsFunc(l.allowed, func(a string) bool { return under(dep, a) })
		if forbidden && !allowed {
			return l, true
		}
	}
	return layer{}, false
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// moduleImports maps every package of the tree at root (its directory, relative) to
// what its non-test files import, module packages named relative to the module.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := gotoken.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		for _, spec := range f.Imports {
			dep, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			out[pkg] = append(out[pkg], strings.TrimPrefix(dep, module))
		}
		return nil
	})
	if err != nil && !os.IsPermission(err) {
		require.NoError(t, err)
	}
	return out
}
