package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

// contract is the API's OpenAPI document as the server serves it, for checking real
// answers against: every answer's status must be documented for its operation, its
// required headers present, and its body valid under the documented schema. The
// API's own objects are checked strictly (a field the document does not list fails);
// report.json stays open, as its schema version allows added fields.
type contract struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
	mu       sync.Mutex
	schemas  map[string]*jsonschema.Schema
	checked  map[string]bool // "METHOD /path status" seen
}

// docURL names the document inside the compiler.
const docURL = "https://checkup.invalid/api/v1/openapi.json"

// loadContract reads the document from GET /api/v1/openapi.json, which needs no token.
func loadContract(t *testing.T, baseURL string) *contract {
	t.Helper()
	resp, err := http.Get(baseURL + "/api/v1/openapi.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "the document is open to anyone")
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	require.Equal(t, "3.1.0", doc["openapi"])
	strict, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	for name, s := range strict.(map[string]any)["components"].(map[string]any)["schemas"].(map[string]any) {
		if name != "Report" {
			closeObjects(s)
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	require.NoError(t, c.AddResource(docURL, strict))
	return &contract{doc: doc, compiler: c, schemas: map[string]*jsonschema.Schema{}, checked: map[string]bool{}}
}

// closeObjects marks every object schema with listed properties, at any depth, as
// allowing no others, so an answer with an undocumented field fails the check.
func closeObjects(v any) {
	switch s := v.(type) {
	case map[string]any:
		if _, ok := s["properties"]; ok {
			if _, open := s["additionalProperties"]; !open {
				s["unevaluatedProperties"] = false
			}
		}
		for _, sub := range s {
			closeObjects(sub)
		}
	case []any:
		for _, sub := range s {
			closeObjects(sub)
		}
	}
}

// docPath is the document's path for an echo route: /api/v1/tasks/:id → /tasks/{id}.
func docPath(route string) string {
	p := strings.TrimPrefix(route, "/api/v1")
	return strings.ReplaceAll(p, ":id", "{id}")
}

// operation returns the document's operation for method and path (document form).
func (k *contract) operation(t *testing.T, method, path string) map[string]any {
	t.Helper()
	item, ok := k.doc["paths"].(map[string]any)[path].(map[string]any)
	require.True(t, ok, "the document has no path %s", path)
	op, ok := item[strings.ToLower(method)].(map[string]any)
	require.True(t, ok, "the document has no %s %s", method, path)
	return op
}

// check validates resp, the answer to method on route (an echo route such as
// /api/v1/tasks/:id), against the document, and returns its body.
func (k *contract) check(t *testing.T, method, route string, resp *http.Response) []byte {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	path := docPath(route)
	status := fmt.Sprint(resp.StatusCode)
	op := k.operation(t, method, path)
	responses := op["responses"].(map[string]any)
	r, ok := responses[status].(map[string]any)
	require.True(t, ok, "%s %s answered %s, which the document does not list: %s", method, path, status, body)
	pointer := "#/paths/" + escape(path) + "/" + strings.ToLower(method) + "/responses/" + status
	if ref, ok := r["$ref"].(string); ok {
		pointer = ref
		r = k.resolve(t, ref)
	}
	for name, h := range mapOf(r["headers"]) {
		if required, _ := h.(map[string]any)["required"].(bool); required {
			require.NotEmpty(t, resp.Header.Get(name), "%s %s %s: header %s", method, path, status, name)
		}
	}
	content := mapOf(r["content"])
	if len(content) == 0 {
		require.Empty(t, body, "%s %s %s has no documented body", method, path, status)
		k.record(method, path, status)
		return body
	}
	mediaType, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	require.NoError(t, err, "%s %s %s: Content-Type", method, path, status)
	_, ok = content[mediaType]
	require.True(t, ok, "%s %s %s: Content-Type %s is not documented (%v)", method, path, status, mediaType, keys(content))
	schema := k.schema(t, pointer+"/content/"+escape(mediaType)+"/schema")
	var inst any = string(body)
	if mediaType == "application/json" {
		inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(body))
		require.NoError(t, err, "%s %s %s: the body is JSON", method, path, status)
	}
	require.NoError(t, schema.Validate(inst), "%s %s %s: the body matches the document:\n%s", method, path, status, clip(body))
	k.record(method, path, status)
	return body
}

func (k *contract) record(method, path, status string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.checked[method+" "+path+" "+status] = true
}

// seen lists the "METHOD /path status" answers checked so far.
func (k *contract) seen() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for s := range k.checked {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func (k *contract) schema(t *testing.T, pointer string) *jsonschema.Schema {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	if s, ok := k.schemas[pointer]; ok {
		return s
	}
	s, err := k.compiler.Compile(docURL + pointer)
	require.NoError(t, err, "compile %s", pointer)
	k.schemas[pointer] = s
	return s
}

// resolve follows a local $ref such as #/components/responses/NotFound.
func (k *contract) resolve(t *testing.T, ref string) map[string]any {
	t.Helper()
	var cur any = k.doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		m, ok := cur.(map[string]any)
		require.True(t, ok, "bad $ref %s", ref)
		cur = m[part]
	}
	m, ok := cur.(map[string]any)
	require.True(t, ok, "bad $ref %s", ref)
	return m
}

// operations lists the document's "METHOD /path" operations.
func (k *contract) operations() []string {
	var out []string
	for path, item := range k.doc["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			if method != "parameters" {
				out = append(out, strings.ToUpper(method)+" "+path)
			}
		}
	}
	slices.Sort(out)
	return out
}

func escape(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func clip(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}
