package db_test

import (
	"fmt"
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

// folders is the module's line of layers, top to bottom: each top-level folder imports
// only the folders below it, so no two of them import each other. static stands beside
// the line: only app serves it.
var folders = []string{"app", "views", "report", "workers", "db"}

// layers points every import down the folder line (folderLayers) and adds the rules
// inside the folders: the analyzers plug into the pipeline without importing it, the
// upload parser knows only the transcripts it makes, sign-in is not a handler, and the
// shared model at the bottom imports nothing else of the module.
var layers = append(folderLayers(),
	layer{"static", []string{"app", "views", "report", "workers", "db"}, nil, "the embedded files depend on nothing"},
	layer{"report", []string{"github.com/labstack/echo"}, nil, "the report model knows no web framework"},
	layer{"workers/offline", []string{"workers/pipeline"}, nil, "an analyzer plugs into the pipeline, it does not depend on it"},
	layer{"workers/llm", []string{"workers/pipeline"}, nil, "an analyzer plugs into the pipeline, it does not depend on it"},
	layer{"app/ingest", []string{"app", "views", "report", "workers", "db"}, []string{"app/ingest", "db/transcript", "db/locale"},
		"the upload parser turns files into transcripts, its refusals into catalog messages, and knows nothing else"},
	layer{"app/auth", []string{"app/web"}, nil, "sign-in guards the handlers and is not one of them"},
	layer{"app/check", []string{"app", "views", "workers", "db/store", "db/dbsqlc"}, []string{"app/check"},
		"the CI step is a client of the API: it reads the API's answers, not the tables"},
	layer{"workers/review", []string{"workers/pipeline"}, nil, "an owner's review ranks the stored Actions; it does not run the pipeline"},
	layer{"app/htmx", []string{"app"}, []string{"app/htmx"}, "the htmx helpers serve the handlers and sign-in alike"},
	layer{"app/flash", []string{"app"}, []string{"app/flash"}, "flash messages serve the handlers and sign-in alike"},
	layer{"db/transcript", []string{"db"}, []string{"db/transcript"}, "the transcript is the shared model at the very bottom"},
	layer{"db/taskstate", []string{"db"}, []string{"db/taskstate"}, "the task's vocabulary is shared by every layer"},
	layer{"db/startstop", []string{"db"}, []string{"db/startstop"}, "the services' one lifecycle is shared by every layer"},
	layer{"db/locale", []string{"db"}, []string{"db/locale"}, "the catalogs are read by every layer that writes words for people"},
)

// folderLayers forbids each folder of the line the folders above it and static.
func folderLayers() []layer {
	var out []layer
	for i, dir := range folders[1:] {
		above := slices.Clone(folders[:i+1])
		out = append(out, layer{dir, append(above, "static"), nil, fmt.Sprintf(
			"the folders are layers, %s, and %s sits below %s", strings.Join(folders, " → "), dir, strings.Join(above, ", "))})
	}
	return out
}

// TestLayersPointDown reads every non-test Go file of the module and fails on an
// import a layer forbids.
func TestLayersPointDown(t *testing.T) {
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

// TestLayersCatchWhatTheyShould proves the rules on made-up imports.
func TestLayersCatchWhatTheyShould(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pkg, dep string
		bad      bool
	}{
		{"db/store", "workers/analyzer", true},
		{"db/store", "db/transcript", false},
		{"db/store", "db/taskstate", false},
		{"db", "app/config", true},
		{"db/transcript", "db/taskstate", true},
		{"db/startstop", "db/store", true},
		{"db/locale", "db/store", true},
		{"views/layout", "db/locale", false},
		{"workers/offline", "db/locale", false},
		{"workers/retention", "db/startstop", false},
		{"workers/internal/testworker", "app/config", true},
		{"workers/pipeline", "db/store", false},
		{"workers/pipeline", "report", true},
		{"workers/offline", "workers/pipeline", true},
		{"workers/offline", "workers/textmatch", false},
		{"report", "workers/cluster", false},
		{"report", "views/components", true},
		{"report", "app/web", true},
		{"report", "github.com/labstack/echo/v4", true},
		{"report/compare", "report", false},
		{"views/components", "report", false},
		{"views/components", "reporting", false},
		{"views/pages", "app/web", true},
		{"views/pages", "static", true},
		{"app/web", "views/pages", false},
		{"app/web", "static", false},
		{"app/auth", "app/web", true},
		{"app/auth", "app/htmx", false},
		{"app/check", "report/compare", false},
		{"app/check", "db/taskstate", false},
		{"app/check", "db/store", true},
		{"app/check", "app/web", true},
		{"workers/review", "workers/pipeline", true},
		{"workers/review", "db/store", false},
		{"app/htmx", "app/web", true},
		{"app/ingest", "db/transcript", false},
		{"app/ingest", "db/store", true},
		{"app/ingest", "db/locale", false},
		{"app/ingest", "app/config", true},
		{"app/ingest/ingesttest", "app/ingest", false},
		{"static", "views", true},
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
